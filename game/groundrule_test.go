package game

import (
	"testing"

	"github.com/rtype/rtype/ecs"
)

// TestGroundEnemySurfaceRule pins the rule docs/PROTOCOL.md §4.3 gives clients for ground
// enemies, whose surface is not on the wire: at its spawn a turret, walker or hopper has its
// centre at CeilY(wx)+h/2 (hanging) or FloorY(wx)-h/2 (standing), so the nearer of the two
// tells a client which surface it is on; "upper half of the playfield" does not (stage 2's
// ceiling dips below mid-screen).
func TestGroundEnemySurfaceRule(t *testing.T) {
	st, err := LoadStage("stage2")
	if err != nil {
		t.Fatal(err)
	}
	tr := &st.Terrain
	s := NewSim(Config{Seed: 1, Players: 4, Stage: st})
	seen := map[ecs.Entity]bool{}
	q := ecs.NewQuery3[Enemy, Position, Kind](s.World())
	n, lowCeil := 0, 0
	for s.Tick() < 9000 {
		for i := 0; i < 4; i++ {
			s.SetInput(i, Autopilot(s.World(), s.Components(), tr, s.PlayerEntity(i), s.Tick()))
		}
		s.Step()
		if over, _ := s.Over(); over {
			break
		}
		for it := q.Iter(); it.Next(); {
			en, p, k := it.Get()
			e := it.Entity()
			if seen[e] || k.Kind != KindEnemy || !(k.Variant == EnemyTurret || k.Variant == EnemyWalker || k.Variant == EnemyHopper) {
				continue
			}
			seen[e] = true
			n++
			wx := p.X + s.Scroll()
			h := float32(SizeOf(*k).H)
			hang, stand := tr.CeilY(wx)+h/2, tr.FloorY(wx)-h/2
			want := stand
			if en.Surface == SurfaceCeil {
				want = hang
			}
			if d := p.Y - want; d > 0.01 || d < -0.01 {
				t.Errorf("tick %d: ground enemy %d (surface %d) spawned at y %v, its surface puts it at %v", s.Tick(), k.Variant, en.Surface, p.Y, want)
			}
			nearCeil := abs32(p.Y-hang) < abs32(p.Y-stand)
			if nearCeil != (en.Surface == SurfaceCeil) {
				t.Errorf("tick %d: ground enemy %d at y %v: surface %d, the nearer edge says otherwise (hang %v, stand %v)", s.Tick(), k.Variant, p.Y, en.Surface, hang, stand)
			}
			if en.Surface == SurfaceCeil && p.Y > Height/2 {
				lowCeil++
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d ground enemies spawned by tick %d", n, s.Tick())
	}
	if lowCeil == 0 {
		t.Errorf("no ground enemy hung from the ceiling below mid-screen: the case §4.3 names is not covered")
	}
}
