package ecs

import (
	"bytes"
	"fmt"
	"unsafe"
)

// Iteration strategy (all queries). An iterator walks the dense slots of
// its driving store (the smallest store at the first Next) backwards. When
// the other stores hold the same entities at the same dense slots (the
// common case: entities spawned with all their components and destroyed
// whole) it takes a run of up to runMax such aligned slots at once, and
// Next then only decrements a cursor: Get is two pointer computations, as
// in an archetype ECS. Whether slots are aligned is known without reading
// the entity arrays when the query's pairTracker counts no misaligned slot;
// otherwise each run is validated (one memory compare). Elsewhere each
// slot is matched through the sparse tables ("single mode").
//
// Any component removal in the world may move dense slots, and any add may
// reallocate a dense slice (Get uses the dense bases cached when the run
// was taken), so both must end the current run; yet the fast path of Next
// must stay small enough to be inlined (one compare). The iterator
// therefore keeps lo - epoch (epoch of the world when the run was taken)
// and tests c - w.epoch > that, i.e. c - lo > w.epoch - epoch0. Each add
// or removal adds epochStep > runMax to w.epoch, so after any of them the
// test fails (c - lo < runMax) and the slow path resumes from the current
// slot. int64 cannot overflow in practice (2^63/epochStep structural
// changes).

// runMax bounds the length of a validated run; epochStep must exceed it.
const (
	runMax    = 1024
	epochStep = runMax + 1
)

// slotOfLive returns the dense slot of the entity at index idx, or -1. The
// caller knows the entity at idx is alive (it is in another store), so any
// component at idx is its own: Destroy removes all components.
func (s *Store[T]) slotOfLive(idx uint32) int {
	if uint64(idx) < uint64(len(s.sparse)) {
		return int(s.sparse[idx])
	}
	return -1
}

// alignedRun returns the lowest lo >= i-runMax+1 such that slots lo..i of
// x and y hold the same entities. Slot i must be aligned. The common case
// (the whole window is aligned) is one vectorised memory compare.
func alignedRun(x, y []Entity, i int) int {
	if i >= len(x) || i >= len(y) {
		return i
	}
	lim := max(i-runMax+1, 0)
	if entitiesEqual(x[lim:i], y[lim:i]) {
		return lim
	}
	lo := i
	for lo > lim && x[lo-1] == y[lo-1] {
		lo--
	}
	return lo
}

// entitiesEqual reports whether x and y (same length) hold the same ids,
// comparing their bytes with the runtime's vectorised memequal.
func entitiesEqual(x, y []Entity) bool {
	if len(x) != len(y) {
		return false
	}
	if len(x) == 0 {
		return true
	}
	n := len(x) * int(unsafe.Sizeof(Entity(0)))
	return bytes.Equal(unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), n), unsafe.Slice((*byte)(unsafe.Pointer(&y[0])), n))
}

// elem returns a pointer to element i of the array at base (nil if base is
// nil and i is 0). Iterators cache the base of each dense slice when they
// validate a run, and only pass indices that were below its length then,
// so the pointer always lies inside that array, even if the loop body
// breaks the mutation rule (it may then be stale, never wild).
func elem[T any](base unsafe.Pointer, i int) *T {
	var zero T
	return (*T)(unsafe.Add(base, uintptr(i)*unsafe.Sizeof(zero)))
}

// base returns the address of the first element of s (nil if s is nil).
func base[T any](s []T) unsafe.Pointer {
	return unsafe.Pointer(unsafe.SliceData(s))
}

// pairTracker keeps, for two stores queried together, the number of dense
// slots below the shorter length where they hold different entities. The
// stores update it in O(1) on every add and removal (only the touched
// slots can change), so a query knows at any time, without reading the
// entity arrays, whether every slot is aligned (mismatch == 0) and runs
// need no validation.
type pairTracker struct {
	x, y     *[]Entity // the ents fields of the two stores
	mismatch int
}

// mis returns 1 if slot i is below both lengths and holds different
// entities in the two stores, else 0.
func (t *pairTracker) mis(i int) int {
	x, y := *t.x, *t.y
	if i < len(x) && i < len(y) && x[i] != y[i] {
		return 1
	}
	return 0
}

