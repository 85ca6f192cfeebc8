package instance

import (
	"time"

	"github.com/rtype/rtype/net/metrics/hist"
)

// How the tick schedule's figures are counted (hist.Histogram: lock-free, every worker adds):
// how late each game tick starts (the moment a worker takes it up, past the moment its slot of
// the schedule was due) in buckets of lateBucket up to 50 ms, and how long each takes to run
// (Game.Tick: the simulation step, replication and the snapshots of every client) in buckets of
// stepBucket up to 2 ms; the last bucket of each is open-ended.
const (
	lateBucket  = 100 * time.Microsecond
	lateBuckets = 501
	stepBucket  = 10 * time.Microsecond
	stepBuckets = 201
)

// TickLateness returns a copy of the histogram of how late the game ticks have started since
// the start (monitoring: net/metrics). Safe for concurrent use.
func (m *Manager) TickLateness() hist.Snapshot { return m.late.Snapshot() }

// TickDuration returns a copy of the histogram of how long game ticks took to run since the
// start (monitoring: net/metrics). Safe for concurrent use.
func (m *Manager) TickDuration() hist.Snapshot { return m.stepDur.Snapshot() }

// Overruns counts the times a game fell MaxCatchUp ticks behind and skipped ahead.
func (m *Manager) Overruns() uint64 { return m.overruns.Load() }
