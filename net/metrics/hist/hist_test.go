package hist

import (
	"sync"
	"testing"
	"time"
)

// Durations land in their bucket, the longest in the open-ended last one; the quantiles are
// bucket upper bounds, never past the maximum.
func TestQuantiles(t *testing.T) {
	h := New(time.Millisecond, 10)
	if s := h.Snapshot(); s.N() != 0 || s.Quantile(0.5) != 0 {
		t.Fatalf("empty: N %d, p50 %v", s.N(), s.Quantile(0.5))
	}
	for i := range 98 {
		h.Add(time.Duration(i%4)*time.Millisecond + 500*time.Microsecond) // 0.5, 1.5, 2.5, 3.5 ms
	}
	h.Add(-time.Second) // counts as 0
	h.Add(time.Second)  // the last bucket
	s := h.Snapshot()
	if s.N() != 100 || s.Counts[0] != 26 || s.Counts[9] != 1 || s.Max != time.Second {
		t.Fatalf("counts %v, max %v", s.Counts, s.Max)
	}
	if p50 := s.Quantile(0.5); p50 != 2*time.Millisecond {
		t.Errorf("p50 %v, want 2ms (the bucket 1..2 ms ends at 2)", p50)
	}
	if p99 := s.Quantile(0.99); p99 != time.Second {
		t.Errorf("p99 %v, want the maximum (the open-ended bucket)", p99)
	}
	small := New(time.Millisecond, 10)
	small.Add(300 * time.Microsecond)
	if q := small.Snapshot().Quantile(0.5); q != 300*time.Microsecond {
		t.Errorf("one 0.3 ms duration: p50 %v, want the maximum, 0.3 ms", q)
	}
}

// Merged snapshots add up; the cumulative counts are a Prometheus histogram's buckets.
func TestMergeAndCumulative(t *testing.T) {
	a, b := New(time.Millisecond, 5), New(time.Millisecond, 5)
	a.Add(500 * time.Microsecond)
	b.Add(1500 * time.Microsecond)
	b.Add(time.Hour)
	var s Snapshot
	s.Merge(a.Snapshot())
	s.Merge(b.Snapshot())
	if s.N() != 3 || s.Max != time.Hour || s.Sum != time.Hour+2*time.Millisecond {
		t.Fatalf("merged: N %d, max %v, sum %v", s.N(), s.Max, s.Sum)
	}
	got := s.Cumulative([]time.Duration{time.Millisecond, 1500 * time.Microsecond, 2 * time.Millisecond, time.Hour})
	want := []uint64{1, 1, 2, 2} // the hour is in the open-ended bucket: +Inf only
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Cumulative = %v, want %v", got, want)
		}
	}
}

// Every worker adds to one histogram: nothing is lost (run with -race), and Add does not allocate.
func TestConcurrentAdds(t *testing.T) {
	h := New(10*time.Microsecond, 200)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				h.Add(time.Duration(w*1000+i) * time.Microsecond)
			}
		}()
	}
	wg.Wait()
	if s := h.Snapshot(); s.N() != 8000 || s.Max != 7999*time.Microsecond {
		t.Fatalf("N %d, max %v", s.N(), s.Max)
	}
	if n := testing.AllocsPerRun(100, func() { h.Add(time.Millisecond) }); n != 0 {
		t.Errorf("Add allocates %v times", n)
	}
}