// pairOf returns the tracker of stores a and b, creating and registering
// it on first use.
func pairOf[A, B any](a *Store[A], b *Store[B]) *pairTracker {
	if &a.ents == &b.ents { // the same store twice: always aligned
		return &pairTracker{x: &a.ents, y: &b.ents}
	}
	for _, t := range a.pairs {
		if t.x == &b.ents || t.y == &b.ents {
			return t
		}
	}
	t := &pairTracker{x: &a.ents, y: &b.ents}
	for i := range min(len(a.ents), len(b.ents)) {
		t.mismatch += t.mis(i)
	}
	a.pairs = append(a.pairs, t)
	b.pairs = append(b.pairs, t)
	return t
}

func mustStore[T any](w *World, fn string) *Store[T] {
	s := StoreOf[T](w)
	if s == nil {
		panic(fmt.Sprintf("ecs: %s: component type %s is not registered", fn, typeName[T]()))
	}
	return s
}

// Query1 iterates the entities having component A. Build it once with
// [NewQuery1] (it allocates) and call Iter every tick (it does not).
type Query1[A any] struct {
	a *Store[A]
}

// NewQuery1 returns a query over component A. It panics if A is not
// registered in w.
func NewQuery1[A any](w *World) *Query1[A] {
	return &Query1[A]{a: mustStore[A](w, "NewQuery1")}
}

// Iter starts an iteration: for it := q.Iter(); it.Next(); { ... }. The
// iterator lives on the caller's stack (Iter is inlined; no allocation).
// See the package documentation for the order and the mutation rule.
func (q *Query1[A]) Iter() *Iter1[A] {
	return &Iter1[A]{a: q.a, w: q.a.w}
}

// Iter1 is an iteration of a [Query1].
type Iter1[A any] struct {
	w       *World
	a       *Store[A]
	pa      unsafe.Pointer // base of a.dense when the run was validated
	c       int            // dense slot of the current entity
	lo      int64          // slots lo..c-1 are to visit without checks; stored minus w.epoch
	started bool
}

// Next advances to the next entity having A; it returns false when the
// iteration is over.
func (it *Iter1[A]) Next() bool {
	if int64(it.c)-it.w.epoch > it.lo {
		it.c--
		return true
	}
	return it.next()
}

// next is the slow path of Next (kept out of line so that Next inlines).
//
//go:noinline
func (it *Iter1[A]) next() bool {
	n := len(it.a.ents)
	it.pa = base(it.a.dense)
	if !it.started {
		it.started = true
		it.c = n
	}
	it.c = min(it.c, n)
	if it.c == 0 {
		it.lo, it.pa = -it.w.epoch, nil
		return false
	}
	it.c--
	it.lo = int64(max(it.c-runMax+1, 0)) - it.w.epoch
	return true
}

// Entity returns the current entity (Nil outside an iteration step). Like
// Get, it describes the current entity only until the loop body removes a
// component or destroys an entity: read it first.
func (it *Iter1[A]) Entity() Entity {
	if it.pa != nil && uint(it.c) < uint(len(it.a.ents)) {
		return it.a.ents[it.c]
	}
	return Nil
}

// Get returns a pointer to the current entity's A, into the store (writing
// through it does not mark it changed). Call it before structural changes
// in the loop body (see Entity).
func (it *Iter1[A]) Get() *A { return elem[A](it.pa, it.c) }

// Query2 iterates the entities having both A and B. Build it once with
// [NewQuery2] (it allocates) and call Iter every tick (it does not).
type Query2[A, B any] struct {
	a  *Store[A]
	b  *Store[B]
	ab *pairTracker
}

// NewQuery2 returns a query over components A and B. It panics if one of
// them is not registered in w.
func NewQuery2[A, B any](w *World) *Query2[A, B] {
	a, b := mustStore[A](w, "NewQuery2"), mustStore[B](w, "NewQuery2")
	return &Query2[A, B]{a: a, b: b, ab: pairOf(a, b)}
}

// Iter starts an iteration: for it := q.Iter(); it.Next(); { ... }. The
// iterator lives on the caller's stack (Iter is inlined; no allocation).
// See the package documentation for the order and the mutation rule.
func (q *Query2[A, B]) Iter() *Iter2[A, B] {
	return &Iter2[A, B]{a: q.a, b: q.b, ab: q.ab, w: q.a.w}
}

