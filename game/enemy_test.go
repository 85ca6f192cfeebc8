package game

import (
	"fmt"
	"math"
	"testing"

	"github.com/rtype/rtype/ecs"
)

// enemySim returns a 1-player sim whose only wave is one enemy of kind at
// (x, y), spawned on the first tick; the ship sits at its spawn point.
func enemySim(t *testing.T, kind string, x, y float32, extra string) (*Sim, ecs.Entity) {
	t.Helper()
	src := fmt.Sprintf(`{"scrollSpeed": 60, "sections": [{"at": 0, "song": 1}],
	  "waves": [{"at": 0, "kind": %q, "count": 1, "x": %g, "y": %g%s}],
	  "boss": {"at": 900000, "kind": "small", "hp": 5, "song": 2,
	    "phases": [{"below": 100, "pattern": "fan", "interval": 30, "bullets": 3, "speed": 200, "open": 30, "closed": 30}]}}`, kind, x, y, extra)
	s := NewSim(Config{Seed: 1, Players: 1, Stage: mustParse(t, kind+".json", src)})
	s.Step()
	e := find(s, KindEnemy)
	if e == ecs.Nil {
		t.Fatalf("%s: not spawned", kind)
	}
	return s, e
}

func TestEnemyKinds(t *testing.T) {
	tests := []struct {
		kind  string
		x, y  float32
		extra string
		check func(t *testing.T, s *Sim, e ecs.Entity)
	}{
		{"straight", 1800, 300, `, "speed": 300`, func(t *testing.T, s *Sim, e ecs.Entity) {
			p0 := *s.c.Position.Get(e)
			step(s, 30, 0)
			p1 := *s.c.Position.Get(e)
			if p1.Y != p0.Y || math.Abs(float64(p0.X-p1.X)-300.0/2) > 0.01 {
				t.Errorf("straight moved %v -> %v in 0.5 s, want 150 px left", p0, p1)
			}
		}},
		{"sine", 1900, 540, `, "amplitude": 150`, func(t *testing.T, s *Sim, e ecs.Entity) {
			lo, hi := float32(Height), float32(0)
			for i := 0; i < 120; i++ {
				step(s, 1, 0)
				y := s.c.Position.Get(e).Y
				lo, hi = min(lo, y), max(hi, y)
			}
			if lo < 540-151 || hi > 540+151 || hi-lo < 280 {
				t.Errorf("sine y range %v..%v over one period, want about 390..690", lo, hi)
			}
		}},
		{"turret", 1500, 1000, `, "fire": 30`, func(t *testing.T, s *Sim, e ecs.Entity) {
			if v := s.c.Velocity.Get(e); v.X != -60 || v.Y != 0 {
				t.Errorf("turret velocity %v, want the scroll (-60, 0)", *v)
			}
			var b ecs.Entity
			for i := 0; i < 120 && b == ecs.Nil; i++ {
				step(s, 1, 0)
				b = find(s, KindEnemyBullet)
			}
			if b == ecs.Nil {
				t.Fatal("turret never fired")
			}
			bp, bv := s.c.Position.Get(b), s.c.Velocity.Get(b)
			sp := s.c.Position.Get(s.PlayerEntity(0))
			dx, dy := float64(sp.X-bp.X), float64(sp.Y-bp.Y)
			cos := (dx*float64(bv.X) + dy*float64(bv.Y)) / math.Hypot(dx, dy) / math.Hypot(float64(bv.X), float64(bv.Y))
			if cos < 0.99 {
				t.Errorf("turret bullet %v not aimed at the ship (cos %v)", *bv, cos)
			}
			want := float64(enemyBulletSpeed * s.rules.BulletPct / 100)
			if sp := math.Hypot(float64(bv.X), float64(bv.Y)); math.Abs(sp-want) > 0.5 {
				t.Errorf("bullet speed %v px/s, want %v (%d at the level's %d %%)", sp, want, enemyBulletSpeed, s.rules.BulletPct)
			}
		}},
		{"homing", 1400, 100, "", func(t *testing.T, s *Sim, e ecs.Entity) {
			step(s, 100, 0)
			v := s.c.Velocity.Get(e)
			if v.Y <= 0 {
				t.Errorf("homing velocity %v does not turn down towards the ship", *v)
			}
			if find(s, KindEnemyBullet) != ecs.Nil {
				t.Error("homing enemy fired")
			}
		}},
		{"carrier", 1900, 540, `, "drop": "force"`, func(t *testing.T, s *Sim, e ecs.Entity) {
			step(s, 300, 0)
			if find(s, KindEnemyBullet) != ecs.Nil {
				t.Error("carrier fired")
			}
			if d := s.c.Enemy.Get(e).Drop; d != 1+PowerRed {
				t.Errorf("carrier drop %d", d)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			s, e := enemySim(t, tc.kind, tc.x, tc.y, tc.extra)
			if k := s.c.Kind.Get(e); EnemyKindNames[k.Variant] != tc.kind {
				t.Fatalf("variant %d for kind %q", k.Variant, tc.kind)
			}
			tc.check(t, s, e)
		})
	}
}

func TestOffscreenCleanup(t *testing.T) {
	s := newTestSim(t, 1)
	en := addEnemy(s, 100, 500, 5)
	s.c.Enemy.Get(en).Speed = 3000 // px/s, leftwards
	b := addEnemyBullet(s, 1900, 500, 3000, 0)
	step(s, 10, 0)
	if s.World().Alive(en) || s.World().Alive(b) {
		t.Error("entities that left the playfield were not destroyed")
	}
}
