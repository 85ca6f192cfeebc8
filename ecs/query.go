package ecs

import "fmt"

// lookup returns the dense slot of live entity e in s, or -1. hint is the
// dense slot e has in the driving store: when both stores hold the same
// entities in the same order (the common case of entities created with
// both components) the sparse table is not touched.
func (s *Store[T]) lookup(e Entity, hint int) int {
	if uint(hint) < uint(len(s.ents)) && s.ents[hint] == e {
		return hint
	}
	idx := e.Index()
	if uint64(idx) < uint64(len(s.sparse)) {
		// e is alive (it is in the driving store), so any component at its
		// index is e's own: Destroy removes all components.
		return int(s.sparse[idx])
	}
	return -1
}

func mustStore[T any](w *World, fn string) *Store[T] {
	s := StoreOf[T](w)
	if s == nil {
		panic(fmt.Sprintf("ecs: %s: component type %s is not registered", fn, typeName[T]()))
	}
	return s
}

// Query1 iterates the entities having component A. Build it once with
// [NewQuery1] and call Iter every tick.
type Query1[A any] struct {
	a *Store[A]
}

// NewQuery1 returns a query over component A. It panics if A is not
// registered in w.
func NewQuery1[A any](w *World) *Query1[A] {
	return &Query1[A]{a: mustStore[A](w, "NewQuery1")}
}

// Iter starts an iteration (see the package doc for order and the
// mutation rule). It does not allocate.
func (q *Query1[A]) Iter() Iter1[A] {
	return Iter1[A]{a: q.a, i: len(q.a.dense)}
}

// Iter1 is an iteration of a [Query1]: for it := q.Iter(); it.Next(); {...}.
type Iter1[A any] struct {
	a  *Store[A]
	i  int
	e  Entity
	pa *A
}

// Next advances to the next matching entity; false when done.
func (it *Iter1[A]) Next() bool {
	a := it.a
	if it.i > len(a.ents) {
		it.i = len(a.ents)
	}
	if it.i <= 0 {
		return false
	}
	it.i--
	it.e = a.ents[it.i]
	it.pa = &a.dense[it.i]
	return true
}

// Entity returns the current entity.
func (it *Iter1[A]) Entity() Entity { return it.e }

// Get returns a pointer to the current entity's A (writing through it does
// not mark it changed).
func (it *Iter1[A]) Get() *A { return it.pa }

// Query2 iterates the entities having both A and B. Build it once with
// [NewQuery2] and call Iter every tick.
type Query2[A, B any] struct {
	a *Store[A]
	b *Store[B]
}

// NewQuery2 returns a query over components A and B. It panics if one of
// them is not registered in w.
func NewQuery2[A, B any](w *World) *Query2[A, B] {
	return &Query2[A, B]{a: mustStore[A](w, "NewQuery2"), b: mustStore[B](w, "NewQuery2")}
}

// Iter starts an iteration over the smallest of the two stores (see the
// package doc for order and the mutation rule). It does not allocate.
func (q *Query2[A, B]) Iter() Iter2[A, B] {
	it := Iter2[A, B]{a: q.a, b: q.b}
	if len(q.b.dense) < len(q.a.dense) {
		it.driveB = true
		it.i = len(q.b.dense)
	} else {
		it.i = len(q.a.dense)
	}
	return it
}

// Iter2 is an iteration of a [Query2]: for it := q.Iter(); it.Next(); {...}.
type Iter2[A, B any] struct {
	a      *Store[A]
	b      *Store[B]
	driveB bool
	i      int
	e      Entity
	pa     *A
	pb     *B
}

// Next advances to the next entity having both components; false when done.
func (it *Iter2[A, B]) Next() bool {
	a, b := it.a, it.b
	if it.driveB {
		if it.i > len(b.ents) {
			it.i = len(b.ents)
		}
		for it.i > 0 {
			it.i--
			i := it.i
			e := b.ents[i]
			j := a.lookup(e, i)
			if j < 0 {
				continue
			}
			it.e, it.pa, it.pb = e, &a.dense[j], &b.dense[i]
			return true
		}
		return false
	}
	if it.i > len(a.ents) {
		it.i = len(a.ents)
	}
	for it.i > 0 {
		it.i--
		i := it.i
		e := a.ents[i]
		j := b.lookup(e, i)
		if j < 0 {
			continue
		}
		it.e, it.pa, it.pb = e, &a.dense[i], &b.dense[j]
		return true
	}
	return false
}

// Entity returns the current entity.
func (it *Iter2[A, B]) Entity() Entity { return it.e }

// Get returns pointers to the current entity's A and B (writing through
// them does not mark them changed).
func (it *Iter2[A, B]) Get() (*A, *B) { return it.pa, it.pb }

// Query3 iterates the entities having A, B and C. Build it once with
// [NewQuery3] and call Iter every tick.
type Query3[A, B, C any] struct {
	a *Store[A]
	b *Store[B]
	c *Store[C]
}

// NewQuery3 returns a query over components A, B and C. It panics if one of
// them is not registered in w.
func NewQuery3[A, B, C any](w *World) *Query3[A, B, C] {
	return &Query3[A, B, C]{
		a: mustStore[A](w, "NewQuery3"),
		b: mustStore[B](w, "NewQuery3"),
		c: mustStore[C](w, "NewQuery3"),
	}
}

// Iter starts an iteration over the smallest of the three stores (see the
// package doc for order and the mutation rule). It does not allocate.
func (q *Query3[A, B, C]) Iter() Iter3[A, B, C] {
	it := Iter3[A, B, C]{a: q.a, b: q.b, c: q.c}
	na, nb, nc := len(q.a.dense), len(q.b.dense), len(q.c.dense)
	switch {
	case na <= nb && na <= nc:
		it.drive, it.i = 0, na
	case nb <= nc:
		it.drive, it.i = 1, nb
	default:
		it.drive, it.i = 2, nc
	}
	return it
}

// Iter3 is an iteration of a [Query3]: for it := q.Iter(); it.Next(); {...}.
type Iter3[A, B, C any] struct {
	a     *Store[A]
	b     *Store[B]
	c     *Store[C]
	drive int // 0: a, 1: b, 2: c
	i     int
	e     Entity
	pa    *A
	pb    *B
	pc    *C
}

// Next advances to the next entity having the three components; false when
// done.
func (it *Iter3[A, B, C]) Next() bool {
	a, b, c := it.a, it.b, it.c
	var ents []Entity
	switch it.drive {
	case 0:
		ents = a.ents
	case 1:
		ents = b.ents
	default:
		ents = c.ents
	}
	if it.i > len(ents) {
		it.i = len(ents)
	}
	for it.i > 0 {
		it.i--
		i := it.i
		e := ents[i]
		ja := a.lookup(e, i)
		if ja < 0 {
			continue
		}
		jb := b.lookup(e, i)
		if jb < 0 {
			continue
		}
		jc := c.lookup(e, i)
		if jc < 0 {
			continue
		}
		it.e, it.pa, it.pb, it.pc = e, &a.dense[ja], &b.dense[jb], &c.dense[jc]
		return true
	}
	return false
}

// Entity returns the current entity.
func (it *Iter3[A, B, C]) Entity() Entity { return it.e }

// Get returns pointers to the current entity's A, B and C (writing through
// them does not mark them changed).
func (it *Iter3[A, B, C]) Get() (*A, *B, *C) { return it.pa, it.pb, it.pc }
