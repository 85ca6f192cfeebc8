package ecs

import (
	"errors"
	"fmt"
	"math/bits"
)

// Errors returned by [World.CreateWithID] and [AnyStore.SetWire]. Compare
// with errors.Is; the returned errors wrap them with the offending entity.
var (
	// ErrInvalidEntity: generation 0 (this includes Nil), top bit set, or
	// index above MaxIndex.
	ErrInvalidEntity = errors.New("ecs: invalid entity id")
	// ErrIndexInUse: the index is alive with another generation.
	ErrIndexInUse = errors.New("ecs: entity index alive with another generation")
	// ErrNotAlive: the entity is not alive in this world.
	ErrNotAlive = errors.New("ecs: entity not alive")
	// ErrNoCodec: the store was registered without a codec.
	ErrNoCodec = errors.New("ecs: component has no codec")
	// ErrWireSize: the encoded component does not have the codec's size.
	ErrWireSize = errors.New("ecs: wrong encoded component size")
)

// slot is the per-index entity record.
type slot struct {
	gen   uint32    // generation of the live entity, or of the next one to use
	alive bool      // an entity with gen lives in this slot
	free  int32     // position in World.free, or -1
	sig   Signature // components of the live entity
}

// EventKind is the kind of a structural change recorded in [World.Events].
type EventKind uint8

// Event kinds.
const (
	EventCreated   EventKind = iota + 1 // entity created (Create or CreateWithID)
	EventDestroyed                      // entity destroyed with all its components
	EventAdded                          // component added to an entity (Set of an absent component)
	EventRemoved                        // component removed with Remove (not by Destroy)
)

