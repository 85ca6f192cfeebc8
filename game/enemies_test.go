package game

import (
	"strings"
	"testing"

	"github.com/rtype/rtype/ecs"
)

// withWaves returns terrainStage with the given waves JSON.
func withWaves(t testing.TB, waves string) *Stage {
	t.Helper()
	return mustParse(t, "waves.json", strings.Replace(terrainStage, `"waves": []`, `"waves": [`+waves+`]`, 1))
}

// enemies returns the live enemies of variant v (-1: any), in creation order.
func enemies(s *Sim, v int) []ecs.Entity {
	var out []ecs.Entity
	s.World().Each(func(e ecs.Entity) {
		if k := s.c.Kind.Get(e); k != nil && k.Kind == KindEnemy && (v < 0 || int(k.Variant) == v) {
			out = append(out, e)
		}
	})
	return out
}

// A snake is a head and a body of segments that all wind along one path through the corridor.
func TestSnakeSegmentsFollowOnePath(t *testing.T) {
	// A flat corridor (no bump): the path's middle line is straight, its chords stay close.
	src := strings.Replace(terrainStage, "400,400,400", "100,100,100", 1)
	st := mustParse(t, "snake.json", strings.Replace(src, `"waves": []`, `"waves": [{"at": 0, "kind": "snake", "count": 8, "y": 540, "spacing": 1, "speed": 200}]`, 1))
	st.ScrollSpeed = 60 // spacing 1 px of scroll = one segment per second
	s := NewSim(Config{Seed: 1, Players: 1, Stage: st})
	s.c.Position.Get(s.PlayerEntity(0)).X = 60 // out of the way
	step(s, 8*60, 0)
	heads, body := enemies(s, int(EnemySnake)), enemies(s, int(EnemySnakeBody))
	if len(heads) != 1 || len(body) != 7 {
		t.Fatalf("%d heads, %d body segments, want 1 and 7", len(heads), len(body))
	}
	minY, maxY := float32(Height), float32(0)
	for i := 0; i < 240; i++ {
		for _, e := range append(heads, body...) {
			if !s.World().Alive(e) {
				continue
			}
			p, en := s.c.Position.Get(e), s.c.Enemy.Get(e)
			want := s.snakeY(p.X, en.Amp)
			if abs32(p.Y-want) > 8 {
				t.Fatalf("tick %d: segment at (%v, %v), the snake's path is at y=%v", s.Tick(), p.X, p.Y, want)
			}
			if p.Y-24 < 100 || p.Y+24 > Height-100 {
				t.Fatalf("segment at y=%v leaves the corridor", p.Y)
			}
			minY, maxY = min(minY, p.Y), max(maxY, p.Y)
		}
		step(s, 1, 0)
	}
	if maxY-minY < 200 {
		t.Errorf("the snake winds over %v px only", maxY-minY)
	}
}

// The mid-boss shrugs off normal shots and lasers; a charged beam hurts it.
func TestMidbossNeedsChargedBeam(t *testing.T) {
	s := newTestSim(t, 1)
	e := s.PlayerEntity(0)
	y := s.c.Position.Get(e).Y
	m := s.spawn(KindEnemy, EnemyMidboss, 900, y, 0, 0)
	s.c.Health.Set(m, Health{HP: 40, MaxHP: 40})
	s.c.Enemy.Set(m, Enemy{Type: EnemyMidboss, Timer: 10000, BaseY: y})
	for i := 0; i < 5; i++ {
		step(s, 1, BtnFire)
		step(s, fireCooldown, 0)
	}
	step(s, 30, 0)
	if hp := s.c.Health.Get(m).HP; hp != 40 {
		t.Fatalf("normal shots took the mid-boss to %d HP", hp)
	}
	s.c.Position.Get(m).Y = s.c.Position.Get(e).Y
	step(s, chargeDelay+chargeTicks+2, BtnFire)
	step(s, 40, 0)
	if hp := s.c.Health.Get(m).HP; hp >= 40 {
		t.Errorf("a full beam did not hurt the mid-boss (%d HP)", hp)
	}
}

// Carriers always carry a capsule, even when the wave names none.
func TestCarrierAlwaysDrops(t *testing.T) {
	st := withWaves(t, `{"at": 0, "kind": "carrier", "count": 1, "x": 900, "y": 540, "hp": 1}`)
	s := NewSim(Config{Seed: 1, Players: 1, Stage: st})
	step(s, 1, 0)
	c := enemies(s, int(EnemyCarrier))
	if len(c) != 1 {
		t.Fatal("no carrier")
	}
	s.c.Position.Get(c[0]).Y = s.c.Position.Get(s.PlayerEntity(0)).Y
	s.c.Enemy.Get(c[0]).Speed = 0
	step(s, 1, BtnFire)
	step(s, 40, 0)
	if s.World().Alive(c[0]) {
		t.Fatal("carrier survived")
	}
	if count(s, KindPowerUp, -1) != 1 {
		t.Error("the carrier dropped no capsule")
	}
}

