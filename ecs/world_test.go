package ecs

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestEntityBits(t *testing.T) {
	e := newEntity(7, 3)
	if e.Index() != 7 || e.Generation() != 3 {
		t.Fatalf("newEntity(7,3) = index %d gen %d", e.Index(), e.Generation())
	}
	if uint64(e) != 3<<32|7 {
		t.Fatalf("layout: got %#x, want %#x", uint64(e), uint64(3<<32|7))
	}
	if Nil.Index() != 0 || Nil.Generation() != 0 {
		t.Fatal("Nil must be index 0 generation 0")
	}
}

func TestCreateStartsAtGenerationOne(t *testing.T) {
	w := NewWorld()
	for i := range 3 {
		e := w.Create()
		if e == Nil || e.Generation() != 1 || e.Index() != uint32(i) {
			t.Fatalf("Create #%d = %#x (index %d gen %d)", i, uint64(e), e.Index(), e.Generation())
		}
		if !w.Alive(e) {
			t.Fatalf("fresh entity %#x not alive", uint64(e))
		}
	}
	if w.Len() != 3 {
		t.Fatalf("Len = %d, want 3", w.Len())
	}
	if w.Alive(Nil) {
		t.Fatal("Nil is alive")
	}
}

func TestGenerationSafety(t *testing.T) {
	w, s := newTestWorld()
	a := w.Create()
	s.pos.Set(a, position{1, 2})
	if !w.Destroy(a) {
		t.Fatal("Destroy of a live entity returned false")
	}
	if w.Alive(a) {
		t.Fatal("destroyed entity still alive")
	}
	if w.Destroy(a) {
		t.Fatal("second Destroy returned true")
	}
	b := w.Create()
	if b.Index() != a.Index() {
		t.Fatalf("index not recycled: %d then %d", a.Index(), b.Index())
	}
	if b == a || b.Generation() <= a.Generation() {
		t.Fatalf("recycled entity has id %#x, destroyed was %#x", uint64(b), uint64(a))
	}
	if w.Alive(a) {
		t.Fatal("stale id alive after its index was reused")
	}
	// Stale ids do not reach the new entity's components.
	s.pos.Set(b, position{5, 6})
	if s.pos.Has(a) || s.pos.Get(a) != nil || s.pos.Mut(a) != nil || s.pos.ChangedAt(a) != 0 {
		t.Fatal("stale id sees the component of the new entity")
	}
	s.pos.Set(a, position{9, 9}) // ignored: a is dead
	if got := *s.pos.Get(b); got != (position{5, 6}) {
		t.Fatalf("Set through stale id changed the new entity: %+v", got)
	}
	if s.pos.Remove(a) || w.Destroy(a) {
		t.Fatal("Remove/Destroy through a stale id succeeded")
	}
	if w.Signature(a) != 0 {
		t.Fatal("stale id has a signature")
	}
	// Many cycles: every id is unique.
	seen := map[Entity]bool{a: true, b: true}
	w.Destroy(b)
	for range 100 {
		e := w.Create()
		if seen[e] {
			t.Fatalf("id %#x handed out twice", uint64(e))
		}
		seen[e] = true
		w.Destroy(e)
	}
}

func TestDestroyRemovesAllComponents(t *testing.T) {
	w, s := newTestWorld()
	e := w.Create()
	other := w.Create()
	s.pos.Set(e, position{1, 1})
	s.vel.Set(e, velocity{2, 2})
	s.tag.Set(e, tag{3})
	s.pos.Set(other, position{4, 4})
	w.Destroy(e)
	if s.pos.Len() != 1 || s.vel.Len() != 0 || s.tag.Len() != 0 {
		t.Fatalf("store lengths after Destroy: pos %d vel %d tag %d", s.pos.Len(), s.vel.Len(), s.tag.Len())
	}
	if got := *s.pos.Get(other); got != (position{4, 4}) {
		t.Fatalf("other entity's component changed: %+v", got)
	}
	// A new entity in the same index starts without components.
	n := w.Create()
	if n.Index() != e.Index() || w.Signature(n) != 0 || s.vel.Has(n) {
		t.Fatalf("recycled entity inherited components: sig %b", w.Signature(n))
	}
}

