package ecs

import (
	"math/rand/v2"
	"testing"
)

// randomWorld builds a world whose stores have partly aligned, partly
// shuffled dense orders, with gaps from destroyed entities and removed
// components.
func randomWorld(r *rand.Rand, n int) (*World, testStores, []Entity) {
	w, s := newTestWorld()
	var es []Entity
	for range n {
		e := w.Create()
		es = append(es, e)
		switch r.IntN(4) {
		case 0: // spawned with everything, aligned
			s.pos.Set(e, position{})
			s.vel.Set(e, velocity{})
			s.hp.Set(e, health{1, 1})
		case 1:
			s.vel.Set(e, velocity{})
			s.pos.Set(e, position{})
		case 2:
			s.pos.Set(e, position{})
		default:
			s.hp.Set(e, health{})
			if r.IntN(2) == 0 {
				s.vel.Set(e, velocity{})
			}
		}
	}
	for range n / 5 {
		e := es[r.IntN(len(es))]
		switch r.IntN(3) {
		case 0:
			w.Destroy(e)
		case 1:
			s.vel.Remove(e)
		default:
			s.pos.Remove(e)
		}
	}
	for range n / 5 { // re-add in another order
		e := es[r.IntN(len(es))]
		s.vel.Set(e, velocity{})
		s.pos.Set(e, position{})
	}
	return w, s, es
}

// TestQueryRandomAgainstModel checks Query2 and Query3 against Has on
// random worlds, with the loop body applying random allowed mutations:
// destroy the current entity, remove its components, add components to
// any entity (growing the stores), create entities.
func TestQueryRandomAgainstModel(t *testing.T) {
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 7))
		w, s, es := randomWorld(r, 50+r.IntN(400))

		want := map[Entity]bool{}
		w.Each(func(e Entity) {
			if s.pos.Has(e) && s.vel.Has(e) {
				want[e] = true
			}
		})
		seen := map[Entity]int{}
		// Even seeds: position drives; odd seeds: Query2[velocity, position].
		type visit struct {
			e    Entity
			p    *position
			v    *velocity
			more bool
		}
		var next func() visit
		if seed%2 == 0 {
			it := NewQuery2[position, velocity](w).Iter()
			next = func() visit {
				if !it.Next() {
					return visit{}
				}
				p, v := it.Get()
				return visit{it.Entity(), p, v, true}
			}
		} else {
			it := NewQuery2[velocity, position](w).Iter()
			next = func() visit {
				if !it.Next() {
					return visit{}
				}
				v, p := it.Get()
				return visit{it.Entity(), p, v, true}
			}
		}
		for vis := next(); vis.more; vis = next() {
			e, p, v := vis.e, vis.p, vis.v
			if !w.Alive(e) || p != s.pos.Get(e) || v != s.vel.Get(e) {
				t.Fatalf("seed %d: entity %#x: pointers do not match the stores", seed, uint64(e))
			}
			p.X++ // visible in the store
			seen[e]++
			switch r.IntN(6) {
			case 0:
				w.Destroy(e)
			case 1:
				s.pos.Remove(e)
			case 2:
				s.vel.Remove(e)
			case 3: // add to another entity and spawn new ones (reallocation)
				for range 1 + r.IntN(20) {
					n := w.Create()
					s.pos.Set(n, position{})
					s.vel.Set(n, velocity{})
				}
				s.hp.Set(es[r.IntN(len(es))], health{})
			}
		}
		for e := range want {
			if seen[e] != 1 {
				t.Fatalf("seed %d: initial match %#x visited %d times", seed, uint64(e), seen[e])
			}
		}
		for e, n := range seen {
			if n != 1 {
				t.Fatalf("seed %d: %#x visited %d times", seed, uint64(e), n)
			}
			if !want[e] {
				t.Fatalf("seed %d: %#x visited but created during the iteration", seed, uint64(e))
			}
			if w.Alive(e) && s.pos.Has(e) && s.pos.Get(e).X != 1 {
				t.Fatalf("seed %d: write through Get lost for %#x", seed, uint64(e))
			}
		}

		// Query3 on the mutated world, no mutation: exactly the model.
		want3 := map[Entity]bool{}
		w.Each(func(e Entity) {
			if s.pos.Has(e) && s.vel.Has(e) && s.hp.Has(e) {
				want3[e] = true
			}
		})
		got3 := 0
		for it := NewQuery3[position, velocity, health](w).Iter(); it.Next(); {
			e := it.Entity()
			p, v, h := it.Get()
			if !want3[e] || p != s.pos.Get(e) || v != s.vel.Get(e) || h != s.hp.Get(e) {
				t.Fatalf("seed %d: Query3 visited %#x wrongly", seed, uint64(e))
			}
			got3++
		}
		if got3 != len(want3) {
			t.Fatalf("seed %d: Query3 visited %d, want %d", seed, got3, len(want3))
		}
	}
}