// Ground guns never shoot into their own ground: a floor turret fires only at ships above it.
func TestTurretFiresOnlyIntoTheOpen(t *testing.T) {
	st := withWaves(t, `{"at": 0, "kind": "turret", "count": 1, "x": 600, "y": 1000, "fire": 20}`)
	s := NewSim(Config{Seed: 1, Players: 1, Stage: st})
	e := s.PlayerEntity(0)
	step(s, 1, 0)
	tur := enemies(s, int(EnemyTurret))[0]
	tp := s.c.Position.Get(tur)
	if tp.Y+32 != Height-100 {
		t.Fatalf("turret centre y=%v, want standing on the floor (y=%v)", tp.Y, Height-100-32)
	}
	s.c.Player.Get(e).Flags |= PlayerInvulnerable
	s.c.Ship.Get(e).Invuln = 10000
	step(s, 120, 0)
	if n := count(s, KindEnemyBullet, -1); n == 0 {
		t.Fatal("the turret never fired at a ship above it")
	}
	for it := s.qPK.Iter(); it.Next(); {
		if _, k := it.Get(); k.Kind == KindEnemyBullet {
			if v := s.c.Velocity.Get(it.Entity()); v.Y > 0 {
				t.Errorf("a floor turret fired downwards (vy %v)", v.Y)
			}
		}
	}
}

// bigBossStage brings the stage-1 boss (body, tail, weak point) in at once.
var bigBossStage = strings.Replace(strings.Replace(bossStage, `"kind": "small"`, `"kind": "big"`, 1), `"hp": 20`, `"hp": 200`, 1)

// The stage-1 boss's tail is a chain of 12 entities that swings (wider in later phases),
// blocks shots and kills ships; it goes with the boss.
func TestBossTail(t *testing.T) {
	s := NewSim(Config{Seed: 3, Players: 1, Stage: mustParse(t, "bigboss.json", bigBossStage)})
	e := s.PlayerEntity(0)
	step(s, 1, 0)
	parts := []ecs.Entity{}
	s.World().Each(func(x ecs.Entity) {
		if k := s.c.Kind.Get(x); k != nil && k.Kind == KindBossPart {
			parts = append(parts, x)
		}
	})
	if len(parts) != 12 || s.c.Kind.Get(parts[11]).Variant != PartTailTip {
		t.Fatalf("%d tail parts (last variant %d), want 12 ending in a tip", len(parts), s.c.Kind.Get(parts[len(parts)-1]).Variant)
	}
	for i := 0; i < 600 && s.c.Boss.Get(s.boss).Phase == 0; i++ {
		step(s, 1, 0)
	}
	// The chain holds together: neighbours stay about one segment apart.
	swing := func(ticks int) float32 {
		tip := parts[len(parts)-1]
		lo, hi := float32(Height), float32(0)
		for i := 0; i < ticks; i++ {
			step(s, 1, 0)
			for j := 1; j < len(parts); j++ {
				a, b := s.c.Position.Get(parts[j-1]), s.c.Position.Get(parts[j])
				if d := abs32(a.X-b.X) + abs32(a.Y-b.Y); d > 90 {
					t.Fatalf("tail segments %d and %d are %v px apart", j-1, j, d)
				}
			}
			y := s.c.Position.Get(tip).Y
			lo, hi = min(lo, y), max(hi, y)
		}
		return hi - lo
	}
	s1 := swing(240)
	if s1 < 40 {
		t.Errorf("the tail tip swings over %v px in phase 1", s1)
	}
	// A later phase whips harder.
	s.c.Health.Get(s.weak).HP = 20 // 10 %: the last phase
	step(s, 1, 0)
	if s3 := swing(240); s3 <= s1 {
		t.Errorf("tip swing %v px in the last phase, not more than %v in phase 1", s3, s1)
	}
	// A shot into a segment is stopped (no damage anywhere), a ship touching it dies.
	seg := parts[6]
	sp := s.c.Position.Get(seg)
	shot := s.spawn(KindPlayerBullet, ShotNormal, sp.X-30, sp.Y, 0, 0)
	s.c.Shot.Set(shot, Shot{Damage: 1, Slot: 0})
	hp := s.c.Health.Get(s.weak).HP
	step(s, 1, 0)
	if s.World().Alive(shot) || s.c.Health.Get(s.weak).HP != hp {
		t.Error("the tail did not stop a shot, or the shot damaged the boss")
	}
	makeVulnerable(s)
	p := s.c.Position.Get(e)
	sp = s.c.Position.Get(parts[9])
	p.X, p.Y = sp.X, sp.Y
	ev := collectEvents(s, 1, 0)
	if !hasEvent(ev, Event{Kind: EventDeath, Entity: e, Slot: 0, Lives: startLives - 1}) {
		t.Error("touching the tail did not destroy the ship")
	}
	// Victory takes the tail with the boss.
	s.c.Health.Get(s.weak).HP = 1
	s.c.Boss.Get(s.boss).WeakOpen = 1
	s.damageBoss(1, 0)
	for i := 0; i < bossDyingTicks+5; i++ {
		step(s, 1, 0)
	}
	for _, x := range parts {
		if s.World().Alive(x) {
			t.Fatal("a tail segment outlived the boss")
		}
	}
}

// The stage-2 boss grows from the wall with two tentacles.
func TestWallBossTentacles(t *testing.T) {
	src := strings.Replace(bossStage, `"kind": "small"`, `"kind": "wall"`, 1)
	s := NewSim(Config{Seed: 3, Players: 1, Stage: mustParse(t, "wall.json", src)})
	step(s, 1, 0)
	if count(s, KindBossPart, int(PartTentacle)) != 16 || count(s, KindBossPart, int(PartTentacleTip)) != 2 {
		t.Fatalf("%d tentacle segments, %d tips; want 16 and 2", count(s, KindBossPart, int(PartTentacle)), count(s, KindBossPart, int(PartTentacleTip)))
	}
	if k := s.c.Kind.Get(s.boss); k.Variant != BossWall {
		t.Errorf("boss variant %d", k.Variant)
	}
}
