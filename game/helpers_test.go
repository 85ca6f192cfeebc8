package game

import (
	"testing"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game/rules"
)

// emptyStage has no waves and a boss far away: systems can be tested alone.
const emptyStage = `{
  "name": "empty", "scrollSpeed": 60,
  "sections": [{"at": 0, "song": 7}, {"at": 30, "song": 8}],
  "waves": [],
  "boss": {"at": 900000, "kind": "small", "hp": 10, "song": 9,
    "phases": [{"below": 100, "pattern": "fan", "interval": 60, "bullets": 5, "speed": 300, "open": 60, "closed": 60}]}
}`

// bossStage brings the boss in at once: phases at 100% (fan) and 50% (aimed).
const bossStage = `{
  "name": "boss", "scrollSpeed": 60,
  "sections": [{"at": 0, "song": 1}],
  "waves": [],
  "boss": {"at": 0, "kind": "small", "hp": 20, "song": 3,
    "phases": [
      {"below": 100, "pattern": "fan", "interval": 600, "bullets": 1, "speed": 60, "open": 30, "closed": 30},
      {"below": 50, "pattern": "aimed", "interval": 600, "bullets": 1, "speed": 60, "open": 30, "closed": 30}]}
}`

func mustParse(t testing.TB, name, src string) *Stage {
	t.Helper()
	st, err := ParseStage(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func newTestSim(t testing.TB, players int) *Sim {
	t.Helper()
	return NewSim(Config{Seed: 1, Players: players, Stage: mustParse(t, "empty.json", emptyStage)})
}

// step runs n ticks with the given buttons held by slot 0.
func step(s *Sim, n int, b Buttons) {
	for i := 0; i < n; i++ {
		s.SetInput(0, Input{Buttons: b})
		s.Step()
		s.World().ClearEvents()
	}
}

// addEnemy places an enemy that does not move nor fire.
func addEnemy(s *Sim, x, y float32, hp uint16) ecs.Entity {
	e := s.spawn(KindEnemy, EnemyStraight, x, y, 0, 0)
	s.c.Health.Set(e, Health{HP: hp, MaxHP: hp})
	s.c.Enemy.Set(e, Enemy{Type: EnemyStraight, Score: 100})
	return e
}

func addEnemyBullet(s *Sim, x, y, vx, vy float32) ecs.Entity {
	return s.spawn(KindEnemyBullet, BulletSmall, x, y, vx, vy)
}

func addCapsule(s *Sim, variant uint8, x, y float32) ecs.Entity {
	return s.spawn(KindPowerUp, variant, x, y, 0, 0)
}

// makeVulnerable clears the spawn invulnerability of every ship.
func makeVulnerable(s *Sim) {
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		if e := s.PlayerEntity(slot); e != ecs.Nil {
			s.c.Ship.Get(e).Invuln = 0
			s.c.Player.Get(e).Flags &^= PlayerInvulnerable
		}
	}
}

// count returns the live entities of kind k (and variant v if v >= 0).
func count(s *Sim, k EntityKind, v int) int {
	n := 0
	for it := s.qPK.Iter(); it.Next(); {
		_, kk := it.Get()
		if kk.Kind == k && (v < 0 || int(kk.Variant) == v) {
			n++
		}
	}
	return n
}

// find returns the first live entity of kind k.
func find(s *Sim, k EntityKind) ecs.Entity {
	var found ecs.Entity
	s.World().Each(func(e ecs.Entity) {
		if kk := s.c.Kind.Get(e); found == ecs.Nil && kk != nil && kk.Kind == k {
			found = e
		}
	})
	return found
}

// collectEvents runs n ticks and returns every game event.
func collectEvents(s *Sim, n int, b Buttons) []Event {
	var out []Event
	for i := 0; i < n; i++ {
		s.SetInput(0, Input{Buttons: b})
		s.Step()
		s.World().ClearEvents()
		out = append(out, s.Events()...)
	}
	return out
}

// terrainCol is the terrain segment under world x wx: -1 before the samples (or without
// terrain), len(Ceil)-1 past them.
func terrainCol(t *Terrain, wx float32) int32 {
	if t == nil || len(t.Ceil) < 2 || wx < t.Start {
		return -1
	}
	return int32(min(int((wx-t.Start)/t.Step), len(t.Ceil)-1))
}
