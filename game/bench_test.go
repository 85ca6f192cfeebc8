package game

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rtype/rtype/game/rules"
)

// benchStage: 64 turrets (HP 1000 before scaling) on the floor and the ceiling of a corridor
// with a structure, over the right half, firing every 120 ticks (68 with 4 players); no boss in
// reach. With 4 ships tapping fire this keeps ~300 live entities (enemies, enemy bullets, shots)
// and every shot and bullet is tested against the terrain.
var benchStage = func() string {
	var waves []string
	for i := 0; i < 64; i++ {
		y := 60
		if i%2 == 1 {
			y = 1000
		}
		waves = append(waves, fmt.Sprintf(`{"at": 0, "kind": "turret", "count": 1, "x": %d, "y": %d, "hp": 1000, "fire": 120}`, 1000+(i/2)*28, y))
	}
	ceil, floor := make([]string, 40), make([]string, 40)
	for i := range ceil {
		ceil[i], floor[i] = fmt.Sprint(60+(i%4)*20), fmt.Sprint(80+(i%3)*20)
	}
	return `{
  "name": "bench", "scrollSpeed": 1,
  "sections": [{"at": 0, "song": 1}],
  "terrain": {"step": 128, "ceiling": [` + strings.Join(ceil, ",") + `], "floor": [` + strings.Join(floor, ",") + `],
              "blocks": [{"x": 900, "y": 500, "w": 120, "h": 80}]},
  "waves": [` + strings.Join(waves, ",\n") + `],
  "boss": {"at": 900000, "kind": "small", "hp": 10, "song": 3,
    "phases": [{"below": 100, "pattern": "fan", "interval": 60, "bullets": 5, "speed": 300, "open": 60, "closed": 60}]}
}`
}()

// benchSim returns a 4-player simulation in its steady state.
func benchSim(tb testing.TB) *Sim {
	tb.Helper()
	st, err := ParseStage("bench.json", []byte(benchStage))
	if err != nil {
		tb.Fatal(err)
	}
	s := NewSim(Config{Seed: 7, Players: 4, Stage: st, Difficulty: rules.DifficultyHard}) // Hard: as busy as Normal was before the levels
	for i := 0; i < 600; i++ {
		benchTick(s)
	}
	return s
}

// benchTick keeps the ships invulnerable, moving and tapping fire, then steps.
func benchTick(s *Sim) {
	t := int(s.Tick())
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		e := s.PlayerEntity(slot)
		s.c.Ship.Get(e).Invuln = 1000
		b := BtnUp
		if (t/60+slot)%2 == 0 {
			b = BtnDown
		}
		if t%8 < 4 {
			b |= BtnFire
		}
		s.SetInput(slot, Input{Buttons: b})
	}
	s.Step()
	s.World().ClearEvents()
}

func BenchmarkStep(b *testing.B) {
	s := benchSim(b)
	b.ReportAllocs()
	b.ResetTimer()
	live := 0
	for i := 0; i < b.N; i++ {
		if i%3000 == 2999 {
			// the turrets wear down over thousands of ticks: start again from the busy state
			b.StopTimer()
			s = benchSim(b)
			b.StartTimer()
		}
		benchTick(s)
		if i%100 == 0 {
			live += s.World().Len()
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(live)/float64((b.N+99)/100), "entities")
	if over, _ := s.Over(); over {
		b.Fatal("bench game ended")
	}
}

func BenchmarkHash(b *testing.B) {
	s := benchSim(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = s.Hash()
	}
}

func BenchmarkAutopilot(b *testing.B) {
	s := benchSim(b)
	e := s.PlayerEntity(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = Autopilot(s.World(), s.Components(), &s.Stage().Terrain, e, s.Tick())
	}
}

// TestStepAllocs pins the zero-allocation steady state of Step (4 ships,
// ~300 entities), Hash and Autopilot.
func TestStepAllocs(t *testing.T) {
	s := benchSim(t)
	if n := s.World().Len(); n < 250 {
		t.Fatalf("steady state has %d entities, want ~300", n)
	}
	if a := testing.AllocsPerRun(300, func() { benchTick(s) }); a != 0 {
		t.Errorf("Step allocates %v times per tick, want 0", a)
	}
	if a := testing.AllocsPerRun(50, func() { _ = s.Hash() }); a != 0 {
		t.Errorf("Hash allocates %v times, want 0", a)
	}
	e := s.PlayerEntity(0)
	if a := testing.AllocsPerRun(100, func() { _ = Autopilot(s.World(), s.Components(), &s.Stage().Terrain, e, s.Tick()) }); a != 0 {
		t.Errorf("Autopilot allocates %v times, want 0", a)
	}
}
