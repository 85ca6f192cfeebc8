package instance

import (
	"sync/atomic"
	"time"
)

// stepDurations records how long each game tick takes to run (Game.Tick: the simulation step,
// replication and the snapshots of every client) in a histogram of 10 µs buckets up to 2 ms.
// Lock-free: every worker adds to it.
type stepDurations struct {
	buckets [stepBuckets + 1]atomic.Uint64 // the last: stepBuckets·stepBucket or more
	sum     atomic.Int64                   // ns
}

const (
	stepBucket  = 10 * time.Microsecond
	stepBuckets = 200
)

func (s *stepDurations) add(d time.Duration) {
	s.buckets[min(int(d/stepBucket), stepBuckets)].Add(1)
	s.sum.Add(int64(d))
}

// TickDuration returns a copy of the histogram of how long game ticks took to run since the
// start, in the Lateness form (monitoring: net/metrics). Safe for concurrent use.
func (m *Manager) TickDuration() Lateness {
	s := &m.stepDur
	out := Lateness{Bucket: stepBucket, Counts: make([]uint64, len(s.buckets)), Sum: time.Duration(s.sum.Load())}
	for i := range s.buckets {
		out.Counts[i] = s.buckets[i].Load()
	}
	return out
}
