package logsample

import (
	"testing"
	"time"
)

// One line per key per window: the events within it are counted and reported with the key's
// first event of the next window, carrying the latest event's value.
func TestOneLinePerWindow(t *testing.T) {
	s := New[string, int](time.Minute)
	if ok, before := s.Hit(0, "a", 1); !ok || before.Skipped != 0 {
		t.Fatalf("first event: log %v, %+v", ok, before)
	}
	for i := range 10 {
		if ok, _ := s.Hit(time.Duration(i)*time.Second, "a", 2+i); ok {
			t.Fatal("a second line within the window")
		}
	}
	if ok, _ := s.Hit(time.Second, "b", 0); !ok {
		t.Error("another key's first event not logged")
	}
	ok, before := s.Hit(time.Minute, "a", 100)
	if !ok || before.Skipped != 10 || before.Since != 0 || before.Last != 11 {
		t.Fatalf("after the window: log %v, %+v (want 10 skipped since 0, the last carrying 11)", ok, before)
	}
	if n := testing.AllocsPerRun(100, func() { s.Hit(time.Minute+time.Second, "a", 7) }); n != 0 {
		t.Errorf("an event only counted allocates %v times", n)
	}
}

// Flush reports the windows that are over with events not logged, and forgets every window that
// is over, so the key's next event is logged with nothing to report; Reset forgets a key at once.
func TestFlushAndReset(t *testing.T) {
	s := New[int, struct{}](time.Second)
	s.Hit(0, 1, struct{}{})
	s.Hit(time.Millisecond, 1, struct{}{})
	s.Hit(0, 2, struct{}{})
	var got map[int]uint64
	flush := func(now time.Duration) {
		got = map[int]uint64{}
		s.Flush(now, func(k int, r Report[struct{}]) { got[k] = r.Skipped })
	}
	flush(500 * time.Millisecond)
	if len(got) != 0 || !s.Pending() {
		t.Fatalf("flushed within the window: %v, pending %v", got, s.Pending())
	}
	flush(time.Second)
	if len(got) != 1 || got[1] != 1 || s.Pending() {
		t.Fatalf("flushed %v (want key 1: 1), pending %v", got, s.Pending())
	}
	if ok, before := s.Hit(1500*time.Millisecond, 1, struct{}{}); !ok || before.Skipped != 0 {
		t.Errorf("after Flush: log %v, %+v", ok, before)
	}
	s.Reset(1)
	if ok, _ := s.Hit(1600*time.Millisecond, 1, struct{}{}); !ok {
		t.Error("after Reset the next event is not logged")
	}
}

// A flood from many keys keeps at most MaxKeys of them: the ones whose window is over go.
func TestMaxKeys(t *testing.T) {
	s := New[int, struct{}](time.Second)
	for k := range MaxKeys {
		s.Hit(0, k, struct{}{})
	}
	s.Hit(2*time.Second, -1, struct{}{})
	if len(s.keys) != 1 {
		t.Errorf("%d keys kept, want the new one alone", len(s.keys))
	}
}
