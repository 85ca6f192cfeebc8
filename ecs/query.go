package ecs

import (
	"bytes"
	"fmt"
	"unsafe"
)

// Iteration strategy (all queries). An iterator walks the dense slots of
// its driving store (the smallest store at the first Next) backwards. For
// each match it also finds the run of slots below it where the stores list
// the same entities in the same order (at the same slots when entities are
// spawned with all their components and destroyed whole; at shifted slots
// when the driving store holds a subsequence of the other's). Inside a run
// Next only decrements a cursor and Get is two pointer computations, as in
// an archetype ECS. A run is at most runMax slots long; when the query's
// pairTrackers count no misaligned slot, same-slot runs need no checking,
// otherwise a run is validated with memory compares of the entity arrays.
// A match found alone through the sparse table is a run of one.
//
// Any component removal in the world may move dense slots, and any add may
// reallocate a dense slice (Get uses the dense addresses cached when the
// run was taken), so both must end the current run; yet the fast path of Next
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

// alignedRun returns the lowest lo >= i-runMax+1 (and >= 0) such that
// slots lo..i of x and y hold the same entities. Slot i must be aligned.
// It checks the slot just below first (runs of one are common when the
// stores are in unrelated orders), then windows growing 8x at a time, each
// with one vectorised memory compare, then finishes slot by slot.
func alignedRun(x, y []Entity, i int) int {
	if i >= len(x) || i >= len(y) {
		return i
	}
	lim := max(i-runMax+1, 0)
	lo := i
	if lo > lim && x[lo-1] != y[lo-1] {
		return lo
	}
	for step := 8; lo > lim; step *= 8 {
		from := max(lo-step, lim)
		if !entitiesEqual(x[from:lo], y[from:lo]) {
			break
		}
		lo = from
	}
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
// nil and i is 0). Iterators cache the address of a dense slice element
// (its first one, or the first one of a shifted run) when they take a run,
// and only pass indices that kept the slot below the slice's length then,
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
//
// The iterator is always inside a run: slots c+offA of a and c+offB of b
// hold the current entity, and so do the slots below them down to lo (the
// two stores list the same entities there, possibly at shifted slots).
// pa and pb are the addresses of a.dense[offA] and b.dense[offB], so Get
// is two pointer computations. offA or offB is 0; a match found alone
// through the sparse table is a run of length 1.
type Iter2[A, B any] struct {
	w          *World
	a          *Store[A]
	b          *Store[B]
	pa, pb     unsafe.Pointer // &a.dense[offA], &b.dense[offB]; nil outside a step
	c          int            // run cursor: the current entity is at slot c+offA of a, c+offB of b
	lo         int64          // slots lo..c-1 (same offsets) are still to visit; stored minus w.epoch
	offA, offB int
	ab         *pairTracker
	started    bool
	driveB     bool // b is the driving store (else a)
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

// next is the slow path of Next: it finds the next match in the driving
// store and the run of matching slots below it.
func (it *Iter2[A, B]) next() bool {
	ae, be := it.a.ents, it.b.ents
	var cur int // slot of the last visited entity in the driving store
	if !it.started {
		it.started = true
		it.driveB = len(be) < len(ae)
		cur = min(len(ae), len(be))
	} else if it.driveB {
		cur = it.c + it.offB
	} else {
		cur = it.c + it.offA
	}
	drive, other := ae, be
	if it.driveB {
		drive, other = be, ae
	}
	cur = min(cur, len(drive))
	for cur > 0 {
		cur--
		e := drive[cur]
		j := cur // slot of e in the other store
		if j >= len(other) || other[j] != e {
			if it.driveB {
				j = it.a.slotOfLive(e.Index())
			} else {
				j = it.b.slotOfLive(e.Index())
			}
			if j < 0 {
				continue
			}
		}
		ja, jb := cur, j
		if it.driveB {
			ja, jb = j, cur
		}
		m := min(ja, jb)
		it.offA, it.offB = ja-m, jb-m
		lo := max(m-runMax+1, 0)
		if it.offA != 0 || it.offB != 0 || it.ab.mismatch != 0 {
			lo = m // a run of one unless the slots below match too
			if m > 0 && ae[it.offA+m-1] == be[it.offB+m-1] {
				lo = alignedRun(ae[it.offA:], be[it.offB:], m)
			}
		}
		it.pa, it.pb = unsafe.Pointer(&it.a.dense[it.offA]), unsafe.Pointer(&it.b.dense[it.offB])
		it.c, it.lo = m, int64(lo)-it.w.epoch
		return true
	}
	it.c, it.offA, it.offB = 0, 0, 0
	it.lo, it.pa, it.pb = -it.w.epoch, nil, nil
	return false
}

// Entity returns the current entity (Nil outside an iteration step). Like
// Get, it describes the current entity only until the loop body removes a
// component or destroys an entity: read it first.
func (it *Iter2[A, B]) Entity() Entity {
	if i := it.c + it.offA; it.pa != nil && uint(i) < uint(len(it.a.ents)) {
		return it.a.ents[i]
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

// Iter3 is an iteration of a [Query3]; it works like [Iter2] with three
// stores.
type Iter3[A, B, C any] struct {
	w                *World
	a                *Store[A]
	b                *Store[B]
	s                *Store[C]
	pa, pb, pc       unsafe.Pointer // &a.dense[offA], &b.dense[offB], &s.dense[offC]
	c                int            // run cursor: the current entity is at slot c+offX of each store
	lo               int64          // slots lo..c-1 (same offsets) are still to visit; stored minus w.epoch
	offA, offB, offC int
	ab, ac           *pairTracker
	started          bool
	drive            uint8 // 0: a, 1: b, 2: s
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

// next is the slow path of Next: it finds the next match in the driving
// store and the run of matching slots below it.
func (it *Iter3[A, B, C]) next() bool {
	ae, be, ce := it.a.ents, it.b.ents, it.s.ents
	var cur int // slot of the last visited entity in the driving store
	if !it.started {
		it.started = true
		na, nb, nc := len(ae), len(be), len(ce)
		switch {
		case na <= nb && na <= nc:
			it.drive, cur = 0, na
		case nb <= nc:
			it.drive, cur = 1, nb
		default:
			it.drive, cur = 2, nc
		}
	} else {
		switch it.drive {
		case 0:
			cur = it.c + it.offA
		case 1:
			cur = it.c + it.offB
		default:
			cur = it.c + it.offC
		}
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
	cur = min(cur, len(drive))
	for cur > 0 {
		cur--
		e := drive[cur]
		ja := slotIn(ae, cur, e, it.a.sparse)
		jb := slotIn(be, cur, e, it.b.sparse)
		jc := slotIn(ce, cur, e, it.s.sparse)
		if ja < 0 || jb < 0 || jc < 0 {
			continue
		}
		m := min(ja, jb, jc)
		it.offA, it.offB, it.offC = ja-m, jb-m, jc-m
		lo := max(m-runMax+1, 0)
		if it.offA != 0 || it.offB != 0 || it.ab.mismatch != 0 {
			lo = m // a run of one unless the slots below match too
			if m > 0 && ae[it.offA+m-1] == be[it.offB+m-1] {
				lo = alignedRun(ae[it.offA:], be[it.offB:], m)
			}
		}
		if lo < m && (it.offA != 0 || it.offC != 0 || it.ac.mismatch != 0) {
			lc := m
			if ae[it.offA+m-1] == ce[it.offC+m-1] {
				lc = alignedRun(ae[it.offA:], ce[it.offC:], m)
			}
			lo = max(lo, lc)
		}
		it.pa = unsafe.Pointer(&it.a.dense[it.offA])
		it.pb = unsafe.Pointer(&it.b.dense[it.offB])
		it.pc = unsafe.Pointer(&it.s.dense[it.offC])
		it.c, it.lo = m, int64(lo)-it.w.epoch
		return true
	}
	it.c, it.offA, it.offB, it.offC = 0, 0, 0, 0
	it.lo, it.pa, it.pb, it.pc = -it.w.epoch, nil, nil, nil
	return false
}

// slotIn returns the dense slot of live entity e in a store with entity
// array ents and sparse table sparse, trying slot hint first; -1 if absent.
func slotIn(ents []Entity, hint int, e Entity, sparse []int32) int {
	if hint < len(ents) && ents[hint] == e {
		return hint
	}
	if idx := e.Index(); uint64(idx) < uint64(len(sparse)) {
		return int(sparse[idx])
	}
	return -1
}

// Entity returns the current entity (Nil outside an iteration step). Like
// Get, it describes the current entity only until the loop body removes a
// component or destroys an entity: read it first.
func (it *Iter3[A, B, C]) Entity() Entity {
	if i := it.c + it.offA; it.pa != nil && uint(i) < uint(len(it.a.ents)) {
		return it.a.ents[i]
	}
	return Nil
}

// Get returns pointers to the current entity's A, B and C, into the stores
// (writing through them does not mark them changed). Call it before
// structural changes in the loop body (see Entity).
func (it *Iter3[A, B, C]) Get() (*A, *B, *C) {
	return elem[A](it.pa, it.c), elem[B](it.pb, it.c), elem[C](it.pc, it.c)
}
