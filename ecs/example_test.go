package ecs_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/rtype/rtype/ecs"
)

// Position is the centre of an entity in virtual px.
type Position struct{ X, Y float32 }

// Velocity is in px per tick for this example.
type Velocity struct{ X, Y float32 }

// PositionCodec is the wire layout x f32, y f32 little-endian (8 bytes).
type PositionCodec struct{}

func (PositionCodec) Size() int { return 8 }
func (PositionCodec) Append(buf []byte, v *Position) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v.X))
	return binary.LittleEndian.AppendUint32(buf, math.Float32bits(v.Y))
}
func (PositionCodec) Parse(b []byte, v *Position) error {
	if len(b) != 8 {
		return errors.New("position: need 8 bytes")
	}
	v.X = math.Float32frombits(binary.LittleEndian.Uint32(b))
	v.Y = math.Float32frombits(binary.LittleEndian.Uint32(b[4:]))
	return nil
}

// moveSystem is a system as the game writes them: a method over a query built once.
type moveSystem struct {
	q *ecs.Query2[Position, Velocity]
}

func (m moveSystem) Update(w *ecs.World) {
	for it := m.q.Iter(); it.Next(); {
		p, v := it.Get()
		p.X += v.X
		p.Y += v.Y
	}
}

func Example() {
	w := ecs.NewWorld()
	pos := ecs.Register[Position](w, 1, PositionCodec{}, ecs.Replicated)
	vel := ecs.Register[Velocity](w, 2, nil, 0) // server-only in this example

	ship := w.Create()
	pos.Set(ship, Position{100, 540})
	vel.Set(ship, Velocity{4, 0})

	move := moveSystem{q: ecs.NewQuery2[Position, Velocity](w)}
	for range 3 {
		w.Advance()
		move.Update(w)
	}
	fmt.Println("position:", *pos.Get(ship), "signature:", w.Signature(ship))

	// Replication: structural events, then the wire bytes of replicated stores.
	for _, ev := range w.Events() {
		fmt.Println(ev.Kind, ev.Entity.Index(), ev.Entity.Generation(), ev.Component, ev.Tick)
	}
	w.ClearEvents()
	for _, st := range w.Stores() {
		if st.Flags()&ecs.Replicated != 0 && st.Has(ship) {
			fmt.Printf("component %d: % x\n", st.ID(), st.AppendWire(nil, ship))
		}
	}
	// Output:
	// position: {112 540} signature: 6
	// created 0 1 0 0
	// added 0 1 1 0
	// added 0 1 2 0
	// component 1: 00 00 e0 42 00 00 07 44
}

// TestIterDoesNotEscapeAcrossPackages pins that the stack-allocated
// iterator stays on the stack when used from another package.
func TestIterDoesNotEscapeAcrossPackages(t *testing.T) {
	w := ecs.NewWorld()
	pos := ecs.Register[Position](w, 1, PositionCodec{}, ecs.Replicated)
	vel := ecs.Register[Velocity](w, 2, nil, 0)
	for i := range 100 {
		e := w.Create()
		pos.Set(e, Position{float32(i), 0})
		if i%3 != 0 {
			vel.Set(e, Velocity{1, 1})
		}
	}
	sys := moveSystem{q: ecs.NewQuery2[Position, Velocity](w)}
	q1 := ecs.NewQuery1[Position](w)
	n := 0
	allocs := testing.AllocsPerRun(100, func() {
		sys.Update(w)
		for it := q1.Iter(); it.Next(); {
			if it.Entity() != ecs.Nil {
				n++
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("iteration from another package: %v allocs/run, want 0", allocs)
	}
	if n == 0 {
		t.Fatal("nothing iterated")
	}
}