func TestEachAscending(t *testing.T) {
	w := NewWorld()
	var es []Entity
	for range 6 {
		es = append(es, w.Create())
	}
	w.Destroy(es[1])
	w.Destroy(es[4])
	var got []Entity
	w.Each(func(e Entity) { got = append(got, e) })
	want := []Entity{es[0], es[2], es[3], es[5]}
	if !slices.Equal(got, want) {
		t.Fatalf("Each = %v, want %v", got, want)
	}
	// Destroying the visited entity inside Each is allowed.
	n := 0
	w.Each(func(e Entity) { n++; w.Destroy(e) })
	if n != 4 || w.Len() != 0 {
		t.Fatalf("Each+Destroy visited %d, Len %d", n, w.Len())
	}
}

func TestSignature(t *testing.T) {
	w, s := newTestWorld()
	e := w.Create()
	if w.Signature(e) != 0 {
		t.Fatal("new entity has a non-zero signature")
	}
	s.pos.Set(e, position{})
	s.hp.Set(e, health{1, 2})
	s.tag.Set(e, tag{})
	want := Signature(1<<1 | 1<<5 | 1<<40)
	if got := w.Signature(e); got != want {
		t.Fatalf("Signature = %b, want %b", got, want)
	}
	if !want.Has(5) || want.Has(2) || want.Has(64) {
		t.Fatal("Signature.Has wrong")
	}
	s.hp.Remove(e)
	s.pos.Set(e, position{1, 1}) // replace: no change
	if got := w.Signature(e); got != 1<<1|1<<40 {
		t.Fatalf("Signature after Remove = %b", got)
	}
	w.Destroy(e)
	if w.Signature(e) != 0 {
		t.Fatal("destroyed entity has a signature")
	}
}

func TestEvents(t *testing.T) {
	w, s := newTestWorld()
	a := w.Create()
	w.Advance()
	s.pos.Set(a, position{1, 2})
	s.pos.Set(a, position{3, 4}) // replace: no event
	s.vel.Set(a, velocity{})
	w.Advance()
	s.vel.Remove(a)
	s.vel.Remove(a) // absent: no event
	b := w.Create()
	w.Destroy(a) // only EventDestroyed, not EventRemoved for pos
	want := []Event{
		{EventCreated, a, 0, 0},
		{EventAdded, a, 1, 1},
		{EventAdded, a, 2, 1},
		{EventRemoved, a, 2, 2},
		{EventCreated, b, 0, 2},
		{EventDestroyed, a, 0, 2},
	}
	if got := w.Events(); !slices.Equal(got, want) {
		t.Fatalf("Events =\n%v\nwant\n%v", got, want)
	}
	w.ClearEvents()
	if len(w.Events()) != 0 {
		t.Fatal("ClearEvents left events")
	}
	w.Destroy(b)
	if got := w.Events(); len(got) != 1 || got[0] != (Event{EventDestroyed, b, 0, 2}) {
		t.Fatalf("Events after clear = %v", got)
	}
	if EventAdded.String() != "added" || EventKind(9).String() != "EventKind(9)" {
		t.Fatal("EventKind.String")
	}
}

// A world with DiscardEvents records nothing however many entities come and go (a client's
// mirror, whose events nobody drains), and Version still moves.
func TestDiscardEvents(t *testing.T) {
	w, s := newTestWorld()
	w.Create()
	w.DiscardEvents()
	if len(w.Events()) != 0 {
		t.Fatal("DiscardEvents left the recorded events")
	}
	v := w.Version()
	for i := 0; i < 1000; i++ {
		e := w.Create()
		s.pos.Set(e, position{1, 2})
		s.pos.Remove(e)
		w.Destroy(e)
	}
	if n := len(w.Events()); n != 0 {
		t.Fatalf("%d events recorded after DiscardEvents", n)
	}
	if w.Version() == v {
		t.Fatal("Version did not move")
	}
}

func TestTick(t *testing.T) {
	w := NewWorld()
	if w.Tick() != 0 {
		t.Fatalf("new world tick %d", w.Tick())
	}
	for range 5 {
		w.Advance()
	}
	if w.Tick() != 5 {
		t.Fatalf("tick after 5 Advance = %d", w.Tick())
	}
}

