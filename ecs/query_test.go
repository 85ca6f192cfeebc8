package ecs

import (
	"slices"
	"testing"
)

// collect2 returns the entities visited by a Query2 iteration.
func collect2[A, B any](q *Query2[A, B]) []Entity {
	var out []Entity
	for it := q.Iter(); it.Next(); {
		out = append(out, it.Entity())
	}
	return out
}

func sorted(es []Entity) []Entity {
	out := slices.Clone(es)
	slices.Sort(out)
	return out
}

func TestQuery1(t *testing.T) {
	w, s := newTestWorld()
	var want []Entity
	for i := range 10 {
		e := w.Create()
		if i%3 != 0 {
			s.pos.Set(e, position{float32(i), 0})
			want = append(want, e)
		}
	}
	q := NewQuery1[position](w)
	var got []Entity
	for it := q.Iter(); it.Next(); {
		e := it.Entity()
		if p := it.Get(); p != s.pos.Get(e) {
			t.Fatalf("Get for %#x does not point into storage", uint64(e))
		}
		got = append(got, e)
	}
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Fatalf("Query1 visited %v, want %v", got, want)
	}
	// Empty store: no iteration.
	if it := NewQuery1[health](w).Iter(); it.Next() {
		t.Fatal("query over empty store yielded an entity")
	}
}

func TestQuery2SkipsAndPointers(t *testing.T) {
	for _, velFirst := range []bool{false, true} {
		w, s := newTestWorld()
		var want []Entity
		for i := range 20 {
			e := w.Create()
			hasPos, hasVel := i%2 == 0, i%3 == 0
			if velFirst && hasVel {
				s.vel.Set(e, velocity{float32(i), 1})
			}
			if hasPos {
				s.pos.Set(e, position{float32(i), 0})
			}
			if !velFirst && hasVel {
				s.vel.Set(e, velocity{float32(i), 1})
			}
			if hasPos && hasVel {
				want = append(want, e)
			}
		}
		q := NewQuery2[position, velocity](w)
		var got []Entity
		for it := q.Iter(); it.Next(); {
			e := it.Entity()
			p, v := it.Get()
			if p != s.pos.Get(e) || v != s.vel.Get(e) {
				t.Fatalf("pointers for %#x are not the stored components", uint64(e))
			}
			p.X += v.X
			got = append(got, e)
		}
		if !slices.Equal(sorted(got), sorted(want)) {
			t.Fatalf("velFirst=%v: visited %v, want %v", velFirst, got, want)
		}
		for _, e := range want {
			if p := s.pos.Get(e); p.X != 2*s.vel.Get(e).X {
				t.Fatalf("write through query pointer lost for %#x", uint64(e))
			}
		}
		// Reversed type order gives the same set.
		if got2 := collect2(NewQuery2[velocity, position](w)); !slices.Equal(sorted(got2), sorted(want)) {
			t.Fatalf("Query2[vel,pos] visited %v", got2)
		}
	}
}

func TestQuery3(t *testing.T) {
	w, s := newTestWorld()
	var want []Entity
	for i := range 30 {
		e := w.Create()
		if i%2 == 0 {
			s.pos.Set(e, position{})
		}
		if i%3 == 0 {
			s.vel.Set(e, velocity{})
		}
		if i%5 != 1 {
			s.hp.Set(e, health{uint16(i), 100})
		}
		if i%2 == 0 && i%3 == 0 && i%5 != 1 {
			want = append(want, e)
		}
	}
	// Make each store the smallest in turn by padding the others.
	for round := range 3 {
		var got []Entity
		q := NewQuery3[position, velocity, health](w)
		for it := q.Iter(); it.Next(); {
			e := it.Entity()
			p, v, h := it.Get()
			if p != s.pos.Get(e) || v != s.vel.Get(e) || h != s.hp.Get(e) {
				t.Fatal("Query3 pointers wrong")
			}
			got = append(got, e)
		}
		if !slices.Equal(sorted(got), sorted(want)) {
			t.Fatalf("round %d: Query3 visited %v, want %v", round, got, want)
		}
		for range 40 {
			e := w.Create()
			switch round {
			case 0:
				s.hp.Set(e, health{})
			case 1:
				s.pos.Set(e, position{})
			}
		}
	}
}

func TestQueryOrderDeterministic(t *testing.T) {
	build := func() (*World, testStores) {
		w, s := newTestWorld()
		var es []Entity
		for i := range 50 {
			e := w.Create()
			es = append(es, e)
			s.pos.Set(e, position{float32(i), 0})
			if i%4 != 1 {
				s.vel.Set(e, velocity{})
			}
		}
		for i := 0; i < 50; i += 7 {
			w.Destroy(es[i])
		}
		for i := 0; i < 50; i += 5 {
			s.vel.Remove(es[i])
		}
		for range 6 {
			e := w.Create()
			s.vel.Set(e, velocity{})
			s.pos.Set(e, position{})
		}
		return w, s
	}
	w1, _ := build()
	w2, _ := build()
	a := collect2(NewQuery2[position, velocity](w1))
	b := collect2(NewQuery2[position, velocity](w2))
	if len(a) == 0 || !slices.Equal(a, b) {
		t.Fatalf("same operations gave different orders:\n%v\n%v", a, b)
	}
	if c := collect2(NewQuery2[position, velocity](w1)); !slices.Equal(a, c) {
		t.Fatal("iterating twice gave different orders")
	}
}

