package instance

import (
	"net/netip"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/wire"
)

// GET_ENT (docs/PROTOCOL.md §3.5.2), in virtual time: for a live entity whose state the client
// has acknowledged, the server forgets that client's baseline of it, so the next snapshot
// carries a STATE record with every replicated component it has (the mask of its spawn
// record); for an entity that does not exist, a reliable DEL_ENT in that snapshot.
func TestGetEntAnswers(t *testing.T) {
	ms := members(1)
	g := newTestGame(t, ms)
	client := netip.MustParseAddrPort("127.0.0.1:5000")
	now := time.Duration(0)
	var seq, acked uint16
	send := func(cmds ...[]byte) {
		seq++
		b := wire.Header{Token: ms[0].Token, Tick: uint32(g.sim.Tick()), Seq: seq, Ack: acked, AckBits: ^uint32(0)}.Append(nil)
		for _, c := range cmds {
			b = append(b, c...)
		}
		g.Receive(now, client, b)
	}
	ship := uint64(g.sim.PlayerEntity(0))
	// drain returns the masks of ship's STATE records and the DEL_ENT entities of the datagrams
	// sent to the client since the last call, and acknowledges them.
	drain := func() (masks []uint16, dels []uint64) {
		for i := 0; i < g.out.Len(); i++ {
			b, to := g.out.At(i)
			var h wire.Header
			r, err := wire.Open(b, &h)
			if err != nil || to != client {
				continue
			}
			acked = h.Seq
			for r.Next() {
				switch r.ID() {
				case wire.CmdState:
					var st wire.State
					if _, err := st.Parse(r.Cmd()); err != nil {
						t.Fatal(err)
					}
					it := st.Records()
					for rec, ok := it.Next(); ok; rec, ok = it.Next() {
						if rec.Entity == ship {
							masks = append(masks, rec.Mask)
						}
					}
				case wire.CmdDelEnt:
					var d wire.DelEnt
					if _, err := d.Parse(r.Cmd()); err != nil {
						t.Fatal(err)
					}
					dels = append(dels, d.Entity)
				}
			}
		}
		g.out.Reset()
		return masks, dels
	}
	tick := func() {
		now += game.TickPeriod
		g.Tick(now)
	}

	send(wire.Here{UUID: ms[0].UUID}.Append(nil))
	var spawn uint16
	for range 5 * game.TickRate { // 5 s: the ship spawned, was acknowledged and rests
		tick()
		if m, _ := drain(); len(m) > 0 && spawn == 0 {
			spawn = m[0]
		}
		send()
	}
	if spawn == 0 {
		t.Fatal("the ship was never sent")
	}
	quiet := true
	for range 10 {
		tick()
		if m, _ := drain(); len(m) > 0 && m[len(m)-1] == spawn {
			quiet = false
		}
		send()
	}
	if !quiet {
		t.Fatalf("the acknowledged ship is still sent whole (mask %#x) every snapshot: the test shows nothing", spawn)
	}

	send(wire.GetEnt{Entity: ship}.Append(nil))
	var got []uint16
	for range 2 { // snapshots go out every 2 ticks
		tick()
		m, _ := drain()
		got = append(got, m...)
		send()
	}
	if len(got) == 0 || got[len(got)-1] != spawn {
		t.Fatalf("after GET_ENT of the live ship: records %#x, want one with every component (mask %#x, as its spawn)", got, spawn)
	}

	gone := uint64(7<<32 | 4000) // index 4000, generation 7: never alive
	send(wire.GetEnt{Entity: gone}.Append(nil))
	var dels []uint64
	for range 2 { // the reliable DEL_ENT goes out with the next snapshot
		tick()
		_, d := drain()
		dels = append(dels, d...)
	}
	if len(dels) != 1 || dels[0] != gone {
		t.Fatalf("GET_ENT of an entity that does not exist answered DEL_ENT %#x, want [%#x]", dels, gone)
	}
}
