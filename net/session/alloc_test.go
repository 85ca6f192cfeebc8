package session

import (
	"net/netip"
	"testing"
	"time"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/wire"
)

// The client's receive path allocates nothing in steady state: a snapshot datagram of ENTITY
// commands, or of a STATE of Motion records as the reference server sends (with dead reckoning
// and interpolation samples), is applied without a heap allocation.
func TestApplySnapshotAllocatesNothing(t *testing.T) {
	for _, state := range []bool{false, true} {
		t.Run(map[bool]string{false: "ENTITY", true: "STATE"}[state], func(t *testing.T) { testApplySnapshotAllocs(t, state) })
	}
}

func testApplySnapshotAllocs(t *testing.T, state bool) {
	server := netip.MustParseAddrPort("127.0.0.1:9")
	s := NewClient(ClientConfig{Token: 42, Server: server}, 0)
	s.welcomed, s.self, s.slot = true, ecs.Entity(1<<32|1), 0
	// a server world to encode from
	w := ecs.NewWorld()
	c := game.RegisterComponents(w)
	var ents []ecs.Entity
	for i := 0; i < 30; i++ {
		e := w.Create()
		c.Position.Set(e, game.Position{X: float32(100 + i), Y: 200})
		c.Velocity.Set(e, game.Velocity{X: -300, Y: float32(i)})
		c.Kind.Set(e, game.Kind{Kind: game.KindEnemyBullet})
		ents = append(ents, e)
	}
	var seq uint16
	tick := uint32(100)
	datagram := func() []byte {
		seq++
		tick += 2
		h := wire.Header{Token: 42, Tick: tick, Seq: seq}
		b := h.Append(make([]byte, 0, wire.MaxDatagram))
		if state {
			var start int
			b, start = wire.BeginState(b)
			for i, e := range ents {
				if i%3 != int(seq%3) {
					continue
				}
				p, v := c.Position.Get(e), c.Velocity.Get(e)
				b = wire.AppendRecordHead(b, uint64(e), wire.MaskOf(wire.CompMotion))
				b, _ = wire.AppendMotion(b, p.X, p.Y, v.X, v.Y)
			}
			return wire.EndState(b, start)
		}
		for i, e := range ents {
			if i%3 != int(seq%3) {
				continue
			}
			var start int
			b, start = wire.BeginEntity(b, uint64(e))
			for _, id := range []ecs.ComponentID{game.CompPosition, game.CompVelocity} {
				st := w.Store(id)
				b = wire.AppendComponentHeader(b, uint16(id), st.Size())
				b = st.AppendWire(b, e)
			}
			b = wire.EndEntity(b, start, 2)
		}
		return b
	}
	for i := 0; i < 100; i++ {
		s.Receive(s.t+time.Second/30, datagram())
	}
	dgs := make([][]byte, 300)
	for i := range dgs {
		dgs[i] = datagram()
	}
	i := 0
	if n := testing.AllocsPerRun(200, func() { s.Receive(s.t+time.Second/30, dgs[i]); i++ }); n != 0 {
		t.Errorf("%v allocs per snapshot datagram, want 0", n)
	}
	var got int
	s.View(s.t, func(v *View) {
		for _, e := range ents {
			if _, _, ok := v.Pos(e); ok {
				got++
			}
		}
	})
	if got != len(ents) {
		t.Errorf("%d of %d entities drawable after the snapshots", got, len(ents))
	}
}
