package instance

import (
	"testing"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/wire"
)

// Every component the game replicates has the wire's id and fixed size (docs/PROTOCOL.md §4),
// and every component id the wire accepts is one the game replicates, except the wire-only
// Motion and Spawn records, whose sizes are those of the components they pack.
func TestSchemaMatchesGame(t *testing.T) {
	w := ecs.NewWorld()
	game.RegisterComponents(w)
	replicated := map[uint16]bool{}
	for _, st := range w.Stores() {
		if st.Flags()&ecs.Replicated == 0 {
			continue
		}
		id := uint16(st.ID())
		replicated[id] = true
		if got := wire.ComponentSize(id); got != st.Size() {
			t.Errorf("component %d: the wire's size %d, the game's codec %d", id, got, st.Size())
		}
	}
	for id := uint16(0); id <= wire.MaxComponent; id++ {
		size := wire.ComponentSize(id)
		switch {
		case id == wire.CompMotion:
			if size != 8 {
				t.Errorf("Motion is %d bytes, want 8 (x, y, vx, vy i16)", size)
			}
		case id == wire.CompSpawn:
			if want := w.Store(game.CompKind).Size() + wire.ComponentSize(wire.CompMotion); size != want {
				t.Errorf("Spawn is %d bytes, want Kind + Motion = %d", size, want)
			}
		case size != 0 && !replicated[id]:
			t.Errorf("the wire accepts component %d (%d bytes) the game does not replicate", id, size)
		}
	}
}
