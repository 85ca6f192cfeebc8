package ecs

import "testing"

func populate(w *World, s testStores, n int) {
	for i := range n {
		e := w.Create()
		s.pos.Set(e, position{float32(i), 0})
		s.vel.Set(e, velocity{1, 2})
		if i%2 == 0 {
			s.hp.Set(e, health{1, 1})
		}
	}
}

func TestQueryIterationAllocatesNothing(t *testing.T) {
	w, s := newTestWorld()
	populate(w, s, 1000)
	q1 := NewQuery1[position](w)
	q2 := NewQuery2[position, velocity](w)
	q3 := NewQuery3[position, velocity, health](w)
	n := 0
	allocs := testing.AllocsPerRun(50, func() {
		for it := q1.Iter(); it.Next(); {
			it.Get().X++
			n++
		}
		for it := q2.Iter(); it.Next(); {
			p, v := it.Get()
			p.X += v.X
			n++
		}
		for it := q3.Iter(); it.Next(); {
			_, _, h := it.Get()
			h.HP++
			n++
		}
	})
	if allocs != 0 {
		t.Fatalf("query iteration: %v allocs/run, want 0", allocs)
	}
	if n == 0 {
		t.Fatal("queries visited nothing")
	}
}

func TestCreateDestroySteadyStateAllocatesNothing(t *testing.T) {
	w, s := newTestWorld()
	populate(w, s, 100)
	es := make([]Entity, 0, 64)
	cycle := func() {
		for range 64 {
			e := w.Create()
			s.pos.Set(e, position{})
			s.vel.Set(e, velocity{})
			es = append(es, e)
		}
		for _, e := range es {
			w.Destroy(e)
		}
		es = es[:0]
		w.ClearEvents()
	}
	cycle() // grow to peak
	if allocs := testing.AllocsPerRun(50, cycle); allocs != 0 {
		t.Fatalf("Create/Destroy steady state: %v allocs/run, want 0", allocs)
	}
}

func TestSetRemoveSteadyStateAllocatesNothing(t *testing.T) {
	w, s := newTestWorld()
	populate(w, s, 200)
	var es []Entity
	w.Each(func(e Entity) { es = append(es, e) })
	cycle := func() {
		for _, e := range es {
			s.hp.Set(e, health{2, 3})
			s.pos.Set(e, position{1, 1})
			s.pos.Mut(e).X++
			s.pos.MarkChanged(e)
		}
		for _, e := range es {
			s.hp.Remove(e)
		}
		w.ClearEvents()
	}
	cycle()
	if allocs := testing.AllocsPerRun(50, cycle); allocs != 0 {
		t.Fatalf("Set/Remove steady state: %v allocs/run, want 0", allocs)
	}
}

func TestWireSteadyStateAllocatesNothing(t *testing.T) {
	w, s := newTestWorld()
	populate(w, s, 10)
	var es []Entity
	w.Each(func(e Entity) { es = append(es, e) })
	buf := make([]byte, 0, 256)
	stores := w.Stores()
	var err error
	allocs := testing.AllocsPerRun(50, func() {
		for _, e := range es {
			buf = buf[:0]
			for _, st := range stores {
				if st.Has(e) && st.Size() > 0 {
					off := len(buf)
					buf = st.AppendWire(buf, e)
					if err = st.SetWire(e, buf[off:]); err != nil {
						return
					}
				}
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if allocs != 0 {
		t.Fatalf("AppendWire/SetWire: %v allocs/run, want 0", allocs)
	}
}
