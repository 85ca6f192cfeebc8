package fleet

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// downRecords is a slog handler that keeps the lines about one host's state, with the
// virtual time of each.
type downRecords struct {
	mu    sync.Mutex
	lines []downLine
}

type downLine struct {
	at     time.Time
	msg    string
	failed int64
}

func (h *downRecords) Enabled(context.Context, slog.Level) bool { return true }
func (h *downRecords) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "game host down" && r.Message != "game host up" {
		return nil
	}
	l := downLine{at: time.Now(), msg: r.Message}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "dials_failed" {
			l.failed = a.Value.Int64()
		}
		return true
	})
	h.mu.Lock()
	h.lines = append(h.lines, l)
	h.mu.Unlock()
	return nil
}
func (h *downRecords) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *downRecords) WithGroup(string) slog.Handler      { return h }
func (h *downRecords) get() []downLine {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]downLine(nil), h.lines...)
}

// TestGoneHostLoggedWithBackoff: a host that is not there for two hours is dialled again every
// few seconds (16 Redials at most), but logged only when its first dial fails, then
// DownLogEvery later, twice that after, ... up to MaxDownLogEvery, each line counting the
// dials failed so far; when it comes back, one "up" line sums the outage up. In virtual time.
func TestGoneHostLoggedWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const outage = 2 * time.Hour
		ln := netOf(t).listen()
		addr := ln.Addr().String()
		ln.Close() // nothing there
		rec := &downRecords{}
		start := time.Now()
		r := startRemoteWith(t, RemoteConfig{Hosts: []string{addr}, Logger: slog.New(rec)}) // Redial 10 ms: up to 160 ms
		time.Sleep(outage)
		dialsDuring := netOf(t).dialCount()
		h := NewHost(HostConfig{Secret: testSecret, Starter: &fakeStarter{port: 9000}, Capacity: 1, Logger: quiet(), Ping: 20 * time.Millisecond})
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan struct{})
		go func() { defer close(served); h.Serve(ctx, netOf(t).listenAt(addr)) }()
		defer func() { cancel(); <-served }()
		eventually(t, "the host up", func() bool { return r.Up() == 1 })

		lines := rec.get()
		// The lines are due at 0, 30 s, 1 m 30 s, 3 m 30 s, 7 m 30 s, 15 m 30 s, 31 m 30 s,
		// then every 30 min: 61 m 30 s, 91 m 30 s; then the up line.
		want := []time.Duration{0}
		for at, every := time.Duration(0), DownLogEvery; ; every = min(2*every, MaxDownLogEvery) {
			if at += every; at > outage {
				break
			}
			want = append(want, at)
		}
		if len(lines) != len(want)+1 {
			t.Fatalf("%d lines about the host in a %v outage (%d dials), want %d down lines at %v and one up: %+v", len(lines), outage, dialsDuring, len(want), want, lines)
		}
		if dialsDuring < int(outage/(160*time.Millisecond)) {
			t.Fatalf("%d dials in %v: the redials do not go on every 160 ms at most", dialsDuring, outage)
		}
		prev := int64(0)
		for i, w := range want {
			l := lines[i]
			// Each line comes with the first failed dial at or after its time: within a redial.
			if got := l.at.Sub(start); l.msg != "game host down" || got < w || got > w+200*time.Millisecond || l.failed <= prev {
				t.Fatalf("line %d: %q at %v with %d dials failed, want \"game host down\" at %v with more than %d", i, l.msg, got, l.failed, w, prev)
			}
			prev = l.failed
		}
		up := lines[len(lines)-1]
		if up.msg != "game host up" || up.failed < prev || up.failed > int64(dialsDuring)+1 {
			t.Fatalf("last line %q with %d dials failed, want \"game host up\" with %d..%d", up.msg, up.failed, prev, dialsDuring+1)
		}
	})
}
