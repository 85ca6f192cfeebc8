package client

import (
	"image/color"
	"strconv"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/art"
	"github.com/rtype/rtype/game/client/netflow"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/net/wire"
)

// The stage-clear tally of an arcade run (docs/PROTOCOL.md §2.4.15, §3.4.9): while the stage
// singleton's variant says the tally is on (netflow.Frame.Tally), the game draws "STAGE N
// CLEAR" and each player's figures for the stage from the RESULTS the server sent with the
// clear (merged into a.ux.results): the stage's points count up, then the clear bonus is added
// a line at a time (the lives in stock, then NO MISS, game.TallyBonus) into the stage's total.
// The HUD adds each bonus line with the tally: the server's score holds the bonus from the
// tally's first tick, so the HUD holds back what the tally has not added yet (tallyView.hold) and
// never jumps ahead of the panel, nor goes down.

// tallyView is what collect keeps of the frame for the tally.
type tallyView struct {
	on, was    bool // the tally is on in this frame, was on in the last one drawn
	index, of  int  // the run's stage cleared, of so many
	shownSince int  // frame the tally was first drawn (the count-up)
	// pending is each slot's points the tally has not added yet: the HUD shows its score less
	// them (0 when no tally is on)
	pending [rules.MaxPlayers]uint32
	// before is each slot's score in the last frame drawn before the tally (what the HUD shows
	// until the stage's RESULTS say how the jump splits)
	before [rules.MaxPlayers]uint32
}

