package game

import (
	"testing"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game/rules"
)

// The results figures: two shots fired, both hit, one kill; a beam that pierces three enemies
// counts as one shot, one hit and one beam hit (and three kills); a death counts.
func TestPlayerStats(t *testing.T) {
	s := newTestSim(t, 2)
	e := s.PlayerEntity(0)
	y := s.c.Position.Get(e).Y
	en := addEnemy(s, 800, y, 2)
	step(s, 1, BtnFire)
	step(s, 40, 0)
	step(s, 1, BtnFire)
	step(s, 40, 0)
	if s.World().Alive(en) {
		t.Fatal("enemy alive after two shots")
	}
	st := s.Stats(0)
	if st.Shots != 2 || st.Hits != 2 || st.Kills != 1 || st.BeamHits != 0 || st.Score != 100 || st.Deaths != 0 || !st.Present || st.Lives != startLives {
		t.Fatalf("stats after two shots %+v", st)
	}
	if o := s.Stats(1); o.Shots != 0 || o.Kills != 0 || !o.Present {
		t.Errorf("the other player's stats %+v", o)
	}

	// A shot into the void: fired, not a hit.
	step(s, 1, BtnFire)
	step(s, 120, 0)
	if st := s.Stats(0); st.Shots != 3 || st.Hits != 2 {
		t.Errorf("after a miss: shots %d hits %d, want 3 2", st.Shots, st.Hits)
	}

	for _, x := range []float32{700, 900, 1100} {
		addEnemy(s, x, y, 1)
	}
	step(s, chargeDelay+chargeTicks, BtnFire) // the press shot hits the first enemy, the beam the others
	step(s, 60, 0)
	st = s.Stats(0)
	if st.BeamHits != 1 || st.Kills != 4 || st.Shots != 5 || st.Hits != 4 {
		t.Errorf("after a beam through three enemies: %+v, want 1 beam hit, 4 kills, 5 shots, 4 hits", st)
	}

	makeVulnerable(s)
	s.killShip(1)
	if d := s.Stats(1).Deaths; d != 1 {
		t.Errorf("deaths %d, want 1", d)
	}
	if s.Stats(7) != (PlayerStats{}) {
		t.Error("an invalid slot has stats")
	}
}

// A suspended slot leaves the world but keeps its record, keeps a lone out-of-lives partner
// from losing, and comes back on its own slot with its score and lives.
func TestSuspendResume(t *testing.T) {
	s := newTestSim(t, 2)
	e1 := s.PlayerEntity(1)
	s.c.Player.Mut(e1).Score = 1234
	s.c.Player.Mut(e1).Lives = 2
	if !s.SuspendPlayer(1) || !s.Suspended(1) || s.PlayerEntity(1) != ecs.Nil || s.World().Alive(e1) {
		t.Fatal("suspend did not take the ship out")
	}
	if s.SuspendPlayer(1) {
		t.Error("suspended twice")
	}
	if st := s.Stats(1); st.Score != 1234 || st.Lives != 2 || !st.Present {
		t.Errorf("suspended stats %+v", st)
	}
	// The player left in game runs out of lives: the suspended one still has some.
	s.c.Player.Get(s.PlayerEntity(0)).Lives = 1
	makeVulnerable(s)
	s.killShip(0)
	step(s, 5, 0)
	if over, _ := s.Over(); over {
		t.Fatal("game over while a suspended player has lives")
	}
	e := s.ResumePlayer(1)
	if e == ecs.Nil || s.PlayerEntity(1) != e || s.Suspended(1) {
		t.Fatal("resume did not give a ship back")
	}
	pl := s.c.Player.Get(e)
	if pl.Score != 1234 || pl.Lives != 2 || pl.Slot != 1 || pl.Flags != PlayerInvulnerable {
		t.Errorf("resumed player %+v", pl)
	}
	if s.ResumePlayer(1) != ecs.Nil || s.ResumePlayer(0) != ecs.Nil {
		t.Error("resumed a slot that is not suspended")
	}
	// Suspended then removed: the game ends when nobody with lives is left.
	s.SuspendPlayer(1)
	s.RemovePlayer(1)
	step(s, continueTicks+1, 0) // player 1's continue offer runs out
	if over, r := s.Over(); !over || r != rules.ResultDefeat {
		t.Fatalf("Over() = %v, %v after the suspended player was removed, want defeat", over, r)
	}
	if st := s.Stats(1); st.Score != 1234 || st.Present {
		t.Errorf("removed slot stats %+v", st)
	}
}

// Suspending and resuming is deterministic: two sims given the same calls hash the same.
func TestSuspendDeterministic(t *testing.T) {
	a, b := newTestSim(t, 2), newTestSim(t, 2)
	for _, s := range []*Sim{a, b} {
		step(s, 30, BtnFire)
		s.SuspendPlayer(1)
		step(s, 30, BtnFire|BtnUp)
		s.ResumePlayer(1)
		step(s, 30, BtnFire)
	}
	if a.Hash() != b.Hash() || a.Stats(0) != b.Stats(0) {
		t.Fatal("suspend/resume is not deterministic")
	}
}
