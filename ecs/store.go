package ecs

import (
	"fmt"
)

// Codec encodes one fixed-size component type in its little-endian wire
// layout (docs/PROTOCOL.md, "Component list v2").
type Codec[T any] interface {
	// Size is the exact encoded size in bytes.
	Size() int
	// Append appends the Size() bytes encoding *v to buf and returns it.
	Append(buf []byte, v *T) []byte
	// Parse decodes b into *v; len(b) must equal Size(). It returns an
	// error (never panics) on bad input.
	Parse(b []byte, v *T) error
}

// Flags qualify a registered component type.
type Flags uint8

// Replicated marks a component type sent to clients; components without it
// are server-only.
const Replicated Flags = 1

// AnyStore is the type-erased view of a [Store] used by replication and the
// client mirror.
type AnyStore interface {
	// ID returns the component id.
	ID() ComponentID
	// Flags returns the flags given to Register.
	Flags() Flags
	// Size returns the encoded size in bytes (0 without a codec).
	Size() int
	// Has reports whether e (alive, same generation) has the component.
	Has(e Entity) bool
	// ChangedAt returns the tick of the last add/Set/Mut/MarkChanged of e's
	// component, 0 if e does not have it.
	ChangedAt(e Entity) Tick
	// AppendWire appends the Size() encoded bytes of e's component to buf.
	// The caller must check Has: if e lacks the component (or the store has
	// no codec) buf is returned unchanged.
	AppendWire(buf []byte, e Entity) []byte
	// SetWire decodes b and adds or replaces e's component (like Set). It
	// returns ErrNotAlive, ErrNoCodec, ErrWireSize or the codec's error
	// without changing anything.
	SetWire(e Entity, b []byte) error
	// Remove removes e's component; see Store.Remove.
	Remove(e Entity) bool
}

// Store holds every component of type T of a world as a sparse set: dense
// values, their entities and change ticks in three parallel slices, and a
// sparse table from entity index to dense slot. Obtain it from [Register].
type Store[T any] struct {
	w       *World
	id      ComponentID
	flags   Flags
	codec   Codec[T]
	size    int
	dense   []T      // values, by dense slot
	ents    []Entity // owner of each dense slot
	changed []Tick   // change tick of each dense slot
	sparse  []int32  // entity index -> dense slot, -1 if absent
	scratch T        // SetWire decodes here (no allocation per call)
	// pairs track the alignment of ents with the stores queried together
	// with this one (see pairTracker).
	pairs []*pairTracker
}

// Register creates the store of component type T with wire id id, its codec
// (nil is allowed for server-only components, then Size is 0 and the wire
// methods do nothing / fail with ErrNoCodec) and flags. It must be called
// before entities get the component and before queries on T are built.
//
// Register panics (programming error at start-up) if id is 0 or above 63,
// if id is already registered, if T is already registered under another id
// (queries find stores by type), or if flags has Replicated but codec is
// nil or has a non-positive Size.
func Register[T any](w *World, id ComponentID, codec Codec[T], flags Flags) *Store[T] {
	if id == 0 || id > MaxComponentID {
		panic(fmt.Sprintf("ecs: Register[%s]: component id %d out of range 1..%d", typeName[T](), id, MaxComponentID))
	}
	if w.byID[id] != nil {
		panic(fmt.Sprintf("ecs: Register[%s]: component id %d already registered", typeName[T](), id))
	}
	if s := StoreOf[T](w); s != nil {
		panic(fmt.Sprintf("ecs: Register[%s]: type already registered with id %d", typeName[T](), s.id))
	}
	size := 0
	if codec != nil {
		size = codec.Size()
	}
	if flags&Replicated != 0 && size <= 0 {
		panic(fmt.Sprintf("ecs: Register[%s]: replicated component id %d needs a codec with a positive Size", typeName[T](), id))
	}
	s := &Store[T]{w: w, id: id, flags: flags, codec: codec, size: size}
	w.byID[id] = s
	// Keep w.stores ordered by id.
	pos := len(w.stores)
	for i, o := range w.stores {
		if o.ID() > id {
			pos = i
			break
		}
	}
	w.stores = append(w.stores, nil)
	copy(w.stores[pos+1:], w.stores[pos:])
	w.stores[pos] = s
	return s
}

// StoreOf returns the store of component type T registered in w, or nil.
// O(number of registered types); call it once, not per tick.
func StoreOf[T any](w *World) *Store[T] {
	for _, s := range w.stores {
		if t, ok := s.(*Store[T]); ok {
			return t
		}
	}
	return nil
}

func typeName[T any]() string {
	var p *T
	return fmt.Sprintf("%T", p)[1:]
}

// ID returns the component id given to Register.
func (s *Store[T]) ID() ComponentID { return s.id }

// Flags returns the flags given to Register.
func (s *Store[T]) Flags() Flags { return s.flags }

// Size returns the codec's encoded size in bytes (0 without a codec).
func (s *Store[T]) Size() int { return s.size }

// Len returns the number of entities having the component.
func (s *Store[T]) Len() int { return len(s.dense) }

// slotOf returns the dense slot of e, or -1 if e (this exact generation)
// does not have the component.
func (s *Store[T]) slotOf(e Entity) int {
	idx := e.Index()
	if uint64(idx) >= uint64(len(s.sparse)) {
		return -1
	}
	p := s.sparse[idx]
	if p < 0 || s.ents[p] != e {
		return -1
	}
	return int(p)
}

// Has reports whether e has the component (false for dead or stale ids).
func (s *Store[T]) Has(e Entity) bool { return s.slotOf(e) >= 0 }

