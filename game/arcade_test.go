package game

import (
	"testing"

	"github.com/rtype/rtype/game/rules"
)

// arcadeRun is a run of three short stages: "short" twice and a terrain stage in the middle,
// so that a stage switch also switches the terrain.
func arcadeRun(t testing.TB) []*Stage {
	t.Helper()
	short, err := LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	cave := mustParse(t, "cave.json", `{
  "name": "cave", "scrollSpeed": 240,
  "sections": [{"at": 0, "song": 4, "name": "cave"}],
  "waves": [{"at": 200, "kind": "straight", "count": 4, "y": 540, "spacing": 60}],
  "terrain": {"theme": "organic", "step": 128, "ceiling": [120, 140, 160, 140, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120],
              "floor": [80, 100, 120, 100, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80, 80]},
  "boss": {"at": 1200, "kind": "small", "hp": 30, "song": 5,
    "phases": [{"below": 100, "pattern": "fan", "interval": 80, "bullets": 3, "speed": 260, "open": 120, "closed": 40}]}
}`)
	return []*Stage{short, cave, short}
}

// runPhase is what one tick of an arcade run showed.
type runPhase struct {
	index int
	tally bool
}

// The arcade sequence: stage 1 cleared → the tally (5 s, nothing to hit, every ship
// invulnerable, the stage's figures with the clear bonus) → stage 2 from its scroll 0 with
// lives and scores carried → stage 3 → victory after the last boss only. The stage singleton's
// Kind variant tells clients the stage and the tally; the run replays to the same hash.
func TestArcadeRun(t *testing.T) {
	run := arcadeRun(t)
	for _, n := range []int{1, 4} {
		s := NewSim(Config{Seed: 7, Players: n, Run: run})
		if s.Stage() != run[0] || len(s.Run()) != 3 {
			t.Fatalf("%d players: the run starts with stage %q of %d", n, s.Stage().Name, len(s.Run()))
		}
		var phases []runPhase
		clears, music := 0, 0
		var scoreAtClear, livesAtClear [rules.MaxPlayers]int
		tallyTicks := 0
		for tick := 0; tick < 60*60*TickRate; tick++ {
			for slot := 0; slot < n; slot++ {
				e := s.PlayerEntity(slot)
				if pl := s.c.Player.Get(e); pl.Lives < 2 && pl.Flags&PlayerDead == 0 {
					s.c.Player.Mut(e).Lives = 3 // topped up: the test is about the sequence
				}
				s.SetInput(slot, Autopilot(s.World(), s.Components(), &s.Stage().Terrain, e, s.Tick()))
			}
			s.Step()
			s.World().ClearEvents()
			idx, tally := RunVariant(s.c.Kind.Get(s.stageEnt).Variant)
			if idx != s.RunIndex() || tally != (s.Tally() > 0) {
				t.Fatalf("tick %d: variant says stage %d tally %v, sim %d %d", s.Tick(), idx, tally, s.RunIndex(), s.Tally())
			}
			if len(phases) == 0 || phases[len(phases)-1] != (runPhase{idx, tally}) {
				phases = append(phases, runPhase{idx, tally})
				if len(phases) > 1 && !tally { // a new stage began
					if s.Scroll() != 0 || s.BossFight() || s.Stage() != run[idx] {
						t.Errorf("stage %d begins at scroll %v, boss %v", idx, s.Scroll(), s.BossFight())
					}
					for slot := 0; slot < n; slot++ {
						pl := s.c.Player.Get(s.PlayerEntity(slot))
						if int(pl.Score) != scoreAtClear[slot] || int(pl.Lives) != livesAtClear[slot] {
							t.Errorf("stage %d, slot %d: score %d lives %d, the tally left %d and %d", idx, slot, pl.Score, pl.Lives, scoreAtClear[slot], livesAtClear[slot])
						}
					}
				}
			}
			if tally {
				tallyTicks++
				for it := s.qPK.Iter(); it.Next(); {
					if _, k := it.Get(); k.Kind == KindEnemy || k.Kind == KindEnemyBullet || k.Kind == KindBoss {
						t.Fatalf("tick %d: a %v during the tally", s.Tick(), k.Kind)
					}
				}
				for slot := 0; slot < n; slot++ {
					if pl := s.c.Player.Get(s.PlayerEntity(slot)); pl.Flags&PlayerDead == 0 && pl.Flags&PlayerInvulnerable == 0 {
						t.Fatalf("tick %d: slot %d is vulnerable during the tally", s.Tick(), slot)
					}
				}
			}
			for _, ev := range s.Events() {
				switch ev.Kind {
				case EventStageClear:
					clears++
					// docs/PROTOCOL.md §4.1 "The stage of an arcade run" (golden entity_stage_run).
					if k := s.c.Kind.Get(s.stageEnt); uint64(s.stageEnt) != 1<<32 || k.Kind != KindStage || k.Variant != uint8(clears-1)|RunTally {
						t.Errorf("clear %d: stage singleton %#x Kind %+v", clears, uint64(s.stageEnt), *k)
					}
					if int(ev.Stage) != clears-1 {
						t.Errorf("clear %d names stage %d", clears, ev.Stage)
					}
					total := 0
					for slot := 0; slot < n; slot++ {
						f := s.StageFigures(slot)
						pl := s.c.Player.Get(s.PlayerEntity(slot))
						scoreAtClear[slot], livesAtClear[slot] = int(pl.Score), int(pl.Lives)
						if f.Score < TallyBonus(int(pl.Lives), int(f.Deaths)) || f.Score > pl.Score {
							t.Errorf("clear %d slot %d: stage score %d (total %d, lives %d)", clears, slot, f.Score, pl.Score, pl.Lives)
						}
						total += int(f.Kills)
					}
					if total == 0 {
						t.Errorf("clear %d: no kill in the stage's figures", clears)
					}
				case EventMusic:
					music++
				}
			}
			if over, _ := s.Over(); over {
				break
			}
		}
		over, r := s.Over()
		if !over || r != rules.ResultVictory {
			t.Fatalf("%d players: over %v result %v at stage %d (phases %v)", n, over, r, s.RunIndex(), phases)
		}
		want := []runPhase{{0, false}, {0, true}, {1, false}, {1, true}, {2, false}}
		if len(phases) != len(want) {
			t.Fatalf("%d players: phases %v, want %v", n, phases, want)
		}
		for i := range want {
			if phases[i] != want[i] {
				t.Fatalf("%d players: phases %v, want %v", n, phases, want)
			}
		}
		if clears != 2 || tallyTicks != 2*TallyTicks {
			t.Errorf("%d players: %d clears, %d tally ticks; want 2 and %d", n, clears, tallyTicks, 2*TallyTicks)
		}
		if music < 6 { // each stage's first section and its boss
			t.Errorf("%d players: %d music changes, want each stage's and boss's", n, music)
		}
		t.Logf("%d players: victory after %d ticks (%.0f s)", n, s.Tick(), float64(s.Tick())/TickRate)
	}
}