// Iter2 is an iteration of a [Query2].
type Iter2[A, B any] struct {
	w *World
	a *Store[A]
	b *Store[B]
	// Run mode: pa and pb are the bases of a.dense and b.dense and the
	// current entity is at slot c of both. Single mode (a match found
	// through the sparse table): pa and pb point at the entity's
	// components, c is 0 and the cursor waits in resume.
	pa, pb unsafe.Pointer
	c      int    // cursor: dense slot in the driving store (run mode), 0 (single mode)
	lo     int64  // run mode: slots lo..c-1 are aligned too; stored minus w.epoch
	resume int    // single mode: the cursor
	e      Entity // single mode: the current entity
	ab     *pairTracker
	// started: the driving store is chosen; single: single mode; driveB:
	// b drives.
	started, single, driveB bool
}

// Next advances to the next entity having both components; it returns
// false when the iteration is over.
func (it *Iter2[A, B]) Next() bool {
	if int64(it.c)-it.w.epoch > it.lo {
		it.c--
		return true
	}
	return it.next()
}

// next is the slow path of Next: it finds the next matching slot and
// validates the run of aligned slots below it.
func (it *Iter2[A, B]) next() bool {
	ae, be := it.a.ents, it.b.ents
	if !it.started {
		it.started = true
		it.driveB = len(be) < len(ae)
		it.c = min(len(ae), len(be))
	}
	if it.single {
		it.c, it.single = it.resume, false
	}
	drive := ae
	if it.driveB {
		drive = be
	}
	it.c = min(it.c, len(drive))
	for it.c > 0 {
		it.c--
		i := it.c
		e := drive[i]
		if i < len(ae) && i < len(be) && ae[i] == be[i] {
			lo := max(i-runMax+1, 0)
			if it.ab.mismatch != 0 {
				lo = alignedRun(ae, be, i)
			}
			it.pa, it.pb = base(it.a.dense), base(it.b.dense)
			it.lo = int64(lo) - it.w.epoch
			return true
		}
		ja, jb := i, i
		if it.driveB {
			ja = it.a.slotOfLive(e.Index())
		} else {
			jb = it.b.slotOfLive(e.Index())
		}
		if ja < 0 || jb < 0 {
			continue
		}
		it.single, it.resume, it.e = true, i, e
		it.pa, it.pb = unsafe.Pointer(&it.a.dense[ja]), unsafe.Pointer(&it.b.dense[jb])
		it.c, it.lo = 0, -it.w.epoch
		return true
	}
	it.lo, it.pa, it.pb = -it.w.epoch, nil, nil
	return false
}

// Entity returns the current entity (Nil outside an iteration step). Like
// Get, it describes the current entity only until the loop body removes a
// component or destroys an entity: read it first.
func (it *Iter2[A, B]) Entity() Entity {
	if it.single {
		return it.e
	}
	if it.pa != nil && uint(it.c) < uint(len(it.a.ents)) {
		return it.a.ents[it.c]
	}
	return Nil
}

// Get returns pointers to the current entity's A and B, into the stores
// (writing through them does not mark them changed). Call it before
// structural changes in the loop body (see Entity).
func (it *Iter2[A, B]) Get() (*A, *B) {
	return elem[A](it.pa, it.c), elem[B](it.pb, it.c)
}

// Query3 iterates the entities having A, B and C. Build it once with
// [NewQuery3] (it allocates) and call Iter every tick (it does not).
type Query3[A, B, C any] struct {
	a      *Store[A]
	b      *Store[B]
	c      *Store[C]
	ab, ac *pairTracker
}

// NewQuery3 returns a query over components A, B and C. It panics if one of
// them is not registered in w.
func NewQuery3[A, B, C any](w *World) *Query3[A, B, C] {
	a, b, c := mustStore[A](w, "NewQuery3"), mustStore[B](w, "NewQuery3"), mustStore[C](w, "NewQuery3")
	return &Query3[A, B, C]{a: a, b: b, c: c, ab: pairOf(a, b), ac: pairOf(a, c)}
}