// Get returns a pointer to e's component, or nil if e does not have it.
// Writing through it does NOT mark the component changed (use Mut or
// MarkChanged). The pointer is valid until the next structural change of
// this store.
func (s *Store[T]) Get(e Entity) *T {
	p := s.slotOf(e)
	if p < 0 {
		return nil
	}
	return &s.dense[p]
}

// Mut is like Get but marks the component changed at the current tick.
func (s *Store[T]) Mut(e Entity) *T {
	p := s.slotOf(e)
	if p < 0 {
		return nil
	}
	s.changed[p] = s.w.tick
	s.w.version++
	return &s.dense[p]
}

// MarkChanged sets e's change tick to the current tick; no-op if e does not
// have the component.
func (s *Store[T]) MarkChanged(e Entity) {
	if p := s.slotOf(e); p >= 0 {
		s.changed[p] = s.w.tick
		s.w.version++
	}
}

// ChangedAt returns the tick of the last add, Set, Mut or MarkChanged of
// e's component; 0 if e does not have it.
func (s *Store[T]) ChangedAt(e Entity) Tick {
	if p := s.slotOf(e); p >= 0 {
		return s.changed[p]
	}
	return 0
}

// Set adds the component to e (recording EventAdded and setting the
// entity's Signature bit) or replaces its value; either way it marks it
// changed at the current tick. Set on an entity that is not alive does
// nothing. No allocation once the store has grown to its peak size.
func (s *Store[T]) Set(e Entity, v T) {
	if p := s.slotOf(e); p >= 0 {
		s.dense[p] = v
		s.changed[p] = s.w.tick
		s.w.version++
		return
	}
	if !s.w.Alive(e) {
		return
	}
	s.add(e, v)
}

// add appends a component for live entity e that does not have it.
func (s *Store[T]) add(e Entity, v T) {
	idx := e.Index()
	if n := uint64(len(s.sparse)); uint64(idx) >= n {
		need := int(idx) + 1
		if need <= cap(s.sparse) {
			s.sparse = s.sparse[:need]
		} else {
			grown := make([]int32, need, max(need, 2*cap(s.sparse), 64))
			copy(grown, s.sparse)
			s.sparse = grown[:need]
		}
		for i := n; i < uint64(need); i++ {
			s.sparse[i] = -1
		}
	}
	s.w.epoch += epochStep // the append may move s.dense: ends iterator runs
	s.sparse[idx] = int32(len(s.dense))
	s.dense = append(s.dense, v)
	s.ents = append(s.ents, e)
	s.changed = append(s.changed, s.w.tick)
	for _, t := range s.pairs {
		t.mismatch += t.mis(len(s.ents) - 1)
	}
	s.w.slots[idx].sig |= 1 << s.id
	s.w.emit(EventAdded, e, s.id)
}

// Remove removes e's component, clears its Signature bit and records
// EventRemoved; it returns false if e does not have it. The last dense
// value moves into the freed slot (swap-remove).
func (s *Store[T]) Remove(e Entity) bool {
	p := s.slotOf(e)
	if p < 0 {
		return false
	}
	s.removeAt(p)
	s.w.slots[e.Index()].sig &^= 1 << s.id
	s.w.emit(EventRemoved, e, s.id)
	return true
}

// drop implements storage: remove the component of index idx, no event.
func (s *Store[T]) drop(idx uint32) {
	if uint64(idx) < uint64(len(s.sparse)) {
		if p := s.sparse[idx]; p >= 0 {
			s.removeAt(int(p))
		}
	}
}

// removeAt swap-removes dense slot p.
func (s *Store[T]) removeAt(p int) {
	s.w.epoch += epochStep // ends the validated runs of running iterators
	last := len(s.dense) - 1
	for _, t := range s.pairs {
		t.mismatch -= t.mis(p)
		if p != last {
			t.mismatch -= t.mis(last)
		}
	}
	s.sparse[s.ents[p].Index()] = -1
	if p != last {
		moved := s.ents[last]
		s.dense[p] = s.dense[last]
		s.ents[p] = moved
		s.changed[p] = s.changed[last]
		s.sparse[moved.Index()] = int32(p)
	}
	var zero T
	s.dense[last] = zero // let the GC reclaim anything T points to
	s.dense = s.dense[:last]
	s.ents = s.ents[:last]
	s.changed = s.changed[:last]
	if p != last {
		for _, t := range s.pairs {
			t.mismatch += t.mis(p)
		}
	}
}

// AppendWire appends the encoded component of e to buf (Size() bytes). If e
// does not have the component or the store has no codec, buf is returned
// unchanged.
func (s *Store[T]) AppendWire(buf []byte, e Entity) []byte {
	p := s.slotOf(e)
	if p < 0 || s.codec == nil {
		return buf
	}
	return s.codec.Append(buf, &s.dense[p])
}

// SetWire decodes b with the codec and Sets the result on e. It returns
// an error wrapping ErrNotAlive, ErrNoCodec or ErrWireSize, or the codec's
// Parse error, and then leaves the store unchanged.
func (s *Store[T]) SetWire(e Entity, b []byte) error {
	if s.codec == nil {
		return fmt.Errorf("%w: component id %d", ErrNoCodec, s.id)
	}
	if len(b) != s.size {
		return fmt.Errorf("%w: component id %d: got %d bytes, want %d", ErrWireSize, s.id, len(b), s.size)
	}
	if !s.w.Alive(e) {
		return fmt.Errorf("%w: %#x", ErrNotAlive, uint64(e))
	}
	var zero T
	s.scratch = zero
	if err := s.codec.Parse(b, &s.scratch); err != nil {
		return fmt.Errorf("ecs: component id %d: %w", s.id, err)
	}
	s.Set(e, s.scratch)
	return nil
}
