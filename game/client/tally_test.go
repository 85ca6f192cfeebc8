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
