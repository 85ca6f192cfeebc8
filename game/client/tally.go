package client

import (
	"image/color"
	"strconv"

	"github.com/rtype/rtype/game/client/art"
	"github.com/rtype/rtype/game/client/netflow"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/net/wire"
)

// The stage-clear tally of an arcade run (docs/PROTOCOL.md §2.4.15, §3.4.9): while the stage
// singleton's variant says the tally is on (netflow.Frame.Tally), the game draws "STAGE N
// CLEAR" and each player's figures for the stage from the RESULTS the server sent with the
// clear (merged into a.ux.results), counting up over the first second and a half.

// tallyView is what collect keeps of the frame for the tally.
type tallyView struct {
	on, was    bool // the tally is on in this frame, was on in the last one drawn
	index, of  int  // the run's stage cleared, of so many
	shownSince int  // frame the tally was first drawn (the count-up)
}

// tallyText caches the tally's lines for one RESULTS value (the frame allocates nothing while it
// does not change).
type tallyText struct {
	key   wire.Results
	frac  int // count-up step the lines were built for
	title string
	rows  [rules.MaxPlayers]struct {
		name, score, kills, bonus string
		slot                      int
	}
	n int
}

// collect takes the frame's tally state.
func (tv *tallyView) collect(f *netflow.Frame) {
	if f.Tally && !tv.on {
		tv.shownSince = -1 // set when first drawn
	}
	tv.on, tv.index, tv.of = f.Tally, f.RunIndex, f.RunLen
}

const tallyCountUp = 90 // frames the figures take to count up

// drawTally draws the tally over the stopped world.
func (a *app) drawTally(dst surface) {
	tv := &a.draw.tally
	if !tv.on {
		if tv.was { // the next stage began: the stage's figures are not the game's results
			tv.was, a.ux.haveResults = false, false
		}
		return
	}
	tv.was = true
	if tv.shownSince < 0 {
		tv.shownSince = a.frameN
	}
	u := a.ui
	step := min(tallyCountUp, a.frameN-tv.shownSince)
	t := &a.tallyTxt
	if t.title == "" || t.key != a.ux.results || t.frac != step {
		t.key, t.frac = a.ux.results, step
		t.title = "STAGE " + strconv.Itoa(tv.index+1) + " CLEAR"
		t.n = 0
		if a.ux.haveResults {
			for _, e := range a.ux.results.Entries[:a.ux.results.Count] {
				r := &t.rows[t.n]
				r.slot = int(e.Slot) % rules.MaxPlayers
				r.name = a.resultName(int(e.Slot))
				r.score = strconv.FormatUint(uint64(e.Score)*uint64(step)/tallyCountUp, 10)
				r.kills = strconv.Itoa(int(e.Kills)*step/tallyCountUp) + " kills"
				r.bonus = ""
				if e.Deaths == 0 && e.Flags&wire.ResultOut == 0 {
					r.bonus = "NO MISS"
				}
				t.n++
			}
		}
	}
	u.on(dst).rect(Width/2-620, 250, 1240, float32(230+70*max(t.n, 1)), color.RGBA{0, 0, 20, 200})
	u.text(dst, t.title, u.big, Width/2, 290, alignCenter, color.RGBA{255, 220, 120, 255})
	sub := "next: stage " + strconv.Itoa(tv.index+2) + " of " + strconv.Itoa(tv.of)
	u.text(dst, sub, u.small, Width/2, 390, alignCenter, u.dimCol)
	for i := 0; i < t.n; i++ {
		r := &t.rows[i]
		y := float64(460 + 70*i)
		col := art.SlotColors[r.slot]
		u.text(dst, r.name, u.normal, Width/2-560, y, alignStart, col)
		u.text(dst, r.score, u.normal, Width/2+120, y, alignEnd, white)
		u.text(dst, r.kills, u.small, Width/2+360, y+6, alignEnd, u.dimCol)
		u.text(dst, r.bonus, u.small, Width/2+560, y+6, alignEnd, color.RGBA{140, 255, 160, 255})
	}
	if t.n == 0 {
		u.text(dst, "stage clear", u.normal, Width/2, 470, alignCenter, white)
	}
}