// TestMutationDuringIteration checks the documented rule: the current
// entity may be destroyed or lose components, components may be added and
// entities created; every pre-existing match is visited exactly once.
func TestMutationDuringIteration(t *testing.T) {
	w, s := newTestWorld()
	var all []Entity
	for i := range 100 {
		e := w.Create()
		all = append(all, e)
		s.pos.Set(e, position{float32(i), 0})
		s.vel.Set(e, velocity{1, 0})
	}
	q := NewQuery2[position, velocity](w)
	visits := map[Entity]int{}
	var created []Entity
	for it := q.Iter(); it.Next(); {
		e := it.Entity()
		visits[e]++
		p, _ := it.Get()
		switch int(p.X) % 4 {
		case 0:
			w.Destroy(e)
		case 1:
			s.pos.Remove(e)
		case 2:
			s.vel.Remove(e)
			s.hp.Set(e, health{1, 1})
		case 3:
			n := w.Create()
			created = append(created, n)
			s.pos.Set(n, position{})
			s.vel.Set(n, velocity{})
		}
	}
	for _, e := range all {
		if visits[e] != 1 {
			t.Fatalf("entity %#x visited %d times", uint64(e), visits[e])
		}
	}
	if len(visits) != len(all) {
		t.Fatalf("visited %d entities, want %d (created ones are not visited)", len(visits), len(all))
	}
	// Storage is consistent: the 25 survivors of case 3 plus the created ones.
	got := collect2(q)
	want := append(slices.Clone(created), nil...)
	for _, e := range all {
		if w.Alive(e) && s.pos.Has(e) && s.vel.Has(e) {
			want = append(want, e)
		}
	}
	if len(want) != 50 || !slices.Equal(sorted(got), sorted(want)) {
		t.Fatalf("after mutation: %d matches, want %d", len(got), len(want))
	}
	for _, e := range got {
		if s.pos.Get(e) == nil || s.vel.Get(e) == nil {
			t.Fatal("inconsistent stores after mutation")
		}
	}

	// Query1: destroying the current entity visits every entity once.
	n := 0
	q1 := NewQuery1[position](w)
	for it := q1.Iter(); it.Next(); {
		n++
		w.Destroy(it.Entity())
	}
	if n != 75 || s.pos.Len() != 0 {
		t.Fatalf("Query1 destroy-all visited %d (pos left %d)", n, s.pos.Len())
	}
}

func TestQueryNoPanicOnForbiddenMutation(t *testing.T) {
	// Removing OTHER entities is outside the rule; it must still not panic.
	w, s := newTestWorld()
	for range 10 {
		e := w.Create()
		s.pos.Set(e, position{})
		s.vel.Set(e, velocity{})
	}
	q := NewQuery3[position, velocity, health](w)
	q2 := NewQuery2[position, velocity](w)
	for it := q2.Iter(); it.Next(); {
		var victims []Entity
		for jt := q2.Iter(); jt.Next(); {
			victims = append(victims, jt.Entity())
		}
		for _, v := range victims {
			w.Destroy(v)
		}
	}
	for it := q.Iter(); it.Next(); {
		t.Fatal("no entity has health")
	}
}

func TestIteratorOutsideSteps(t *testing.T) {
	w, s := newTestWorld()
	for range 3 {
		e := w.Create()
		s.pos.Set(e, position{})
		s.vel.Set(e, velocity{})
		s.hp.Set(e, health{})
	}
	it1 := NewQuery1[position](w).Iter()
	it2 := NewQuery2[position, velocity](w).Iter()
	it3 := NewQuery3[position, velocity, health](w).Iter()
	if it1.Entity() != Nil || it2.Entity() != Nil || it3.Entity() != Nil {
		t.Fatal("Entity before Next is not Nil")
	}
	for it1.Next() {
	}
	for it2.Next() {
	}
	for it3.Next() {
	}
	if it1.Entity() != Nil || it2.Entity() != Nil || it3.Entity() != Nil {
		t.Fatal("Entity after the end is not Nil")
	}
	if it1.Next() || it2.Next() || it3.Next() {
		t.Fatal("Next after the end returned true")
	}
}

type marker struct{}

func TestZeroSizeComponent(t *testing.T) {
	w, s := newTestWorld()
	mk := Register[marker](w, 9, nil, 0)
	var want []Entity
	for i := range 20 {
		e := w.Create()
		s.pos.Set(e, position{float32(i), 0})
		if i%2 == 0 {
			mk.Set(e, marker{})
			want = append(want, e)
		}
	}
	var got []Entity
	for it := NewQuery2[marker, position](w).Iter(); it.Next(); {
		m, p := it.Get()
		e := it.Entity()
		if m == nil || p != s.pos.Get(e) || !mk.Has(e) {
			t.Fatalf("entity %#x: bad pointers", uint64(e))
		}
		*m = marker{}
		got = append(got, e)
	}
	if !slices.Equal(sorted(got), sorted(want)) {
		t.Fatalf("visited %v, want %v", got, want)
	}
	if w.Signature(want[0])&(1<<9) == 0 || !mk.Remove(want[0]) || mk.Len() != len(want)-1 {
		t.Fatal("zero-size store bookkeeping")
	}
}
