// Package hist is the one histogram of durations the server and its tools keep: how late the
// tick schedule starts game ticks and how long they take to run (net/instance, exported to
// Prometheus by net/metrics), and the load generator's round trips (net/load). Buckets are
// fixed-width, the last one open-ended, with the sum and the maximum beside; Add is lock-free
// and does not allocate, so every worker of the tick schedule adds to one Histogram.
package hist

import (
	"sync/atomic"
	"time"
)

// Histogram counts durations in buckets of one width. Safe for concurrent use.
type Histogram struct {
	width   time.Duration
	buckets []atomic.Uint64
	sum     atomic.Int64 // ns
	max     atomic.Int64 // ns
}

// New returns a histogram of n buckets (n ≥ 1) of width each: bucket i counts the durations in
// [i·width, (i+1)·width), the last one those of (n-1)·width or more.
func New(width time.Duration, n int) *Histogram {
	return &Histogram{width: width, buckets: make([]atomic.Uint64, max(n, 1))}
}

// Add counts d (a negative d counts as 0).
func (h *Histogram) Add(d time.Duration) {
	d = max(d, 0)
	h.buckets[min(int(d/h.width), len(h.buckets)-1)].Add(1)
	h.sum.Add(int64(d))
	for {
		m := h.max.Load()
		if int64(d) <= m || h.max.CompareAndSwap(m, int64(d)) {
			return
		}
	}
}

// Snapshot returns a copy of the counts so far. Taken while others add, it may hold an Add in
// one figure and not yet in another.
func (h *Histogram) Snapshot() Snapshot {
	s := Snapshot{Width: h.width, Counts: make([]uint64, len(h.buckets)), Sum: time.Duration(h.sum.Load()), Max: time.Duration(h.max.Load())}
	for i := range h.buckets {
		s.Counts[i] = h.buckets[i].Load()
	}
	return s
}

// Snapshot is a copy of a Histogram's figures.
type Snapshot struct {
	Width  time.Duration // of a bucket
	Counts []uint64      // Counts[i]: durations in [i·Width, (i+1)·Width); the last: that or longer
	Sum    time.Duration // of every duration counted
	Max    time.Duration // the longest counted
}

// N returns how many durations were counted.
func (s Snapshot) N() uint64 {
	var n uint64
	for _, c := range s.Counts {
		n += c
	}
	return n
}

// Quantile returns the upper bound of the bucket that holds quantile q (0..1) of the durations,
// at most Max (Max itself when it is the open-ended last bucket); 0 when none were counted.
func (s Snapshot) Quantile(q float64) time.Duration {
	n := s.N()
	if n == 0 {
		return 0
	}
	want := uint64(q * float64(n))
	var c uint64
	for i, k := range s.Counts {
		c += k
		if c > want {
			if i == len(s.Counts)-1 {
				return s.Max // beyond the buckets' range
			}
			return min(time.Duration(i+1)*s.Width, s.Max)
		}
	}
	return s.Max
}

// Merge adds o's figures to s; o must have s's buckets (or s none yet: s becomes a copy of o).
func (s *Snapshot) Merge(o Snapshot) {
	if s.Counts == nil {
		s.Width, s.Counts = o.Width, make([]uint64, len(o.Counts))
	}
	for i, c := range o.Counts {
		s.Counts[i] += c
	}
	s.Sum += o.Sum
	s.Max = max(s.Max, o.Max)
}

// Cumulative returns the counts of durations of at most each bound (a Prometheus histogram's
// buckets), from the buckets that end at or below it; the open-ended last bucket only counts
// in N (the +Inf bucket).
func (s Snapshot) Cumulative(bounds []time.Duration) []uint64 {
	out := make([]uint64, len(bounds))
	for j, b := range bounds {
		for i, c := range s.Counts[:max(len(s.Counts)-1, 0)] {
			if time.Duration(i+1)*s.Width <= b {
				out[j] += c
			}
		}
	}
	return out
}