// String returns "created", "destroyed", "added" or "removed".
func (k EventKind) String() string {
	switch k {
	case EventCreated:
		return "created"
	case EventDestroyed:
		return "destroyed"
	case EventAdded:
		return "added"
	case EventRemoved:
		return "removed"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is one structural change. Component is 0 for EventCreated and
// EventDestroyed. Tick is the world tick at which it happened.
type Event struct {
	Kind      EventKind
	Entity    Entity
	Component ComponentID
	Tick      Tick
}

// storage is the internal side of every Store[T].
type storage interface {
	AnyStore
	// drop removes the component of the entity at index idx, if any,
	// without emitting an event (used by Destroy).
	drop(idx uint32)
}

// World owns entities, component stores, the current tick and the event
// buffer. Create it with [NewWorld]; the zero value is not usable.
type World struct {
	tick   Tick
	slots  []slot
	free   []uint32 // free indices; Create pops from the end
	live   int
	events []Event
	// discard: events are not recorded (DiscardEvents).
	discard bool
	// epoch grows by epochStep at every component add and removal:
	// iterators use it to drop their validated run (and cached dense
	// slices) when dense slots may have moved (see query.go).
	epoch int64
	// version counts the changes to what the world holds (Version).
	version uint64

	byID   [MaxComponentID + 1]storage
	stores []AnyStore // registered stores ordered by id
}

// NewWorld returns an empty world at tick 0.
func NewWorld() *World {
	return &World{}
}

// Tick returns the current tick (0 for a new world).
func (w *World) Tick() Tick { return w.tick }

// Advance increments the current tick; the game calls it once per
// simulation step.
func (w *World) Advance() { w.tick++ }

// Version counts the changes to what the world holds: it moves at every
// Create, Destroy, component add and removal, Set, Mut and MarkChanged
// (every change a component's ChangedAt or an event records), not at
// Advance nor at writes through Get's pointer. A cache of the world's state
// taken at one Version (and Tick) stays valid while both are unchanged.
func (w *World) Version() uint64 { return w.version }

// Len returns the number of live entities.
func (w *World) Len() int { return w.live }

// Create makes a new live entity and records EventCreated. It reuses the
// most recently freed index if any (its generation was bumped by Destroy,
// so the new id differs from every destroyed one), otherwise it appends a
// new index. O(1), no allocation once the slot table has grown.
func (w *World) Create() Entity {
	var idx uint32
	if n := len(w.free); n > 0 {
		idx = w.free[n-1]
		w.free = w.free[:n-1]
		w.slots[idx].free = -1
	} else {
		if uint64(len(w.slots)) >= 1<<32 {
			panic("ecs: Create: entity index space exhausted")
		}
		idx = uint32(len(w.slots))
		w.slots = append(w.slots, slot{gen: 1, free: -1})
	}
	s := &w.slots[idx]
	s.alive = true
	s.sig = 0
	w.live++
	e := newEntity(idx, s.gen)
	w.emit(EventCreated, e, 0)
	return e
}

// CreateWithID makes e alive with exactly its index and generation; the
// client mirror uses it with ids chosen by the server. Storage grows as
// needed (indices between the old size and e's index become free). It
// returns an error wrapping ErrInvalidEntity if e has generation 0 (Nil),
// its top bit set or an index above MaxIndex, and ErrIndexInUse if the index
// is alive with another generation (the mirror destroys the old entity
// first). If e itself is already alive it does nothing and returns nil.
// Otherwise it records EventCreated.
func (w *World) CreateWithID(e Entity) error {
	gen, idx := e.Generation(), e.Index()
	if gen == 0 || gen > maxGeneration || idx > MaxIndex {
		return fmt.Errorf("%w: %#x (index %d, generation %d)", ErrInvalidEntity, uint64(e), idx, gen)
	}
	if n0 := uint32(len(w.slots)); idx >= n0 {
		for uint32(len(w.slots)) <= idx {
			w.slots = append(w.slots, slot{gen: 1, free: -1})
		}
		// The skipped indices n0..idx-1 become free, pushed highest first so
		// that Create pops the lowest one first.
		for i := idx; i > n0; i-- {
			w.pushFree(i - 1)
		}
	}
	s := &w.slots[idx]
	if s.alive {
		if s.gen == gen {
			return nil
		}
		return fmt.Errorf("%w: %#x (index %d alive with generation %d, want %d)", ErrIndexInUse, uint64(e), idx, s.gen, gen)
	}
	if s.free >= 0 {
		w.removeFree(idx)
	}
	s.gen = gen
	s.alive = true
	s.sig = 0
	w.live++
	w.emit(EventCreated, e, 0)
	return nil
}

// pushFree appends idx to the free list.
func (w *World) pushFree(idx uint32) {
	w.slots[idx].free = int32(len(w.free))
	w.free = append(w.free, idx)
}

// removeFree removes idx from the free list in O(1) (swap with the last).
func (w *World) removeFree(idx uint32) {
	p := w.slots[idx].free
	last := len(w.free) - 1
	moved := w.free[last]
	w.free[p] = moved
	w.slots[moved].free = p
	w.free = w.free[:last]
	w.slots[idx].free = -1
}

// Destroy removes every component of e (without EventRemoved events),
// records EventDestroyed, bumps the slot generation and frees the index. It
// returns false (and does nothing) if e is not alive.
func (w *World) Destroy(e Entity) bool {
	if !w.Alive(e) {
		return false
	}
	idx := e.Index()
	s := &w.slots[idx]
	for sig := s.sig; sig != 0; sig &= sig - 1 {
		w.byID[bits.TrailingZeros64(uint64(sig))].drop(idx)
	}
	s = &w.slots[idx]
	s.sig = 0
	s.alive = false
	w.live--
	w.emit(EventDestroyed, e, 0)
	if s.gen < maxGeneration {
		s.gen++
		w.pushFree(idx)
	} // else: retired, the index is never reused (ids keep their top bit 0).
	return true
}

// Alive reports whether e is a live entity of w (false for Nil, destroyed
// ids and ids never created).
func (w *World) Alive(e Entity) bool {
	idx := e.Index()
	if uint64(idx) >= uint64(len(w.slots)) {
		return false
	}
	s := &w.slots[idx]
	return s.alive && s.gen == e.Generation()
}

// Signature returns the components of e as a bit set (bit i = component id
// i); 0 if e is not alive.
func (w *World) Signature(e Entity) Signature {
	if !w.Alive(e) {
		return 0
	}
	return w.slots[e.Index()].sig
}

// Each calls fn for every live entity in ascending index order. fn may
// destroy the entity it is given, and may create entities (they may or may
// not be visited); it must not destroy other entities.
func (w *World) Each(fn func(Entity)) {
	for i := 0; i < len(w.slots); i++ {
		if s := &w.slots[i]; s.alive {
			fn(newEntity(uint32(i), s.gen))
		}
	}
}

// Events returns the structural changes recorded since the last
// ClearEvents, oldest first. The slice is reused: do not retain it across
// ClearEvents.
func (w *World) Events() []Event { return w.events }

// ClearEvents empties the event buffer, keeping its capacity (no allocation
// in steady state). Events accumulate until it is called.
func (w *World) ClearEvents() { w.events = w.events[:0] }

// DiscardEvents stops recording events (and empties the buffer): for a world
// whose events nobody drains, such as a client's mirror of the server's
// world, whose buffer would otherwise grow with every entity the server
// creates and destroys. Version still moves.
func (w *World) DiscardEvents() {
	w.discard = true
	w.events = nil
}

func (w *World) emit(k EventKind, e Entity, c ComponentID) {
	w.version++
	if w.discard {
		return
	}
	w.events = append(w.events, Event{Kind: k, Entity: e, Component: c, Tick: w.tick})
}

// Store returns the store registered with id, or nil.
func (w *World) Store(id ComponentID) AnyStore {
	if id > MaxComponentID || w.byID[id] == nil {
		return nil
	}
	return w.byID[id]
}

// Stores returns every registered store ordered by id. The slice is owned by
// the world (no allocation): do not modify it.
func (w *World) Stores() []AnyStore { return w.stores }
