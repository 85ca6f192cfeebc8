package instance

import (
	"sync"
	"time"
)

// lateness records how late the tick schedule fires (time past each tick's due moment) in a
// histogram of 0.1 ms buckets up to 50 ms, and the ticks a game had to skip (overruns).
type lateness struct {
	mu       sync.Mutex
	buckets  [501]uint64
	n        uint64
	sum      time.Duration
	max      time.Duration
	overruns uint64
}

const lateBucket = 100 * time.Microsecond

func (l *lateness) add(d time.Duration) {
	d = max(d, 0)
	i := min(int(d/lateBucket), len(l.buckets)-1)
	l.mu.Lock()
	l.buckets[i]++
	l.n++
	l.sum += d
	l.max = max(l.max, d)
	l.mu.Unlock()
}

func (l *lateness) overrun() {
	l.mu.Lock()
	l.overruns++
	l.mu.Unlock()
}

// summary returns the 50th and 99th percentiles (bucket upper bounds), the maximum and the
// overruns.
func (l *lateness) summary() (p50, p99, mx time.Duration, overruns uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := func(f float64) time.Duration {
		if l.n == 0 {
			return 0
		}
		want := uint64(f * float64(l.n))
		var c uint64
		for i, b := range l.buckets {
			c += b
			if c > want {
				return time.Duration(i+1) * lateBucket
			}
		}
		return l.max
	}
	return q(0.5), q(0.99), l.max, l.overruns
}

// Lateness is a copy of the tick schedule's lateness histogram (Manager.TickLateness).
type Lateness struct {
	Bucket   time.Duration // width of a bucket (0.1 ms)
	Counts   []uint64      // Counts[i]: ticks that fired i*Bucket to (i+1)*Bucket late; the last bucket: that or later
	Sum      time.Duration // total lateness of every tick
	Overruns uint64        // ticks games skipped (MaxCatchUp)
}

// TickLateness returns a copy of how late the 60 Hz schedule has fired since the start
// (monitoring: net/metrics).
func (m *Manager) TickLateness() Lateness {
	l := &m.late
	l.mu.Lock()
	defer l.mu.Unlock()
	return Lateness{Bucket: lateBucket, Counts: append([]uint64(nil), l.buckets[:]...), Sum: l.sum, Overruns: l.overruns}
}
