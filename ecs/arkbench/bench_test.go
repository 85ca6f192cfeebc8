// Package arkbench compares the query speed of github.com/rtype/rtype/ecs
// with github.com/mlange-42/ark on the same Position+Velocity workload
// (pos += vel over every entity). It is a separate module so that the main
// module does not depend on ark.
//
//	cd ecs/arkbench && go test -run x -bench . -benchtime=0.3s
package arkbench

import (
	"strconv"
	"testing"

	"github.com/mlange-42/ark/ecs"
	ours "github.com/rtype/rtype/ecs"
)

// Position in virtual px, Velocity in px/tick: the same 8-byte layout in
// both ECSs.
type Position struct{ X, Y float32 }
type Velocity struct{ X, Y float32 }

var sizes = []int{10_000, 100_000}

// BenchmarkQueryPosVel/ours|ark/N: one op = one pass of pos += vel over N
// entities having both components.
func BenchmarkQueryPosVel(b *testing.B) {
	for _, n := range sizes {
		b.Run("ours/"+strconv.Itoa(n), func(b *testing.B) {
			w := ours.NewWorld()
			ps := ours.Register[Position](w, 1, nil, 0)
			vs := ours.Register[Velocity](w, 2, nil, 0)
			for i := range n {
				e := w.Create()
				ps.Set(e, Position{float32(i), 0})
				vs.Set(e, Velocity{1, 0.5})
			}
			q := ours.NewQuery2[Position, Velocity](w)
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
		b.Run("ark/"+strconv.Itoa(n), func(b *testing.B) {
			w := ecs.NewWorld(1024)
			m := ecs.NewMap2[Position, Velocity](w)
			i := 0
			m.NewBatchFn(n, func(_ ecs.Entity, p *Position, v *Velocity) {
				*p = Position{float32(i), 0}
				*v = Velocity{1, 0.5}
				i++
			})
			f := ecs.NewFilter2[Position, Velocity](w)
			b.ReportAllocs()
			for b.Loop() {
				q := f.Query()
				for q.Next() {
					p, v := q.Get()
					p.X += v.X
					p.Y += v.Y
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entity")
		})
	}
}

// BenchmarkQueryPosVelChurn/ours|ark/N: like BenchmarkQueryPosVel, but each
// op first destroys one entity and creates a replacement with both
// components (a tick of a game always has some structural change), so no
// per-query cache of the previous pass can be reused.
func BenchmarkQueryPosVelChurn(b *testing.B) {
	for _, n := range sizes {
		b.Run("ours/"+strconv.Itoa(n), func(b *testing.B) {
			w := ours.NewWorld()
			ps := ours.Register[Position](w, 1, nil, 0)
			vs := ours.Register[Velocity](w, 2, nil, 0)
			es := make([]ours.Entity, n)
			for i := range es {
				es[i] = w.Create()
				ps.Set(es[i], Position{float32(i), 0})
				vs.Set(es[i], Velocity{1, 0.5})
			}
			q := ours.NewQuery2[Position, Velocity](w)
			b.ReportAllocs()
			k := 0
			for b.Loop() {
				k = (k + 7919) % n
				w.Destroy(es[k])
				e := w.Create()
				ps.Set(e, Position{})
				vs.Set(e, Velocity{1, 0.5})
				es[k] = e
				w.ClearEvents()
				for it := q.Iter(); it.Next(); {
					p, v := it.Get()
					p.X += v.X
					p.Y += v.Y
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entity")
		})
		b.Run("ark/"+strconv.Itoa(n), func(b *testing.B) {
			w := ecs.NewWorld(1024)
			m := ecs.NewMap2[Position, Velocity](w)
			es := make([]ecs.Entity, 0, n)
			i := 0
			m.NewBatchFn(n, func(e ecs.Entity, p *Position, v *Velocity) {
				*p = Position{float32(i), 0}
				*v = Velocity{1, 0.5}
				es = append(es, e)
				i++
			})
			f := ecs.NewFilter2[Position, Velocity](w)
			b.ReportAllocs()
			k := 0
			for b.Loop() {
				k = (k + 7919) % n
				w.RemoveEntity(es[k])
				es[k] = m.NewEntity(&Position{}, &Velocity{1, 0.5})
				q := f.Query()
				for q.Next() {
					p, v := q.Get()
					p.X += v.X
					p.Y += v.Y
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entity")
		})
	}
}