// TestQueryRuleViolationStaysConsistent: destroying OTHER entities during
// an iteration is outside the rule (entities may be skipped), but the
// iterator must never panic nor hand out pointers of another entity.
func TestQueryRuleViolationStaysConsistent(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 9))
		w, s, es := randomWorld(r, 300)
		q := NewQuery2[position, velocity](w)
		q1 := NewQuery1[velocity](w)
		for it := q.Iter(); it.Next(); {
			e := it.Entity()
			p, v := it.Get()
			if p != s.pos.Get(e) || v != s.vel.Get(e) {
				t.Fatalf("seed %d: pointers of %#x belong to another entity", seed, uint64(e))
			}
			for range 3 {
				w.Destroy(es[r.IntN(len(es))])
			}
		}
		for it := q1.Iter(); it.Next(); {
			e := it.Entity()
			if it.Get() != s.vel.Get(e) {
				t.Fatalf("seed %d: Query1 pointer mismatch", seed)
			}
			s.vel.Remove(es[r.IntN(len(es))])
		}
	}
}

// TestQueryRunEndsOnRemoval: slots 0..9 are aligned in both stores, the
// last slots hold different entities; destroying an aligned entity from
// inside the loop moves those into its slots, which must not be read as an
// aligned pair (that would pair X's position with Y's velocity).
func TestQueryRunEndsOnRemoval(t *testing.T) {
	w, s := newTestWorld()
	var es []Entity
	for range 10 {
		e := w.Create()
		s.pos.Set(e, position{})
		s.vel.Set(e, velocity{})
		es = append(es, e)
	}
	x, y := w.Create(), w.Create()
	s.pos.Set(x, position{})
	s.vel.Set(y, velocity{})
	visited := 0
	for it := NewQuery2[position, velocity](w).Iter(); it.Next(); {
		e := it.Entity()
		p, v := it.Get()
		if e == x || e == y || p != s.pos.Get(e) || v != s.vel.Get(e) {
			t.Fatalf("visit %d: entity %#x with mismatched components", visited, uint64(e))
		}
		if visited == 0 {
			w.Destroy(es[3]) // outside the rule, but must stay consistent
		}
		visited++
	}
	if visited != 9 {
		t.Fatalf("visited %d entities, want 9", visited)
	}
}

// TestQueryAddReallocatesDuringRun: adding components from the loop body
// may reallocate the dense slices; the following entities' pointers must
// point into the new storage (writes must not be lost).
func TestQueryAddReallocatesDuringRun(t *testing.T) {
	w, s := newTestWorld()
	spawn := func() {
		e := w.Create()
		s.pos.Set(e, position{})
		s.vel.Set(e, velocity{1, 1})
	}
	for range 20 {
		spawn()
	}
	for len(s.pos.dense) != cap(s.pos.dense) || len(s.vel.dense) != cap(s.vel.dense) {
		spawn()
	}
	n := len(s.pos.dense)
	visited := 0
	for it := NewQuery2[position, velocity](w).Iter(); it.Next(); {
		e := it.Entity()
		p, v := it.Get()
		if p != s.pos.Get(e) || v != s.vel.Get(e) {
			t.Fatalf("visit %d: pointer into stale storage", visited)
		}
		p.X += v.X
		if visited == 0 {
			spawn() // reallocates both dense slices
		}
		visited++
	}
	if visited != n {
		t.Fatalf("visited %d, want %d", visited, n)
	}
	sum := float32(0)
	for it := NewQuery1[position](w).Iter(); it.Next(); {
		sum += it.Get().X
	}
	if sum != float32(n) {
		t.Fatalf("sum of X = %v, want %d (writes lost)", sum, n)
	}
}

// bruteMismatch recomputes what a pairTracker must hold.
func bruteMismatch(t *pairTracker) int {
	x, y := *t.x, *t.y
	n := 0
	for i := range min(len(x), len(y)) {
		if x[i] != y[i] {
			n++
		}
	}
	return n
}

