package ecs

import "testing"

type xIter2[A, B any] struct {
	a       *Store[A]
	b       *Store[B]
	c, lo   int
	da, db  int
	started bool
}

func xIter[A, B any](q *Query2[A, B]) *xIter2[A, B] {
	return &xIter2[A, B]{a: q.a, b: q.b}
}

func (it *xIter2[A, B]) Next() bool {
	if it.c > it.lo {
		it.c--
		return true
	}
	return it.next()
}

func (it *xIter2[A, B]) next() bool {
	ae, be := it.a.ents, it.b.ents
	if !it.started {
		it.started = true
		it.c = min(len(ae), len(be))
	}
	for it.c > 0 {
		it.c--
		i := it.c
		if i < len(ae) && i < len(be) && ae[i] == be[i] {
			lo := i
			for lo > 0 && lo > i-256 && lo-1 < len(ae) && lo-1 < len(be) && ae[lo-1] == be[lo-1] {
				lo--
			}
			it.lo, it.da, it.db = lo, 0, 0
			return true
		}
	}
	return false
}

func (it *xIter2[A, B]) Get() (*A, *B) { return &it.a.dense[it.c+it.da], &it.b.dense[it.c+it.db] }

func BenchmarkXForm(b *testing.B) {
	w, _ := benchWorld(10000)
	q := NewQuery2[position, velocity](w)
	b.ReportAllocs()
	for b.Loop() {
		for it := xIter(q); it.Next(); {
			p, v := it.Get()
			p.X += v.X
			p.Y += v.Y
		}
	}
}
func BenchmarkXFormOuter(b *testing.B) {
	w, _ := benchWorld(10000)
	q := NewQuery2[position, velocity](w)
	b.ReportAllocs()
	for b.Loop() {
		it := xIter(q)
		for it.Next() {
			p, v := it.Get()
			p.X += v.X
			p.Y += v.Y
		}
	}
}