// tallyText caches the tally's lines for one RESULTS value (the frame allocates nothing while it
// does not change).
type tallyText struct {
	key   wire.Results
	frac  int // count-up step the lines were built for
	title string
	rows  [rules.MaxPlayers]struct {
		name, points, kills, lives, noMiss, total string
		slot                                      int
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

// The tally's steps, in frames from its first: the stage's points count up, then the lives
// bonus is added, then the no-miss bonus; all is shown by tallyDone, well inside the tally's
// game.TallyTicks.
const (
	tallyCountUp = 60  // frames the stage's points take to count up
	tallyLivesAt = 80  // the lives bonus is added (and counted into the total over tallyAdd)
	tallyMissAt  = 120 // the no-miss bonus is added
	tallyAdd     = 20  // frames a bonus takes to count into the total
	tallyDone    = tallyMissAt + tallyAdd
)

// tallyRow is one player's tally: the stage's points before the clear bonus and the bonus's
// two parts, from the stage's RESULTS entry and the lives in stock.
type tallyRow struct {
	points, livesBonus, noMiss uint32
	lives                      int
}

// splitTally splits a player's stage figures (the RESULTS entry, whose score holds the clear
// bonus) into the tally's lines, with lives the ships in stock (game.TallyBonus).
func splitTally(e wire.ResultEntry, lives int) tallyRow {
	if e.Flags&wire.ResultOut != 0 {
		lives = 0
	}
	r := tallyRow{lives: lives}
	if b := game.TallyBonus(lives, int(e.Deaths)); b > 0 && b <= e.Score {
		r.livesBonus = uint32(lives) * game.TallyLifeBonus
		r.noMiss = b - r.livesBonus
	}
	r.points = e.Score - r.livesBonus - r.noMiss
	return r
}

// ramp is v counted up over n frames from frame from, at frame step.
func ramp(v uint32, step, from, n int) uint32 {
	switch {
	case step <= from:
		return 0
	case step >= from+n:
		return v
	}
	return uint32(uint64(v) * uint64(step-from) / uint64(n))
}

// at is what the tally shows of r at step (frames since it was first drawn): the points
// counted, whether each bonus line is on, and the total so far.
func (r tallyRow) at(step int) (points uint32, livesOn, noMissOn bool, total uint32) {
	points = ramp(r.points, step, 0, tallyCountUp)
	livesOn, noMissOn = r.livesBonus > 0 && step >= tallyLivesAt, r.noMiss > 0 && step >= tallyMissAt
	total = points + ramp(r.livesBonus, step, tallyLivesAt, tallyAdd) + ramp(r.noMiss, step, tallyMissAt, tallyAdd)
	return points, livesOn, noMissOn, total
}

// held is the part of r's clear bonus the tally has not added yet at step (the HUD holds it
// back).
func (r tallyRow) held(step int) uint32 {
	return r.livesBonus - ramp(r.livesBonus, step, tallyLivesAt, tallyAdd) + r.noMiss - ramp(r.noMiss, step, tallyMissAt, tallyAdd)
}

// hold sets the points the HUD holds back at step of the tally, from the HUD's scores (which
// hold the clear bonus) and the stage's RESULTS when they have come (have): before they come,
// all a player gained since the last frame before the tally (at most the biggest bonus the
// ships in stock can give); then the bonus lines not added yet.
func (tv *tallyView) hold(scores *[rules.MaxPlayers]playerHUD, res *wire.Results, have bool, step int) {
	tv.pending = [rules.MaxPlayers]uint32{}
	if !have {
		for s := range scores {
			sc := scores[s].score
			tv.pending[s] = min(sc-min(sc, tv.before[s]), game.TallyBonus(int(scores[s].lives), 0))
		}
		return
	}
	for _, e := range res.Entries[:min(int(res.Count), len(res.Entries))] {
		slot := int(e.Slot) % rules.MaxPlayers
		tv.pending[slot] = min(scores[slot].score, splitTally(e, int(scores[slot].lives)).held(step))
	}
}

// legible is a slot colour lightened for text on the tally's dark panel (the blue and red mid
// tones are dark on it).
func legible(c color.RGBA) color.RGBA {
	l := func(v uint8) uint8 { return v + uint8((255-int(v))*45/100) }
	return color.RGBA{l(c.R), l(c.G), l(c.B), c.A}
}

var (
	tallyPanelCol = color.RGBA{0, 0, 20, 235} // the ships stopped behind it show only faintly
	tallyGoldCol  = color.RGBA{255, 220, 120, 255}
	tallyBonusCol = color.RGBA{140, 255, 160, 255}
)

// drawTally draws the tally over the stopped world (before the HUD: it sets the points the HUD
// holds back).
func (a *app) drawTally(dst surface) {
	tv := &a.draw.tally
	if !tv.on {
		if tv.was { // the next stage began: the stage's figures are not the game's results
			tv.was, a.ux.haveResults = false, false
		}
		tv.pending = [rules.MaxPlayers]uint32{}
		for s := range a.scores {
			tv.before[s] = a.scores[s].score
		}
		return
	}
	tv.was = true
	if tv.shownSince < 0 || !a.ux.haveResults {
		tv.shownSince = a.frameN // the count-up starts with the stage's figures
	}
	u := a.ui
	step := min(tallyDone, a.frameN-tv.shownSince)
	tv.hold(&a.scores, &a.ux.results, a.ux.haveResults, step)
	t := &a.tallyTxt
	if t.title == "" || t.key != a.ux.results || t.frac != step {
		t.key, t.frac = a.ux.results, step
		t.title = "STAGE " + strconv.Itoa(tv.index+1) + " CLEAR"
		t.n = 0
		if a.ux.haveResults {
			for _, e := range a.ux.results.Entries[:a.ux.results.Count] {
				slot := int(e.Slot) % rules.MaxPlayers
				tr := splitTally(e, int(a.scores[slot].lives))
				points, livesOn, noMissOn, total := tr.at(step)
				r := &t.rows[t.n]
				r.slot = slot
				r.name = u.clip(a.resultName(slot), u.normal, 360)
				r.points = strconv.FormatUint(uint64(points), 10)
				r.kills = strconv.Itoa(int(e.Kills) * min(step, tallyCountUp) / tallyCountUp)
				r.lives, r.noMiss = "", ""
				if livesOn {
					r.lives = "+" + strconv.FormatUint(uint64(tr.livesBonus), 10) + " (" + strconv.Itoa(tr.lives) + " ships)"
				}
				if noMissOn {
					r.noMiss = "+" + strconv.FormatUint(uint64(tr.noMiss), 10)
				}
				r.total = strconv.FormatUint(uint64(total), 10)
				t.n++
			}
		}
	}
	const x0 = Width/2 - 700
	u.on(dst).rect(x0, 250, 1400, float32(270+70*max(t.n, 1)), tallyPanelCol)
	u.text(dst, t.title, u.big, Width/2, 290, alignCenter, tallyGoldCol)
	sub := "next: stage " + strconv.Itoa(tv.index+2) + " of " + strconv.Itoa(tv.of)
	u.text(dst, sub, u.small, Width/2, 390, alignCenter, u.dimCol)
	if t.n == 0 {
		u.text(dst, "stage clear", u.normal, Width/2, 470, alignCenter, white)
		return
	}
	cols := [...]struct {
		head string
		x    float64
	}{{"POINTS", Width/2 - 150}, {"KILLS", Width/2 - 30}, {"LIVES BONUS", Width/2 + 250}, {"NO MISS", Width/2 + 470}, {"TOTAL", Width/2 + 670}}
	for _, c := range cols {
		u.text(dst, c.head, u.small, c.x, 450, alignEnd, u.dimCol)
	}
	for i := 0; i < t.n; i++ {
		r := &t.rows[i]
		y := float64(500 + 70*i)
		u.text(dst, r.name, u.normal, Width/2-670, y, alignStart, legible(art.SlotColors[r.slot]))
		u.text(dst, r.points, u.normal, cols[0].x, y, alignEnd, white)
		u.text(dst, r.kills, u.small, cols[1].x, y+6, alignEnd, u.dimCol)
		u.text(dst, r.lives, u.small, cols[2].x, y+6, alignEnd, tallyBonusCol)
		u.text(dst, r.noMiss, u.small, cols[3].x, y+6, alignEnd, tallyBonusCol)
		u.text(dst, r.total, u.normal, cols[4].x, y, alignEnd, tallyGoldCol)
	}
}
