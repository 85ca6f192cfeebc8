//go:build display

package client

import (
	"testing"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/wire"
)

// TestTallyAddsEachBonusInTurn (issue 30, item 5): a stage cleared with 3 ships and no miss
// (12 500 in the RESULTS: 4 500 points and the clear bonus) counts the 4 500 up first, then adds
// the lives bonus with its line, then NO MISS with its line, ending at the server's figure; a
// stage with a miss has no NO MISS; a player out of lives no bonus.
func TestTallyAddsEachBonusInTurn(t *testing.T) {
	bonus := game.TallyBonus(3, 0)
	e := wire.ResultEntry{Score: 4500 + bonus, Deaths: 0}
	r := splitTally(e, 3)
	if r.points != 4500 || r.livesBonus != 3*game.TallyLifeBonus || r.noMiss != game.TallyNoMissBonus {
		t.Fatalf("split %+v, want 4500 points, 3 ships' bonus and NO MISS", r)
	}
	steps := []struct {
		step          int
		points, total uint32
		lives, noMiss bool
	}{
		{0, 0, 0, false, false},
		{tallyCountUp, 4500, 4500, false, false},
		{tallyLivesAt + tallyAdd, 4500, 4500 + 3*game.TallyLifeBonus, true, false},
		{tallyMissAt - 1, 4500, 4500 + 3*game.TallyLifeBonus, true, false},
		{tallyDone, 4500, e.Score, true, true},
	}
	last := uint32(0)
	for _, s := range steps {
		p, l, n, tot := r.at(s.step)
		if p != s.points || tot != s.total || l != s.lives || n != s.noMiss {
			t.Errorf("step %d: points %d total %d lives line %v no-miss line %v, want %+v", s.step, p, tot, l, n, s)
		}
		if tot < last {
			t.Errorf("step %d: the total went down (%d after %d)", s.step, tot, last)
		}
		last = tot
	}
	for step := 0; step <= tallyDone; step++ { // the total never passes the server's score (the HUD holds back the rest)
		if _, _, _, tot := r.at(step); tot > e.Score {
			t.Fatalf("step %d: total %d over the score %d", step, tot, e.Score)
		}
	}
	if m := splitTally(wire.ResultEntry{Score: 4500 + game.TallyBonus(2, 1), Deaths: 1}, 2); m.noMiss != 0 || m.points != 4500 {
		t.Errorf("a stage with a miss: %+v", m)
	}
	if o := splitTally(wire.ResultEntry{Score: 4500, Deaths: 3, Flags: wire.ResultOut}, 0); o.points != 4500 || o.livesBonus+o.noMiss != 0 {
		t.Errorf("out of lives: %+v", o)
	}
}

// TestTallyHUDAddsTheBonusWithThePanel (issue 30, item 5): the server's score holds the clear
// bonus from the tally's first tick; the HUD shows the score it had before the tally until the
// stage's RESULTS come, then adds each bonus line when the panel adds it (the HUD's gain is
// always the panel's bonus so far), never going down, ending at the server's score.
func TestTallyHUDAddsTheBonusWithThePanel(t *testing.T) {
	const before = 20_000 // the run's score before the stage's clear bonus (stage 2 of a run)
	bonus := game.TallyBonus(3, 0)
	var tv tallyView
	var hud [4]playerHUD
	hud[1] = playerHUD{present: true, score: before + bonus, lives: 3}
	hud[3] = playerHUD{present: true, score: 7000, lives: 0} // out of lives: no bonus
	tv.before[1], tv.before[3] = before, 7000
	shown := func(slot int) uint32 { return hud[slot].score - min(hud[slot].score, tv.pending[slot]) }
	var res wire.Results
	tv.hold(&hud, &res, false, 0)
	if shown(1) != before || shown(3) != 7000 {
		t.Fatalf("before the RESULTS: the HUD shows %d and %d, want %d and 7000", shown(1), shown(3), before)
	}
	res.Count = 2
	res.Entries[0] = wire.ResultEntry{Slot: 1, Score: 4500 + bonus}
	res.Entries[1] = wire.ResultEntry{Slot: 3, Score: 1200, Deaths: 2, Flags: wire.ResultOut}
	row := splitTally(res.Entries[0], 3)
	last := uint32(0)
	for step := 0; step <= tallyDone; step++ {
		tv.hold(&hud, &res, true, step)
		points, _, _, total := row.at(step)
		if got, want := shown(1)-before, total-points; got != want {
			t.Fatalf("step %d: the HUD has added %d of the bonus, the panel %d", step, got, want)
		}
		if shown(1) < last {
			t.Fatalf("step %d: the HUD went down to %d from %d", step, shown(1), last)
		}
		last = shown(1)
		if shown(3) != 7000 {
			t.Fatalf("step %d: a player out of lives shows %d, want 7000 throughout", step, shown(3))
		}
	}
	if last != before+bonus {
		t.Errorf("the tally ends with the HUD at %d, want the server's %d", last, before+bonus)
	}
	// the HUD's guess before the RESULTS is bounded: a first frame that is already the tally
	// (before unknown, 0) does not blank the score
	tv = tallyView{}
	tv.hold(&hud, &res, false, 0)
	if shown(1) != before {
		t.Errorf("no frame before the tally: the HUD shows %d, want %d (the score less the biggest bonus)", shown(1), before)
	}
}
