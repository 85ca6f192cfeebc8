package ecs

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestSetGetRemove(t *testing.T) {
	w, s := newTestWorld()
	a, b, c := w.Create(), w.Create(), w.Create()
	s.pos.Set(a, position{1, 1})
	s.pos.Set(b, position{2, 2})
	s.pos.Set(c, position{3, 3})
	if s.pos.Len() != 3 || !s.pos.Has(b) || s.vel.Has(b) {
		t.Fatal("Has/Len after Set")
	}
	s.pos.Set(b, position{20, 20})
	if got := *s.pos.Get(b); got != (position{20, 20}) {
		t.Fatalf("Get after replace = %+v", got)
	}
	if !s.pos.Remove(a) || s.pos.Remove(a) {
		t.Fatal("Remove return values")
	}
	// Swap-remove keeps the other values attached to their entities.
	if s.pos.Has(a) || s.pos.Get(a) != nil || *s.pos.Get(b) != (position{20, 20}) || *s.pos.Get(c) != (position{3, 3}) {
		t.Fatal("values moved to the wrong entity after Remove")
	}
	if s.vel.Get(a) != nil || s.vel.Mut(a) != nil {
		t.Fatal("Get/Mut of an absent component is not nil")
	}
	// Writing through Get changes the stored value.
	s.pos.Get(c).X = 30
	if s.pos.Get(c).X != 30 {
		t.Fatal("Get does not point into storage")
	}
	// Set on an entity that is not alive does nothing.
	s.pos.Set(Nil, position{})
	s.pos.Set(newEntity(99, 1), position{})
	if s.pos.Len() != 2 {
		t.Fatalf("Set on dead entity added a component: Len %d", s.pos.Len())
	}
}

func TestChangeTracking(t *testing.T) {
	w, s := newTestWorld()
	e := w.Create()
	w.Advance() // tick 1
	s.pos.Set(e, position{})
	if s.pos.ChangedAt(e) != 1 {
		t.Fatalf("ChangedAt after add = %d, want 1", s.pos.ChangedAt(e))
	}
	w.Advance() // 2
	_ = s.pos.Get(e)
	s.pos.Get(e).X = 5 // Get does not mark
	if s.pos.ChangedAt(e) != 1 {
		t.Fatalf("Get marked changed: %d", s.pos.ChangedAt(e))
	}
	w.Advance() // 3
	s.pos.Mut(e).Y = 1
	if s.pos.ChangedAt(e) != 3 {
		t.Fatalf("ChangedAt after Mut = %d, want 3", s.pos.ChangedAt(e))
	}
	w.Advance() // 4
	s.pos.Set(e, position{7, 7})
	if s.pos.ChangedAt(e) != 4 {
		t.Fatalf("ChangedAt after Set = %d, want 4", s.pos.ChangedAt(e))
	}
	w.Advance() // 5
	s.pos.MarkChanged(e)
	if s.pos.ChangedAt(e) != 5 {
		t.Fatalf("ChangedAt after MarkChanged = %d, want 5", s.pos.ChangedAt(e))
	}
	// Query pointers do not mark.
	w.Advance() // 6
	q := NewQuery1[position](w)
	for it := q.Iter(); it.Next(); {
		it.Get().X++
	}
	if s.pos.ChangedAt(e) != 5 {
		t.Fatalf("query write marked changed: %d", s.pos.ChangedAt(e))
	}
	// Change ticks follow their entity through swap-remove.
	f := w.Create()
	s.pos.Set(f, position{}) // changed at 6
	w.Advance()
	s.pos.Remove(e) // f moves to slot 0
	if s.pos.ChangedAt(f) != 6 {
		t.Fatalf("ChangedAt after swap-remove = %d, want 6", s.pos.ChangedAt(f))
	}
	if s.pos.ChangedAt(e) != 0 {
		t.Fatal("ChangedAt of an absent component is not 0")
	}
	// AnyStore view agrees.
	if w.Store(1).ChangedAt(f) != 6 {
		t.Fatal("AnyStore.ChangedAt")
	}
}

