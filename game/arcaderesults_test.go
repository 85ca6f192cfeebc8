package game

import (
	"testing"

	"github.com/rtype/rtype/game/rules"
)

// docs/PROTOCOL.md §3.4.9: the figures of a cleared stage (StageFigures, the tally's RESULTS)
// are that stage's alone, from its first tick to its clear, and Stats (the RESULTS before
// GAME_END) is cumulative: at every clear the stages' figures so far, plus the shots fired during
// the tallies (nothing else happens in one), add up to it, and at the end it is the whole run's,
// every clear bonus in the score.
func TestArcadeFiguresAddUp(t *testing.T) {
	run := arcadeRun(t)
	s := NewSim(Config{Seed: 7, Players: 2, Run: run})
	var sum [rules.MaxPlayers]PlayerStats
	add := func(a *PlayerStats, b PlayerStats) {
		a.Score += b.Score
		a.Kills += b.Kills
		a.Deaths += b.Deaths
		a.BeamHits += b.BeamHits
		a.Shots += b.Shots
		a.Hits += b.Hits
	}
	same := func(a, b PlayerStats) bool {
		return a.Score == b.Score && a.Kills == b.Kills && a.Deaths == b.Deaths && a.BeamHits == b.BeamHits && a.Shots == b.Shots && a.Hits == b.Hits
	}
	clears := 0
	var atClear [rules.MaxPlayers]PlayerStats
	tallyOn := false
	for tick := 0; tick < 60*60*TickRate; tick++ {
		for slot := 0; slot < 2; slot++ {
			e := s.PlayerEntity(slot)
			if pl := s.c.Player.Get(e); pl.Lives < 2 && pl.Flags&PlayerDead == 0 {
				s.c.Player.Mut(e).Lives = 3 // topped up: the test is about the figures
			}
			s.SetInput(slot, Autopilot(s.World(), s.Components(), &s.Stage().Terrain, e, s.Tick()))
		}
		s.Step()
		if tallyOn && s.Tally() == 0 { // the next stage began: what the tally added is in no stage
			for slot := 0; slot < 2; slot++ {
				d := stageDiff(s.Stats(slot), atClear[slot])
				if d.Score != 0 || d.Kills != 0 || d.Deaths != 0 || d.BeamHits != 0 || d.Hits != 0 {
					t.Errorf("slot %d: figures during a tally %+v: only shots can be fired there", slot, d)
				}
				add(&sum[slot], d)
			}
		}
		tallyOn = s.Tally() > 0
		for _, ev := range s.Events() {
			if ev.Kind != EventStageClear {
				continue
			}
			clears++
			for slot := 0; slot < 2; slot++ {
				f := s.StageFigures(slot)
				if f.Kills == 0 && f.Shots == 0 {
					t.Errorf("clear %d slot %d: the stage's figures are empty: %+v", clears, slot, f)
				}
				add(&sum[slot], f)
				atClear[slot] = s.Stats(slot)
				if st := s.Stats(slot); !same(sum[slot], st) {
					t.Errorf("clear %d slot %d: the stages' figures add up to %+v, the game's are %+v", clears, slot, sum[slot], st)
				}
			}
		}
		s.World().ClearEvents()
		if over, _ := s.Over(); over {
			break
		}
	}
	if over, r := s.Over(); !over || r != rules.ResultVictory || clears != len(run)-1 {
		t.Fatalf("the run ended %v %v after %d clears", over, r, clears)
	}
	for slot := 0; slot < 2; slot++ {
		st := s.Stats(slot)
		if st.Score != s.c.Player.Get(s.PlayerEntity(slot)).Score || st.Score <= sum[slot].Score || st.Kills < sum[slot].Kills || st.Shots <= sum[slot].Shots {
			t.Errorf("slot %d: the game's final figures %+v are not the whole run's (the cleared stages' alone: %+v)", slot, st, sum[slot])
		}
	}
}