// Iter starts an iteration: for it := q.Iter(); it.Next(); { ... }. The
// iterator lives on the caller's stack (Iter is inlined; no allocation).
// See the package documentation for the order and the mutation rule.
func (q *Query3[A, B, C]) Iter() *Iter3[A, B, C] {
	return &Iter3[A, B, C]{a: q.a, b: q.b, s: q.c, ab: q.ab, ac: q.ac, w: q.a.w}
}

// Iter3 is an iteration of a [Query3]. See [Iter2] for the two modes.
type Iter3[A, B, C any] struct {
	w          *World
	a          *Store[A]
	b          *Store[B]
	s          *Store[C]
	pa, pb, pc unsafe.Pointer // run mode: dense bases; single mode: the components
	c          int            // cursor: dense slot in the driving store (run mode), 0 (single mode)
	lo         int64          // run mode: slots lo..c-1 are aligned too; stored minus w.epoch
	resume     int            // single mode: the cursor
	e          Entity         // single mode: the current entity
	ab, ac     *pairTracker
	started    bool
	single     bool
	drive      uint8 // 0: a, 1: b, 2: c
}

// Next advances to the next entity having the three components; it returns
// false when the iteration is over.
func (it *Iter3[A, B, C]) Next() bool {
	if int64(it.c)-it.w.epoch > it.lo {
		it.c--
		return true
	}
	return it.next()
}

// next is the slow path of Next: it finds the next matching slot and
// validates the run of aligned slots below it.
func (it *Iter3[A, B, C]) next() bool {
	ae, be, ce := it.a.ents, it.b.ents, it.s.ents
	if !it.started {
		it.started = true
		na, nb, nc := len(ae), len(be), len(ce)
		switch {
		case na <= nb && na <= nc:
			it.drive, it.c = 0, na
		case nb <= nc:
			it.drive, it.c = 1, nb
		default:
			it.drive, it.c = 2, nc
		}
	}
	if it.single {
		it.c, it.single = it.resume, false
	}
	var drive []Entity
	switch it.drive {
	case 0:
		drive = ae
	case 1:
		drive = be
	default:
		drive = ce
	}
	it.c = min(it.c, len(drive))
	for it.c > 0 {
		it.c--
		i := it.c
		e := drive[i]
		if i < len(ae) && i < len(be) && i < len(ce) && ae[i] == be[i] && ae[i] == ce[i] {
			lo := max(i-runMax+1, 0)
			if it.ab.mismatch != 0 {
				lo = alignedRun(ae, be, i)
			}
			if it.ac.mismatch != 0 {
				lo = max(lo, alignedRun(ae, ce, i))
			}
			it.pa, it.pb, it.pc = base(it.a.dense), base(it.b.dense), base(it.s.dense)
			it.lo = int64(lo) - it.w.epoch
			return true
		}
		ja := it.a.slotOfLive(e.Index())
		jb := it.b.slotOfLive(e.Index())
		jc := it.s.slotOfLive(e.Index())
		if ja < 0 || jb < 0 || jc < 0 {
			continue
		}
		it.single, it.resume, it.e = true, i, e
		it.pa = unsafe.Pointer(&it.a.dense[ja])
		it.pb = unsafe.Pointer(&it.b.dense[jb])
		it.pc = unsafe.Pointer(&it.s.dense[jc])
		it.c, it.lo = 0, -it.w.epoch
		return true
	}
	it.lo, it.pa, it.pb, it.pc = -it.w.epoch, nil, nil, nil
	return false
}

// Entity returns the current entity (Nil outside an iteration step). Like
// Get, it describes the current entity only until the loop body removes a
// component or destroys an entity: read it first.
func (it *Iter3[A, B, C]) Entity() Entity {
	if it.single {
		return it.e
	}
	if it.pa != nil && uint(it.c) < uint(len(it.a.ents)) {
		return it.a.ents[it.c]
	}
	return Nil
}

// Get returns pointers to the current entity's A, B and C, into the stores
// (writing through them does not mark them changed). Call it before
// structural changes in the loop body (see Entity).
func (it *Iter3[A, B, C]) Get() (*A, *B, *C) {
	return elem[A](it.pa, it.c), elem[B](it.pb, it.c), elem[C](it.pc, it.c)
}