// Version moves at every change a component's ChangedAt or an event records, and only then:
// a cache keyed on it (the server's replication summary) is never stale.
func TestVersion(t *testing.T) {
	w, s := newTestWorld()
	e := w.Create()
	s.pos.Set(e, position{1, 2})
	s.hp.Set(e, health{HP: 3})
	changes := []struct {
		name string
		do   func()
	}{
		{"Create", func() { w.Create() }},
		{"Set (add)", func() { s.vel.Set(e, velocity{1, 1}) }},
		{"Set (replace)", func() { s.pos.Set(e, position{3, 4}) }},
		{"Mut", func() { s.pos.Mut(e).X = 5 }},
		{"MarkChanged", func() { s.pos.MarkChanged(e) }},
		{"SetWire", func() { _ = s.pos.SetWire(e, make([]byte, 8)) }},
		{"Remove", func() { s.vel.Remove(e) }},
		{"Destroy", func() { w.Destroy(e) }},
		{"CreateWithID", func() { _ = w.CreateWithID(newEntity(50, 1)) }},
	}
	for _, c := range changes {
		v := w.Version()
		c.do()
		if w.Version() == v {
			t.Errorf("%s: Version stayed %d", c.name, v)
		}
	}
	e = w.Create()
	s.pos.Set(e, position{1, 2})
	v := w.Version()
	w.Advance()
	_ = s.pos.Get(e)
	_ = s.pos.ChangedAt(e)
	_ = s.pos.Has(e)
	_ = w.Signature(e)
	s.pos.MarkChanged(w.Create() + 1<<32) // not alive: no change
	if w.Version() != v+1 {               // the Create only
		t.Errorf("Version %d after reads, Advance and one Create, want %d", w.Version(), v+1)
	}
}

func TestCreateWithID(t *testing.T) {
	w, s := newTestWorld()
	e := newEntity(5, 7)
	if err := w.CreateWithID(e); err != nil {
		t.Fatalf("CreateWithID(%#x): %v", uint64(e), err)
	}
	if !w.Alive(e) || w.Len() != 1 {
		t.Fatal("entity from CreateWithID not alive")
	}
	if ev := w.Events(); len(ev) != 1 || ev[0] != (Event{EventCreated, e, 0, 0}) {
		t.Fatalf("events %v", ev)
	}
	// Idempotent for the same id.
	if err := w.CreateWithID(e); err != nil || w.Len() != 1 || len(w.Events()) != 1 {
		t.Fatalf("CreateWithID twice: err %v len %d", err, w.Len())
	}
	// Same index, other generation: rejected while alive.
	if err := w.CreateWithID(newEntity(5, 8)); !errors.Is(err, ErrIndexInUse) {
		t.Fatalf("other generation on live index: err %v", err)
	}
	for _, bad := range []Entity{Nil, newEntity(3, 0), Entity(1<<63 | 1<<32 | 2), newEntity(MaxIndex+1, 1)} {
		if err := w.CreateWithID(bad); !errors.Is(err, ErrInvalidEntity) {
			t.Fatalf("CreateWithID(%#x): err %v, want ErrInvalidEntity", uint64(bad), err)
		}
	}
	if w.Len() != 1 {
		t.Fatalf("rejected ids changed Len to %d", w.Len())
	}
	// The mirror destroys then recreates with the new generation.
	s.pos.Set(e, position{1, 1})
	w.Destroy(e)
	e2 := newEntity(5, 8)
	if err := w.CreateWithID(e2); err != nil || !w.Alive(e2) || w.Alive(e) || s.pos.Has(e2) {
		t.Fatalf("recreate: err %v", err)
	}
	// Skipped indices 0..4 are free: Create hands them out, lowest first,
	// never the index taken by CreateWithID.
	for want := uint32(0); want < 5; want++ {
		c := w.Create()
		if c.Index() != want || c.Generation() != 1 {
			t.Fatalf("Create after CreateWithID = index %d gen %d, want index %d", c.Index(), c.Generation(), want)
		}
	}
	if c := w.Create(); c.Index() != 6 {
		t.Fatalf("Create = index %d, want 6", c.Index())
	}
	// CreateWithID on a free index (it was in the free list) takes it out.
	f := w.Create()
	w.Destroy(f)
	g := newEntity(f.Index(), 40)
	if err := w.CreateWithID(g); err != nil {
		t.Fatal(err)
	}
	if c := w.Create(); c.Index() == f.Index() {
		t.Fatal("Create reused an index taken by CreateWithID")
	}
	// Maximum index is accepted.
	if err := w.CreateWithID(newEntity(MaxIndex, 1)); err != nil {
		t.Fatal(err)
	}
}