func TestRegisterPanics(t *testing.T) {
	mustPanic := func(name, want string, fn func()) {
		t.Helper()
		defer func() {
			r := recover()
			if r == nil {
				t.Fatalf("%s: no panic", name)
			}
			if msg, _ := r.(string); !strings.Contains(msg, want) {
				t.Fatalf("%s: panic %v, want it to mention %q", name, r, want)
			}
		}()
		fn()
	}
	w := NewWorld()
	Register[position](w, 1, posCodec{}, Replicated)
	mustPanic("id 0", "out of range", func() { Register[velocity](w, 0, velCodec{}, 0) })
	mustPanic("id 64", "out of range", func() { Register[velocity](w, 64, velCodec{}, 0) })
	mustPanic("duplicate id", "already registered", func() { Register[velocity](w, 1, velCodec{}, 0) })
	mustPanic("duplicate type", "type already registered", func() { Register[position](w, 2, posCodec{}, 0) })
	mustPanic("replicated without codec", "codec", func() { Register[health](w, 3, nil, Replicated) })
	mustPanic("query on unregistered", "not registered", func() { NewQuery2[position, health](w) })
	Register[velocity](w, 63, velCodec{}, 0) // 63 is valid
}

func TestAnyStoreWireRoundTrip(t *testing.T) {
	srv, ss := newTestWorld()
	e := srv.Create()
	ss.pos.Set(e, position{1.5, -2.25})
	ss.hp.Set(e, health{7, 10})

	// Server side: encode every replicated component of e.
	var buf []byte
	var ids []ComponentID
	for _, st := range srv.Stores() {
		if st.Flags()&Replicated == 0 || !st.Has(e) {
			continue
		}
		n := len(buf)
		buf = st.AppendWire(buf, e)
		if len(buf)-n != st.Size() {
			t.Fatalf("component %d: AppendWire wrote %d bytes, Size %d", st.ID(), len(buf)-n, st.Size())
		}
		ids = append(ids, st.ID())
	}
	wantBytes := []byte{0, 0, 0xc0, 0x3f, 0, 0, 0x10, 0xc0, 7, 0, 10, 0}
	if !bytes.Equal(buf, wantBytes) {
		t.Fatalf("wire = % x, want % x", buf, wantBytes)
	}

	// Client mirror: same registration, ids chosen by the server.
	cli, cs := newTestWorld()
	if err := cli.CreateWithID(e); err != nil {
		t.Fatal(err)
	}
	cli.Advance()
	off := 0
	for _, id := range ids {
		st := cli.Store(id)
		if err := st.SetWire(e, buf[off:off+st.Size()]); err != nil {
			t.Fatalf("SetWire(%d): %v", id, err)
		}
		off += st.Size()
	}
	if *cs.pos.Get(e) != *ss.pos.Get(e) || *cs.hp.Get(e) != *ss.hp.Get(e) {
		t.Fatalf("round trip: got %+v %+v", *cs.pos.Get(e), *cs.hp.Get(e))
	}
	if cli.Signature(e) != srv.Signature(e) || cs.pos.ChangedAt(e) != 1 {
		t.Fatal("SetWire did not add like Set")
	}

	// Errors leave the store unchanged and never panic.
	hp := cli.Store(5)
	if err := hp.SetWire(e, []byte{1, 2, 3}); !errors.Is(err, ErrWireSize) {
		t.Fatalf("short: %v", err)
	}
	if err := hp.SetWire(e, []byte{11, 0, 10, 0}); !errors.Is(err, errBadHP) {
		t.Fatalf("codec error: %v", err)
	}
	if *cs.hp.Get(e) != (health{7, 10}) {
		t.Fatal("failed SetWire changed the value")
	}
	if err := hp.SetWire(newEntity(3, 1), []byte{1, 0, 2, 0}); !errors.Is(err, ErrNotAlive) {
		t.Fatalf("dead entity: %v", err)
	}
	tagStore := cli.Store(40)
	if err := tagStore.SetWire(e, nil); !errors.Is(err, ErrNoCodec) {
		t.Fatalf("no codec: %v", err)
	}
	if tagStore.Size() != 0 || len(tagStore.AppendWire(nil, e)) != 0 {
		t.Fatal("store without codec encodes something")
	}
	if got := cli.Store(2).AppendWire([]byte{9}, e); !bytes.Equal(got, []byte{9}) {
		t.Fatal("AppendWire of an absent component appended bytes")
	}
	if !hp.Remove(e) || hp.Has(e) || cs.hp.Len() != 0 {
		t.Fatal("AnyStore.Remove")
	}
}
