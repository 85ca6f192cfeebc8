package replication

import (
	"testing"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/wire"
)

// entityCmd encodes an ENTITY of e with a Position (and a Kind when kind != 0) and parses it back.
func entityCmd(t *testing.T, e ecs.Entity, x float32, kind game.EntityKind) *wire.Entity {
	t.Helper()
	w := ecs.NewWorld()
	c := game.RegisterComponents(w)
	if err := w.CreateWithID(e); err != nil {
		t.Fatal(err)
	}
	c.Position.Set(e, game.Position{X: x, Y: 10})
	n := uint8(1)
	if kind != 0 {
		c.Kind.Set(e, game.Kind{Kind: kind})
		n = 2
	}
	b, start := wire.BeginEntity(nil, uint64(e))
	for _, id := range []ecs.ComponentID{game.CompPosition, game.CompKind} {
		if st := w.Store(id); st.Has(e) {
			b = wire.AppendComponentHeader(b, uint16(id), st.Size())
			b = st.AppendWire(b, e)
		}
	}
	b = wire.EndEntity(b, start, n)
	var cmd wire.Entity
	if _, err := cmd.Parse(b); err != nil {
		t.Fatal(err)
	}
	return &cmd
}

func id(index, gen uint32) ecs.Entity { return ecs.Entity(uint64(gen)<<32 | uint64(index)) }

func TestMirrorGenerationsAndTombstones(t *testing.T) {
	w := ecs.NewWorld()
	c := game.RegisterComponents(w)
	m := NewMirror(w)
	old, cur := id(5, 1), id(5, 2)

	// The newer generation arrives first; a late ENTITY of the older one must not replace it.
	if err := m.ApplyEntity(entityCmd(t, cur, 100, game.KindEnemy), 20); err != nil {
		t.Fatal(err)
	}
	if err := m.ApplyEntity(entityCmd(t, old, 50, 0), 10); err != nil {
		t.Fatal(err)
	}
	if !w.Alive(cur) || w.Alive(old) {
		t.Fatalf("late ENTITY of generation 1 replaced generation 2 (alive: cur %v old %v)", w.Alive(cur), w.Alive(old))
	}
	if k := c.Kind.Get(cur); k == nil || k.Kind != game.KindEnemy {
		t.Fatalf("generation 2 lost its Kind: %+v", k)
	}

	// A newer generation replaces an older one still held.
	newer := id(5, 3)
	if err := m.ApplyEntity(entityCmd(t, newer, 70, game.KindPowerUp), 30); err != nil {
		t.Fatal(err)
	}
	if w.Alive(cur) || !w.Alive(newer) {
		t.Fatal("generation 3 did not replace generation 2")
	}
	// ...and generation 2 can never come back.
	if err := m.ApplyEntity(entityCmd(t, cur, 100, game.KindEnemy), 31); err != nil {
		t.Fatal(err)
	}
	if w.Alive(cur) {
		t.Fatal("a replaced generation came back")
	}

	// DEL_ENT tombstones: a delayed ENTITY of a deleted entity is ignored.
	m.DelEnt(uint64(newer))
	if w.Alive(newer) {
		t.Fatal("DEL_ENT did not delete")
	}
	if err := m.ApplyEntity(entityCmd(t, newer, 80, game.KindPowerUp), 29); err != nil {
		t.Fatal(err)
	}
	if w.Alive(newer) {
		t.Fatal("a deleted entity was brought back by a late ENTITY (ghost)")
	}

	// Latest wins per component: an older datagram never overwrites a newer value.
	e := id(9, 1)
	_ = m.ApplyEntity(entityCmd(t, e, 300, game.KindEnemy), 50)
	_ = m.ApplyEntity(entityCmd(t, e, 200, game.KindEnemy), 40)
	if p := c.Position.Get(e); p == nil || p.X != 300 {
		t.Fatalf("older ENTITY overwrote the newer Position: %+v", p)
	}
}
