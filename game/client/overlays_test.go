//go:build display

package client

import (
	"testing"
	"time"

	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/lobby"
)

// TestSpectateBannerFades (issue 30, item 6): the SPECTATING (or GAME OVER — spectating)
// banner is at the top-centre for 3 s, fades out over the last half second, and from then on
// only a small tag in the corner says it; it never vanishes altogether.
func TestSpectateBannerFades(t *testing.T) {
	last := float32(2)
	for n := 0; n < 20*spectateShow; n++ {
		al, corner := spectateBanner(n)
		switch {
		case n < spectateShow-spectateFade && (al != 1 || corner):
			t.Fatalf("frame %d: alpha %v corner %v, want the whole banner alone", n, al, corner)
		case n >= spectateShow && (al != 0 || !corner):
			t.Fatalf("frame %d: alpha %v corner %v, want only the corner tag", n, al, corner)
		case !corner && al == 0:
			t.Fatalf("frame %d: neither the banner nor the tag", n)
		case al > last:
			t.Fatalf("frame %d: the banner came back (%v after %v)", n, al, last)
		}
		last = al
	}
}

// TestTagOnScreenAtTheEdge (issue 30, item 6): a ship at the left edge has its slot tag above
// it, whole on screen (it was cut off left of the exhaust); elsewhere the tag trails the ship.
func TestTagOnScreenAtTheEdge(t *testing.T) {
	const w, h, tw = 80, 36, 40        // the ship's box, a tag's width ("1P")
	x, y := tagSpot(40, 500, w, h, tw) // the least x of a ship's centre (shipW/2)
	if x-tw < tagMargin || y+tagH > 500-h/2 {
		t.Errorf("ship at the edge: tag from x %v to %v, top %v: want it whole on screen and above the ship", x-tw, x, y)
	}
	x, y = tagSpot(600, 500, w, h, tw)
	if x != 600-w/2-14 || y != 490 {
		t.Errorf("ship in the open: tag at %v,%v, want left of its exhaust", x, y)
	}
}

// TestResultNameFits (issue 30, item 6): the results row of the longest name (16 of the
// widest letter) keeps its note "(you, out)" whole and within the name column at 1080p and in
// a 900×500 window; a short name and its note stay as they were (one normal line).
func TestResultNameFits(t *testing.T) {
	u := sharedUI()
	defer func(x xf) { u.xf = x }(u.xf)
	for _, win := range [][2]int{{1920, 1080}, {1280, 720}, {900, 500}} {
		u.xf = fit(win[0], win[1])
		w := 1000 - 260 - u.textWidth("00013700 C P", u.normal) - 30 // the name column beside the widest score
		long := scene.SlotLabel(2) + "  " + "WWWWWWWWWWWWWWWW"
		f := u.fitName(long, "(you, out)", w)
		if got := f.noteX + u.textWidth("(you, out)", f.noteFace); got > w {
			t.Errorf("%v: the name and its note are %v px wide, the column %v", win, got, w)
		}
		if f.noteX < u.textWidth(f.name, f.nameFace) {
			t.Errorf("%v: the note starts at %v, over the name (%v wide)", win, f.noteX, u.textWidth(f.name, f.nameFace))
		}
		f = u.fitName(scene.SlotLabel(0)+"  alice", "(you)", w)
		if f.name != scene.SlotLabel(0)+"  alice" || f.nameFace != u.normal || f.noteFace != u.normal {
			t.Errorf("%v: a short name %+v, want it and its note whole in the normal face", win, f)
		}
	}
	u.xf = fit(1920, 1080)
	w := 400.0
	if f := u.fitName(scene.SlotLabel(2)+"  Pilot-719C", "(you)", w); f.name != scene.SlotLabel(2)+"  Pilot-719C" {
		t.Errorf("the issue's name in %v px: %q, want it whole (the note smaller, not the name cut)", w, f.name)
	}
}

// TestTitleKeepsTheChosenItem (issue 30, item 6): coming back to the title puts the cursor on
// the item chosen last (the scene switch left it on the first), not while the title stays on
// screen; an item that is gone (a Rejoin) leaves the cursor where it is.
func TestTitleKeepsTheChosenItem(t *testing.T) {
	a := testApp(t)
	a.m.Scene = scene.Title
	items := a.titleItems()
	a.frameN = 100
	a.titleSel.restore(a, items)
	if a.menu != 0 {
		t.Fatalf("first title: cursor %d, want 0", a.menu)
	}
	a.titleSel.item = "Settings" // chosen, the settings opened, and back (the switch set 0)
	a.menu, a.frameN = 0, 400
	a.titleSel.restore(a, items)
	if items[a.menu] != "Settings" {
		t.Fatalf("back on the title: cursor on %q, want Settings", items[a.menu])
	}
	a.menu, a.frameN = 1, 401 // moved while the title is on: kept
	a.titleSel.restore(a, items)
	if a.menu != 1 {
		t.Fatalf("moved on the title: cursor %d, want 1", a.menu)
	}
	a.titleSel.item, a.menu, a.frameN = "Rejoin game XYZ12 as 2P", 0, 900
	a.titleSel.restore(a, items)
	if a.menu != 0 {
		t.Fatalf("a gone item: cursor %d, want 0", a.menu)
	}
}

// TestPlayerWordsHaveGlyphs: what the shutdown, password and spectating notices say is drawn
// in the pixel font without a missing glyph ('?'): the operator's words were quoted with
// curly quotes the font lacks.
func TestPlayerWordsHaveGlyphs(t *testing.T) {
	f := sharedUI().font
	for _, s := range []string{scene.ClosingWords(true, 90*time.Second, "back at 10:00"), scene.ClosingWords(false, 0, "bye"),
		scene.PasswordWords(lobby.AskServer, ""), scene.PasswordWords(lobby.AskServerAgain, ""),
		scene.PasswordWords(lobby.AskLobby, "K7QF2"), scene.PasswordWords(lobby.AskLobbyAgain, "K7QF2"),
		scene.SpectatingNotice, scene.GameOverSpectating, scene.ResumingNotice, "Enter send · Esc cancel"} {
		for _, r := range s {
			if r < 128 && f.ascii[r] == nil || r >= 128 && f.other[r] == nil {
				t.Errorf("%q: no glyph for %q", s, r)
			}
		}
	}
}