// TestPairTrackerExact: after every add, Remove and Destroy, in any order
// and on either side, the trackers hold the exact number of misaligned
// slots; queries trusting them never pair components of two entities.
func TestPairTrackerExact(t *testing.T) {
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 11))
		w, s := newTestWorld()
		q2 := NewQuery2[position, velocity](w)
		q3 := NewQuery3[position, velocity, health](w)
		qvp := NewQuery2[velocity, position](w)
		if qvp.ab != q2.ab {
			t.Fatal("the same pair of stores got two trackers")
		}
		trackers := []*pairTracker{q2.ab, q3.ab, q3.ac}
		var es []Entity
		check := func(op int) {
			t.Helper()
			for k, tr := range trackers {
				if got, want := tr.mismatch, bruteMismatch(tr); got != want {
					t.Fatalf("seed %d op %d: tracker %d holds %d, want %d", seed, op, k, got, want)
				}
			}
		}
		for op := range 600 {
			if len(es) == 0 || r.IntN(3) == 0 {
				e := w.Create()
				es = append(es, e)
				// Mostly aligned spawns, sometimes partial or reordered.
				switch r.IntN(4) {
				case 0:
					s.vel.Set(e, velocity{})
					s.pos.Set(e, position{})
				case 1:
					s.pos.Set(e, position{})
				default:
					s.pos.Set(e, position{})
					s.vel.Set(e, velocity{})
					s.hp.Set(e, health{})
				}
			} else {
				e := es[r.IntN(len(es))]
				switch r.IntN(5) {
				case 0:
					w.Destroy(e)
				case 1:
					s.pos.Remove(e)
				case 2:
					s.vel.Remove(e)
				case 3:
					s.hp.Remove(e)
				default:
					s.vel.Set(e, velocity{})
				}
			}
			check(op)
			if op%50 == 0 {
				for it := q2.Iter(); it.Next(); {
					e := it.Entity()
					if p, v := it.Get(); p != s.pos.Get(e) || v != s.vel.Get(e) {
						t.Fatalf("seed %d op %d: Query2 pairs components of two entities", seed, op)
					}
				}
				for it := q3.Iter(); it.Next(); {
					e := it.Entity()
					if p, v, h := it.Get(); p != s.pos.Get(e) || v != s.vel.Get(e) || h != s.hp.Get(e) {
						t.Fatalf("seed %d op %d: Query3 pairs components of two entities", seed, op)
					}
				}
			}
		}
	}
}

// TestPairTrackerAlignedWorld: entities spawned with all their components
// and destroyed whole keep the stores aligned (mismatch 0, no validation),
// and one reordering is detected.
func TestPairTrackerAlignedWorld(t *testing.T) {
	w, s := newTestWorld()
	// A tracker created on a populated world counts existing slots.
	var es []Entity
	for range 3000 {
		e := w.Create()
		s.pos.Set(e, position{})
		s.vel.Set(e, velocity{1, 1})
		es = append(es, e)
	}
	q := NewQuery2[position, velocity](w)
	if q.ab.mismatch != 0 {
		t.Fatalf("aligned world: mismatch %d", q.ab.mismatch)
	}
	for i := 0; i < 3000; i += 7 {
		w.Destroy(es[i])
		e := w.Create()
		s.pos.Set(e, position{})
		s.vel.Set(e, velocity{1, 1})
	}
	if q.ab.mismatch != 0 {
		t.Fatalf("destroy/spawn churn: mismatch %d", q.ab.mismatch)
	}
	s.vel.Remove(es[1])
	s.vel.Set(es[1], velocity{1, 1})
	if q.ab.mismatch == 0 {
		t.Fatal("reordering not detected")
	}
	n := 0
	for it := q.Iter(); it.Next(); {
		e := it.Entity()
		if p, v := it.Get(); p != s.pos.Get(e) || v != s.vel.Get(e) {
			t.Fatalf("pointers of %#x belong to another entity", uint64(e))
		}
		n++
	}
	if n != s.pos.Len() {
		t.Fatalf("visited %d, want %d", n, s.pos.Len())
	}
	late := NewQuery2[velocity, position](w)
	if late.ab != q.ab || bruteMismatch(q.ab) != q.ab.mismatch {
		t.Fatal("late query did not share the exact tracker")
	}
}

// TestQueryShiftedRuns: the velocity store lists a subsequence of the
// position store (every 8th entity has no velocity), so matching entities
// sit at shifted slots; runs with offsets must pair the right components,
// also while the loop destroys the current entity.
func TestQueryShiftedRuns(t *testing.T) {
	w, s := newTestWorld()
	want := map[Entity]bool{}
	for i := range 2000 {
		e := w.Create()
		s.pos.Set(e, position{float32(i), 0})
		if i%8 != 0 {
			s.vel.Set(e, velocity{1, 0})
			want[e] = true
		}
		if i%3 != 0 {
			s.hp.Set(e, health{})
		}
	}
	seen := map[Entity]bool{}
	k := 0
	for it := NewQuery2[position, velocity](w).Iter(); it.Next(); {
		e := it.Entity()
		p, v := it.Get()
		if seen[e] || !want[e] || p != s.pos.Get(e) || v != s.vel.Get(e) {
			t.Fatalf("visit %d: entity %#x wrongly paired or repeated", k, uint64(e))
		}
		seen[e] = true
		if k%5 == 0 {
			w.Destroy(e)
		}
		k++
	}
	if len(seen) != len(want) {
		t.Fatalf("visited %d, want %d", len(seen), len(want))
	}
	n3 := 0
	for it := NewQuery3[health, velocity, position](w).Iter(); it.Next(); {
		e := it.Entity()
		h, v, p := it.Get()
		if h != s.hp.Get(e) || v != s.vel.Get(e) || p != s.pos.Get(e) {
			t.Fatalf("Query3: entity %#x wrongly paired", uint64(e))
		}
		n3++
	}
	want3 := 0
	w.Each(func(e Entity) {
		if s.hp.Has(e) && s.vel.Has(e) && s.pos.Has(e) {
			want3++
		}
	})
	if n3 != want3 || n3 == 0 {
		t.Fatalf("Query3 visited %d, want %d", n3, want3)
	}
}
