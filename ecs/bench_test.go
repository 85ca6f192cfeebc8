package ecs

import (
	"strconv"
	"testing"
)

// benchWorld builds n entities with position and velocity (dense orders
// identical, the layout of a freshly spawned world).
func benchWorld(n int) (*World, testStores) {
	w, s := newTestWorld()
	for i := range n {
		e := w.Create()
		s.pos.Set(e, position{float32(i), 0})
		s.vel.Set(e, velocity{1, 0.5})
	}
	return w, s
}

// BenchmarkQuery2PosVel: pos += vel over every entity; one op = one full
// pass over n entities.
func BenchmarkQuery2PosVel(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			w, _ := benchWorld(n)
			q := NewQuery2[position, velocity](w)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				for it := q.Iter(); it.Next(); {
					p, v := it.Get()
					p.X += v.X
					p.Y += v.Y
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entity")
		})
	}
}

// BenchmarkQuery3PosVelHealth: pos += vel for entities that also have
// health (every entity here); one op = one pass over n entities.
func BenchmarkQuery3PosVelHealth(b *testing.B) {
	const n = 10_000
	w, s := benchWorld(n)
	w.Each(func(e Entity) { s.hp.Set(e, health{1, 1}) })
	q := NewQuery3[position, velocity, health](w)
	b.ReportAllocs()
	for b.Loop() {
		for it := q.Iter(); it.Next(); {
			p, v, h := it.Get()
			p.X += v.X
			p.Y += v.Y
			h.HP++
		}
	}
}

// BenchmarkQuery2PosVelShuffled: same, but the velocity store's dense order
// differs from the position store's (every lookup goes through the sparse
// table), and one entity in 4 has no velocity.
func BenchmarkQuery2PosVelShuffled(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			w, s := newTestWorld()
			es := make([]Entity, n)
			for i := range es {
				es[i] = w.Create()
				s.pos.Set(es[i], position{float32(i), 0})
			}
			for i := n - 1; i >= 0; i-- {
				if i%4 != 0 {
					s.vel.Set(es[i], velocity{1, 0.5})
				}
			}
			q := NewQuery2[position, velocity](w)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				for it := q.Iter(); it.Next(); {
					p, v := it.Get()
					p.X += v.X
					p.Y += v.Y
				}
			}
		})
	}
}

// BenchmarkQuery2PosVelPartial: every entity has a position, one in 8
// (every 8th spawned) has no velocity, so the velocity store lists the same
// entities as the position store in the same order, but at shifted slots
// (runs with an offset). One op = one pass; 87.5% of the entities match.
func BenchmarkQuery2PosVelPartial(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			w, s := newTestWorld()
			for i := range n {
				e := w.Create()
				s.pos.Set(e, position{float32(i), 0})
				if i%8 != 0 {
					s.vel.Set(e, velocity{1, 0.5})
				}
			}
			q := NewQuery2[position, velocity](w)
			b.ReportAllocs()
			for b.Loop() {
				for it := q.Iter(); it.Next(); {
					p, v := it.Get()
					p.X += v.X
					p.Y += v.Y
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entity")
		})
	}
}

// BenchmarkCreateDestroy: one op = Create + Set(pos) + Set(vel) + Destroy
// in a world of 10k entities; "tracked" has a Query2[position, velocity]
// registered (its pair tracker is updated on every add and removal).
func BenchmarkCreateDestroy(b *testing.B) {
	for _, tracked := range []bool{false, true} {
		name := "plain"
		if tracked {
			name = "tracked"
		}
		b.Run(name, func(b *testing.B) {
			w, s := benchWorld(10_000)
			if tracked {
				NewQuery2[position, velocity](w)
			}
			b.ReportAllocs()
			for b.Loop() {
				e := w.Create()
				s.pos.Set(e, position{1, 2})
				s.vel.Set(e, velocity{3, 4})
				w.Destroy(e)
				w.ClearEvents()
			}
		})
	}
}

// BenchmarkAddRemove: one op = Set (add) + Remove of a health component on
// an existing entity in a world of 10k entities.
func BenchmarkAddRemove(b *testing.B) {
	w, s := benchWorld(10_000)
	var es []Entity
	w.Each(func(e Entity) { es = append(es, e) })
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		e := es[i%len(es)]
		s.hp.Set(e, health{1, 2})
		s.hp.Remove(e)
		w.ClearEvents()
		i++
	}
}