func TestGenerationRetired(t *testing.T) {
	w := NewWorld()
	e := newEntity(0, maxGeneration)
	if err := w.CreateWithID(e); err != nil {
		t.Fatal(err)
	}
	w.Destroy(e)
	n := w.Create()
	if n.Index() == 0 || n>>63 != 0 {
		t.Fatalf("retired index reused or top bit set: %#x", uint64(n))
	}
}

func TestStoreLookup(t *testing.T) {
	w, s := newTestWorld()
	if w.Store(0) != nil || w.Store(3) != nil || w.Store(64) != nil || w.Store(1000) != nil {
		t.Fatal("Store of unregistered id is not nil")
	}
	if w.Store(5) != AnyStore(s.hp) || w.Store(40).ID() != 40 {
		t.Fatal("Store(id) returned the wrong store")
	}
	var ids []ComponentID
	for _, st := range w.Stores() {
		ids = append(ids, st.ID())
	}
	if !slices.Equal(ids, []ComponentID{1, 2, 5, 40}) {
		t.Fatalf("Stores ids = %v, want [1 2 5 40]", ids)
	}
	if StoreOf[velocity](w) != s.vel || StoreOf[int](w) != nil {
		t.Fatal("StoreOf")
	}
}

// TestCreateWithIDRandomMix mixes Create, CreateWithID (valid and invalid
// ids) and Destroy; it checks that nothing panics, that Create never hands
// out a live index, and that Len, Each and Alive agree.
func TestCreateWithIDRandomMix(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 3))
		w := NewWorld()
		alive := map[Entity]bool{}
		for op := range 2000 {
			switch r.IntN(4) {
			case 0:
				e := w.Create()
				for a := range alive {
					if a.Index() == e.Index() {
						t.Fatalf("seed %d op %d: Create reused live index %d", seed, op, e.Index())
					}
				}
				alive[e] = true
			case 1:
				e := Entity(r.Uint64())
				if r.IntN(2) == 0 { // plausible id
					e = newEntity(uint32(r.IntN(300)), uint32(1+r.IntN(5)))
				}
				err := w.CreateWithID(e)
				valid := e.Generation() != 0 && e.Generation() <= maxGeneration && e.Index() <= MaxIndex
				switch {
				case !valid:
					if !errors.Is(err, ErrInvalidEntity) {
						t.Fatalf("seed %d op %d: invalid %#x accepted: %v", seed, op, uint64(e), err)
					}
				case err == nil:
					if !w.Alive(e) {
						t.Fatalf("seed %d op %d: CreateWithID(%#x) ok but not alive", seed, op, uint64(e))
					}
					alive[e] = true
				case errors.Is(err, ErrIndexInUse):
					if w.Alive(e) {
						t.Fatalf("seed %d op %d: ErrIndexInUse for the live id itself", seed, op)
					}
				default:
					t.Fatalf("seed %d op %d: unexpected error %v", seed, op, err)
				}
			default:
				for e := range alive {
					if !w.Destroy(e) {
						t.Fatalf("seed %d op %d: Destroy(%#x) of a live entity failed", seed, op, uint64(e))
					}
					delete(alive, e)
					break
				}
			}
		}
		if w.Len() != len(alive) {
			t.Fatalf("seed %d: Len %d, want %d", seed, w.Len(), len(alive))
		}
		n := 0
		w.Each(func(e Entity) {
			if !alive[e] {
				t.Fatalf("seed %d: Each visited %#x, not alive in the model", seed, uint64(e))
			}
			n++
		})
		if n != len(alive) {
			t.Fatalf("seed %d: Each visited %d, want %d", seed, n, len(alive))
		}
	}
}
