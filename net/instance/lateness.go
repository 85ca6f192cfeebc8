package instance

import (
	"sync/atomic"
	"time"
)

// lateness records how late each game tick starts (the moment a worker takes it up, past the
// moment its slot of the schedule was due) in a histogram of 0.1 ms buckets up to 50 ms, and the
// ticks games had to skip (overruns). Lock-free: every worker adds to it.
type lateness struct {
	buckets  [501]atomic.Uint64
	n        atomic.Uint64
	sum      atomic.Int64 // ns of lateness of every tick recorded (metrics: the histogram's sum)
	max      atomic.Int64
	overruns atomic.Uint64
}

const lateBucket = 100 * time.Microsecond

func (l *lateness) add(d time.Duration) {
	d = max(d, 0)
	l.buckets[min(int(d/lateBucket), len(l.buckets)-1)].Add(1)
	l.n.Add(1)
	l.sum.Add(int64(d))
	for {
		m := l.max.Load()
		if int64(d) <= m || l.max.CompareAndSwap(m, int64(d)) {
			return
		}
	}
}

func (l *lateness) overrun() { l.overruns.Add(1) }

// summary returns the 50th and 99th percentiles (bucket upper bounds), the maximum, the ticks
// recorded and the overruns.
func (l *lateness) summary() (p50, p99, mx time.Duration, n, overruns uint64) {
	var b [len(l.buckets)]uint64
	for i := range b {
		b[i] = l.buckets[i].Load()
		n += b[i]
	}
	mx = time.Duration(l.max.Load())
	q := func(f float64) time.Duration {
		if n == 0 {
			return 0
		}
		want := uint64(f * float64(n))
		var c uint64
		for i, k := range b {
			c += k
			if c > want {
				return min(time.Duration(i+1)*lateBucket, mx)
			}
		}
		return mx
	}
	return q(0.5), q(0.99), mx, n, l.overruns.Load()
}

// Lateness is a copy of the tick schedule's lateness histogram (Manager.TickLateness).
type Lateness struct {
	Bucket   time.Duration // width of a bucket (0.1 ms)
	Counts   []uint64      // Counts[i]: game ticks that started i*Bucket to (i+1)*Bucket late; the last bucket: that or later
	Sum      time.Duration // total lateness of every game tick
	Overruns uint64        // ticks games skipped (MaxCatchUp)
}

// TickLateness returns a copy of how late the game ticks have started since the start
// (monitoring: net/metrics). Safe for concurrent use.
func (m *Manager) TickLateness() Lateness {
	l := &m.late
	out := Lateness{Bucket: lateBucket, Counts: make([]uint64, len(l.buckets)), Sum: time.Duration(l.sum.Load()), Overruns: l.overruns.Load()}
	for i := range l.buckets {
		out.Counts[i] = l.buckets[i].Load()
	}
	return out
}
