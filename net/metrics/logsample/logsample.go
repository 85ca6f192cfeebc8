// Package logsample decides which of a stream of like events get a log line, so that a flood
// cannot fill a disk: the UDP drops of the game runtime (net/instance, by reason), the limits
// the lobby enforces (lobby/lobbyserver, by limit and address) and the hall of fame's failures
// (lobby/scores/scoredb). Per key, the first event of a window is logged; the others are only counted,
// and their number is reported when the window is over: with the key's next event (Hit), or by
// Flush, which the runtime calls now and then so that the end of a flood is reported when it
// ends. The caller writes the lines (its messages and levels); time is passed in.
package logsample

import "time"

// MaxKeys bounds the keys a Sampler keeps: with more (a flood from many addresses), the keys
// whose window is over are forgotten, their counts with them.
const MaxKeys = 4096

// Sampler samples the events of keys K; each key keeps a value V (the latest event's, for the
// summary line). The zero value is not usable: call New. Not safe for concurrent use.
type Sampler[K comparable, V any] struct {
	window time.Duration
	keys   map[K]*window[V]
}

type window[V any] struct {
	since   time.Duration // the start of the window (its first event)
	skipped uint64        // events counted, not logged, since
	last    V
}

// Report is what a Sampler says of a key's window that is over: Skipped events were counted and
// not logged since Since (the window's first event, which was), the latest carrying Last.
type Report[V any] struct {
	Skipped uint64
	Since   time.Duration
	Last    V
}

// New returns a Sampler that logs one event per key per window.
func New[K comparable, V any](every time.Duration) *Sampler[K, V] {
	return &Sampler[K, V]{window: every, keys: map[K]*window[V]{}}
}

// Hit counts an event of key at now, carrying v. It reports whether to log it (the first of a
// window) and, when so, the key's window before: before.Skipped events of it were not logged
// (0: none; else their summary line comes first). It does not allocate for an event it only
// counts.
func (s *Sampler[K, V]) Hit(now time.Duration, key K, v V) (log bool, before Report[V]) {
	w := s.keys[key]
	if w != nil && now-w.since < s.window {
		w.skipped++
		w.last = v
		return false, Report[V]{}
	}
	if w != nil {
		before = Report[V]{Skipped: w.skipped, Since: w.since, Last: w.last}
	}
	if w == nil {
		if len(s.keys) >= MaxKeys {
			s.forget(now)
		}
		w = &window[V]{}
		s.keys[key] = w
	}
	*w = window[V]{since: now, last: v}
	return true, before
}

// Flush calls done with each key whose window is over at now and holds events not logged, then
// forgets every key whose window is over.
func (s *Sampler[K, V]) Flush(now time.Duration, done func(key K, r Report[V])) {
	for k, w := range s.keys {
		if now-w.since >= s.window {
			if w.skipped > 0 {
				done(k, Report[V]{Skipped: w.skipped, Since: w.since, Last: w.last})
			}
			delete(s.keys, k)
		}
	}
}

// Pending reports whether a key's window is open: a later Flush may have a count to report.
func (s *Sampler[K, V]) Pending() bool { return len(s.keys) > 0 }

// Reset forgets key: its next event is logged at once (the trouble it reported is over).
func (s *Sampler[K, V]) Reset(key K) { delete(s.keys, key) }

func (s *Sampler[K, V]) forget(now time.Duration) {
	for k, w := range s.keys {
		if now-w.since >= s.window {
			delete(s.keys, k)
		}
	}
}
