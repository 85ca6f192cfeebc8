package game

import (
	"testing"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game/rules"
)

// playAuto runs the stage with every ship on Autopilot until the game is
// over or maxTicks; it returns whether it ended, the result and the ticks played.
func playAuto(t testing.TB, st *Stage, players int, seed uint64, maxTicks int) (bool, rules.Result, int, *Sim) {
	t.Helper()
	s := NewSim(Config{Seed: seed, Players: players, Stage: st})
	for i := 0; i < maxTicks; i++ {
		for slot := 0; slot < players; slot++ {
			s.SetInput(slot, Autopilot(s.World(), s.Components(), &st.Terrain, s.PlayerEntity(slot), s.Tick()))
		}
		s.Step()
		s.World().ClearEvents()
		if over, r := s.Over(); over {
			return true, r, i + 1, s
		}
	}
	return false, 0, maxTicks, s
}

func TestAutopilotWinsShort(t *testing.T) {
	st, err := LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 4} {
		over, r, ticks, s := playAuto(t, st, n, 1, 3600)
		if !over || r != rules.ResultVictory {
			t.Errorf("%d players: over=%v result=%v after %d ticks, want victory within 3600", n, over, r, ticks)
			continue
		}
		var score uint32
		for slot := 0; slot < n; slot++ {
			score += s.c.Player.Get(s.PlayerEntity(slot)).Score
		}
		if score < bossScore {
			t.Errorf("%d players: total score %d, want at least the boss bonus", n, score)
		}
		t.Logf("short, %d players: victory after %d ticks (%.1f s), total score %d", n, ticks, float64(ticks)/TickRate, score)
	}
}

// The autopilot steers through the terrain of both stages: 4 bots end each stage (a victory
// or a fair defeat, never a timeout), and a lone bot clears stage 1 (seeds fixed: the runs are
// deterministic).
func TestAutopilotPlaysStages(t *testing.T) {
	for _, name := range []string{"stage1", "stage2"} {
		st, err := LoadStage(name)
		if err != nil {
			t.Fatal(err)
		}
		players := []int{1, 4}
		if testing.Short() {
			players = []int{4}
		}
		// The boss at 200 s of scroll, then the fight; the boss fires faster as it lasts, so
		// the game always ends.
		const maxTicks = 40 * 60 * TickRate
		for _, n := range players {
			over, r, ticks, s := playAuto(t, st, n, 42, maxTicks)
			if !over {
				t.Errorf("%s, %d players: not over after %d ticks (scroll %v)", name, n, ticks, s.Scroll())
				continue
			}
			if r == rules.ResultAborted {
				t.Errorf("%s, %d players: aborted", name, n)
			}
			if name == "stage1" && n == 1 && r != rules.ResultVictory {
				t.Errorf("stage1, 1 player: %v, want a victory", r)
			}
			t.Logf("%s, %d players: %v after %d ticks (%.0f s)", name, n, r, ticks, float64(ticks)/TickRate)
		}
	}
}

// Autopilot reads only replicated components: on a client mirror holding
// copies of the replicated components it decides exactly as on the server.
func TestAutopilotOnMirror(t *testing.T) {
	st, _ := LoadStage("short")
	s := NewSim(Config{Seed: 5, Players: 2, Stage: st})
	checked := 0
	for tick := 0; tick < 1500; tick++ {
		for slot := 0; slot < 2; slot++ {
			s.SetInput(slot, Autopilot(s.World(), s.Components(), &st.Terrain, s.PlayerEntity(slot), s.Tick()))
		}
		s.Step()
		s.World().ClearEvents()
		if over, _ := s.Over(); over {
			break
		}
		if tick%50 != 0 {
			continue
		}
		mw := ecs.NewWorld()
		mc := RegisterComponents(mw)
		var buf []byte
		s.World().Each(func(e ecs.Entity) {
			if err := mw.CreateWithID(e); err != nil {
				t.Fatal(err)
			}
			for _, store := range s.World().Stores() {
				if store.Flags()&ecs.Replicated == 0 || !store.Has(e) {
					continue
				}
				buf = store.AppendWire(buf[:0], e)
				if err := mw.Store(store.ID()).SetWire(e, buf); err != nil {
					t.Fatal(err)
				}
			}
			mc.DeriveFromKind(e)
		})
		if mc.Ship.Len() != 0 || mc.Enemy.Len() != 0 {
			t.Fatal("mirror has server-only components")
		}
		for slot := 0; slot < 2; slot++ {
			e := s.PlayerEntity(slot)
			a := Autopilot(s.World(), s.Components(), &st.Terrain, e, s.Tick())
			b := Autopilot(mw, mc, &st.Terrain, e, s.Tick())
			if a != b {
				t.Fatalf("tick %d slot %d: autopilot %06b on the server, %06b on the mirror", s.Tick(), slot, a.Buttons, b.Buttons)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("only %d comparisons", checked)
	}
	// Bad arguments give an idle input, not a panic.
	if in := Autopilot(s.World(), s.Components(), nil, ecs.Nil, 0); in != (Input{}) {
		t.Error("Autopilot for Nil is not idle")
	}
	if in := Autopilot(nil, nil, nil, s.PlayerEntity(0), 0); in != (Input{}) {
		t.Error("Autopilot with a nil world is not idle")
	}
}

// Autopilot dodges: an idle ship in a bullet's path dies, the autopilot does not.
func TestAutopilotDodges(t *testing.T) {
	for _, auto := range []bool{false, true} {
		s := newTestSim(t, 1)
		makeVulnerable(s)
		e := s.PlayerEntity(0)
		p := *s.c.Position.Get(e)
		addEnemyBullet(s, p.X+400, p.Y, -360, 0)
		died := false
		for i := 0; i < 90; i++ {
			var in Input
			if auto {
				in = Autopilot(s.World(), s.Components(), nil, e, s.Tick())
				in.Buttons &^= BtnFire // do not shoot the bullet's source away
			}
			s.SetInput(0, in)
			s.Step()
			for _, ev := range s.Events() {
				died = died || ev.Kind == EventDeath
			}
		}
		if died == auto {
			t.Errorf("autopilot=%v: died=%v", auto, died)
		}
	}
}