// An arcade run is as deterministic as a stage: the same seed and inputs give the same hashes,
// and the run state is in the hash (a run differs from its first stage alone).
func TestArcadeRunDeterministic(t *testing.T) {
	run := arcadeRun(t)
	play := func(cfg Config) uint64 {
		s := NewSim(cfg)
		for i := 0; i < 30*TickRate; i++ {
			s.SetInput(0, Autopilot(s.World(), s.Components(), &s.Stage().Terrain, s.PlayerEntity(0), s.Tick()))
			s.Step()
			s.World().ClearEvents()
		}
		return s.Hash()
	}
	a, b := play(Config{Seed: 3, Players: 1, Run: run}), play(Config{Seed: 3, Players: 1, Run: run})
	if a != b {
		t.Fatalf("two runs: %x and %x", a, b)
	}
	if c := play(Config{Seed: 3, Players: 1, Stage: run[0]}); c == a {
		t.Fatalf("a run and its first stage alone hash alike (%x)", a)
	}
	one := NewSim(Config{Seed: 3, Players: 1, Run: run[:1]})
	if one.Run() != nil || one.Stage() != run[0] {
		t.Fatalf("a one-stage Run is a one-stage game")
	}
}

func TestTallyBonus(t *testing.T) {
	for _, c := range []struct {
		lives, deaths int
		want          uint32
	}{{3, 0, 3*TallyLifeBonus + TallyNoMissBonus}, {2, 1, 2 * TallyLifeBonus}, {0, 3, 0}} {
		if got := TallyBonus(c.lives, c.deaths); got != c.want {
			t.Errorf("TallyBonus(%d, %d) = %d, want %d", c.lives, c.deaths, got, c.want)
		}
	}
	if i, tally := RunVariant(2 | RunTally); i != 2 || !tally {
		t.Errorf("RunVariant: %d %v", i, tally)
	}
}

// A catalogue's arcade run: stagefile.DefaultRun's stages it offers, or SetRun's; never fewer than two; a
// stage file cannot take the pseudo-stage's name.
