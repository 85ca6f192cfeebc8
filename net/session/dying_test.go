package session

import (
	"net/netip"
	"testing"
	"time"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/wire"
)

// A deleted entity stays drawable until the render timeline (about 100 ms behind the newest
// state) reaches the tick of its DEL_ENT, as spawns appear only when it reaches theirs; it is
// then removed even if nothing is drawn, and at GAME_END at once. The same for each entity of a
// DEL_ENTS.
func TestDeletionShownOnRenderTimeline(t *testing.T) {
	for _, many := range []bool{false, true} {
		t.Run(map[bool]string{false: "DEL_ENT", true: "DEL_ENTS"}[many], func(t *testing.T) { testDeletionOnTimeline(t, many) })
	}
}

func testDeletionOnTimeline(t *testing.T, many bool) {
	del := func(b []byte, es ...ecs.Entity) []byte {
		if !many {
			for _, e := range es {
				b = wire.DelEnt{Entity: uint64(e)}.Append(b)
			}
			return b
		}
		b, start := wire.BeginDelEnts(b)
		for _, e := range es {
			b = wire.AppendEntityRef(b, uint64(e))
		}
		return wire.EndDelEnts(b, start)
	}
	s := NewClient(ClientConfig{Token: 42, Server: netip.MustParseAddrPort("127.0.0.1:9")}, 0)
	s.welcomed, s.self, s.slot = true, ecs.Entity(1<<32|1), 0
	enemy, other, third := ecs.Entity(1<<32|5), ecs.Entity(1<<32|6), ecs.Entity(1<<32|7)
	var seq uint16
	send := func(tick uint32, build func(b []byte) []byte) {
		seq++
		b := wire.Header{Token: 42, Tick: tick, Seq: seq}.Append(nil)
		s.Receive(s.t+time.Second/30, build(b))
	}
	spawn := func(b []byte, e ecs.Entity, x float32) []byte {
		b, start := wire.BeginEntity(b, uint64(e))
		b = wire.AppendComponentHeader(b, wire.CompSpawn, 10)
		b = append(b, byte(game.KindEnemy), 0)
		b, _ = wire.AppendMotion(b, x, 500, -120, 0)
		return wire.EndEntity(b, start, 1)
	}
	send(100, func(b []byte) []byte { return spawn(spawn(spawn(b, enemy, 1500), other, 1600), third, 1700) })
	for tick := uint32(102); tick <= 120; tick += 2 {
		send(tick, func(b []byte) []byte { return b })
	}
	send(122, func(b []byte) []byte { return del(b, enemy, third) })
	drawn := false
	s.View(s.t, func(v *View) { _, _, drawn = v.Pos(enemy) })
	if !s.world.Alive(enemy) || !drawn || !s.world.Alive(third) {
		t.Fatalf("enemy gone as soon as DEL_ENT arrived (alive %v, drawn %v)", s.world.Alive(enemy), drawn)
	}
	for tick := uint32(124); tick <= 140; tick += 2 {
		send(tick, func(b []byte) []byte { return b })
	}
	if s.world.Alive(enemy) || s.world.Alive(third) {
		t.Fatal("enemy still in the mirror 18 ticks after its DEL_ENT")
	}
	if !s.world.Alive(other) {
		t.Fatal("the other entity went too")
	}
	send(142, func(b []byte) []byte {
		return wire.GameEnd{Result: wire.ResultVictory}.Append(del(b, other))
	})
	if s.world.Alive(other) {
		t.Fatal("deleted entity kept after GAME_END")
	}
}
