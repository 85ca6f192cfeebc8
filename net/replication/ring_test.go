package replication

import (
	"testing"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/wire"
)

// The entries of datagrams waiting for their ack are kept however many are in flight (the
// Writer's ring grows): with 200 datagrams unacknowledged, acknowledging the oldest of them
// still makes its Health the client's baseline, so the next snapshot leaves it out; a datagram
// 256 sequence numbers back (its record reused) is not acknowledged by a newer seq's ack.
func TestAckAfterManyDatagramsInFlight(t *testing.T) {
	w := ecs.NewWorld()
	c := game.RegisterComponents(w)
	var es []ecs.Entity
	for i := range 40 {
		e := w.Create()
		c.Health.Set(e, game.Health{HP: uint16(i + 1), MaxHP: 100})
		es = append(es, e)
	}
	tr := NewTracker(w)
	wr := NewWriter(tr)
	wr.ResendTicks = 1 // unacknowledged state goes out again on every snapshot
	buf := make([]byte, 0, wire.MaxDatagram)
	count := func(b []byte) int {
		var h wire.Header
		r, err := wire.Open(b, &h)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for r.Next() {
			if r.ID() == wire.CmdState {
				var st wire.State
				st.Parse(r.Cmd())
				for it := st.Records(); ; n++ {
					if _, ok := it.Next(); !ok {
						break
					}
				}
			}
		}
		return n
	}
	first := uint16(1)
	for seq := first; seq < first+200; seq++ {
		wr.Clock++
		w.Advance()
		b, more := wr.AppendSnapshot(wire.Header{Token: 1, Seq: seq}.Append(buf[:0]), wire.MaxDatagram, seq)
		if more || count(b) != len(es) {
			t.Fatalf("seq %d: %d entities (more %v), want all %d in one datagram", seq, count(b), more, len(es))
		}
	}
	if len(wr.ring) < 200*len(es) {
		t.Fatalf("ring of %d entries for %d in flight", len(wr.ring), 200*len(es))
	}
	wr.Acked(first) // the oldest datagram in flight
	wr.Clock++
	b, _ := wr.AppendSnapshot(wire.Header{Token: 1, Seq: first + 200}.Append(buf[:0]), wire.MaxDatagram, first+200)
	if n := count(b); n != 0 {
		t.Fatalf("after the ack of seq %d: %d entities sent again, want 0 (Health acknowledged)", first, n)
	}
	// A Health change is sent; the ack of a seq whose record was reused 256 later does not count.
	c.Health.Mut(es[0]).HP = 99
	seq := first + 201
	wr.Clock++
	b, _ = wr.AppendSnapshot(wire.Header{Token: 1, Seq: seq}.Append(buf[:0]), wire.MaxDatagram, seq)
	if count(b) != 1 {
		t.Fatalf("changed Health: %d entities, want 1", count(b))
	}
	wr.Acked(seq - 256) // same record slot, older datagram
	wr.Clock++
	b, _ = wr.AppendSnapshot(wire.Header{Token: 1, Seq: seq + 1}.Append(buf[:0]), wire.MaxDatagram, seq+1)
	if count(b) != 1 {
		t.Fatalf("after the ack of an older seq in the same slot: %d entities, want the change again", count(b))
	}
}
