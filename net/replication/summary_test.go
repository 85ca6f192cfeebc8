package replication

import (
	"testing"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/wire"
)

// The Writers of one tick share the Tracker's summary of the world, but a change made after a
// snapshot and before the next tick (a paused game's player leaving: his ship destroyed with
// no step, no Observe; a value set from outside the step) is in the next snapshot all the same,
// for every client; and an entity destroyed so is never sent again.
func TestSnapshotsSeeChangesWithinATick(t *testing.T) {
	w := ecs.NewWorld()
	c := game.RegisterComponents(w)
	a, b := w.Create(), w.Create()
	c.Health.Set(a, game.Health{HP: 5, MaxHP: 9})
	c.Health.Set(b, game.Health{HP: 7, MaxHP: 9})
	tr := NewTracker(w)
	ws := []*Writer{NewWriter(tr), NewWriter(tr)}
	var seq uint16
	// snapshot returns the entities (and their HP) the Writer's next datagram carries; it
	// acknowledges it at once.
	snapshot := func(wr *Writer) map[ecs.Entity]uint16 {
		seq++
		wr.Clock++
		out, _ := wr.AppendSnapshot(nil, wire.MaxDatagram, seq)
		wr.Acked(seq)
		got := map[ecs.Entity]uint16{}
		eachRecord(t, out, func(rec *wire.Record) {
			for it := rec.Components(); ; {
				id, data, ok := it.Next()
				if !ok {
					break
				}
				if ecs.ComponentID(id) == game.CompHealth {
					got[ecs.Entity(rec.Entity)] = uint16(data[0]) | uint16(data[1])<<8
				}
			}
		})
		return got
	}
	w.Advance()
	for i, wr := range ws {
		if got := snapshot(wr); len(got) != 2 || got[a] != 5 || got[b] != 7 {
			t.Fatalf("client %d: first snapshot %v, want both entities", i, got)
		}
	}
	// Same tick: b changes, a is destroyed (its events not observed).
	c.Health.Mut(b).HP = 3
	w.Destroy(a)
	for i, wr := range ws {
		if got := snapshot(wr); len(got) != 1 || got[b] != 3 {
			t.Fatalf("client %d: after the change within the tick %v, want b with HP 3 only", i, got)
		}
	}
	w.Advance()
	for i, wr := range ws {
		if got := snapshot(wr); len(got) != 0 {
			t.Fatalf("client %d: next tick %v, want nothing (all acknowledged)", i, got)
		}
	}
}
