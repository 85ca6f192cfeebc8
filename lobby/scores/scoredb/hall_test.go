package scoredb

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/scores"
)

// logBuf is a slog destination the test reads.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), s)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func openHall(t *testing.T, cfg Config) (*Hall, *logBuf) {
	t.Helper()
	lb := &logBuf{}
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	cfg.Logger = slog.New(slog.NewTextHandler(lb, nil))
	if cfg.RetryMin == 0 {
		cfg.RetryMin, cfg.RetryMax = 5*time.Millisecond, 20*time.Millisecond
	}
	h, err := Open(ctx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h, lb
}

// waitFor polls cond (the recorder works on its own goroutine) for at most 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func recorded(h *Hall, n uint64) func() bool { return func() bool { return h.Stats().Recorded >= n } }

func TestHallReplayParts(t *testing.T) {
	eachBackend(t, func(t *testing.T, d Dialect, dsn string) {
		h, _ := openHall(t, Config{Dialect: d, DSN: dsn})
		r := rec("stage1", 0, rules.ResultVictory, 100, 200)
		data := replayFor(r.ID, 2*scores.ReplayPartBytes+5)
		if !h.Record(r, data) {
			t.Fatal("Record refused a game")
		}
		noReplay := rec("stage1", time.Second, rules.ResultDefeat, 5)
		h.Record(noReplay, nil)
		waitFor(t, "two games stored", recorded(h, 2))
		var got []byte
		for part := 0; part < 3; part++ {
			parts, b, err := h.ReplayPart(ctx(t), r.ID, part)
			if err != nil || parts != 3 {
				t.Fatalf("part %d: %d parts, %v", part, parts, err)
			}
			got = append(got, b...)
		}
		if !bytes.Equal(got, data) {
			t.Fatal("the parts do not make the replay")
		}
		var pe *scores.PartRangeError
		if _, _, err := h.ReplayPart(ctx(t), r.ID, 3); !errors.As(err, &pe) || pe.Parts != 3 {
			t.Fatalf("part 3: %v", err)
		}
		if _, _, err := h.ReplayPart(ctx(t), noReplay.ID, 0); !errors.Is(err, scores.ErrNoReplay) {
			t.Fatalf("a game without replay: %v", err)
		}
		if _, _, err := h.ReplayPart(ctx(t), uuid.New(), 0); !errors.Is(err, scores.ErrNoReplay) {
			t.Fatalf("an unknown game: %v", err)
		}
		g, ok, err := h.Store().Game(ctx(t), r.ID)
		if err != nil || !ok || g.ReplayBytes != int64(len(data)) || g.Score() != 300 {
			t.Fatalf("the row: %+v %v %v", g, ok, err)
		}
		if st := h.Stats(); st.ReplayBytes != int64(len(data)) || st.Failures != 0 || st.Dropped != 0 {
			t.Fatalf("stats %+v", st)
		}
	})
}

func TestHallRetention(t *testing.T) {
	eachBackend(t, func(t *testing.T, d Dialect, dsn string) {
		now := day0.Add(time.Hour)
		const size = 1000
		h, _ := openHall(t, Config{Dialect: d, DSN: dsn, KeepBytes: 5 * size, KeepDays: 30, Now: func() time.Time { return now }})
		// The best game, 40 days old: older than -keep-days, but the top of stage1 solo.
		best := rec("stage1", -40*24*time.Hour, rules.ResultVictory, 1_000_000)
		old := rec("stage1", -31*24*time.Hour, rules.ResultAborted, 1) // too old, and not ranked
		h.Record(best, replayFor(best.ID, size))
		h.Record(old, replayFor(old.ID, size))
		waitFor(t, "two games", recorded(h, 2))
		waitFor(t, "the old replay pruned", func() bool { return h.Stats().Pruned == 1 })
		if _, _, err := h.ReplayPart(ctx(t), old.ID, 0); !errors.Is(err, scores.ErrNoReplay) {
			t.Fatalf("the old game's replay: %v", err)
		}
		// ProtectTop duo games with high scores, then solo games with low ones: over 5 replays
		// the oldest unprotected go.
		var top, low []scores.Record
		for i := range ProtectTop {
			r := rec("stage1", time.Duration(i)*time.Second, rules.ResultDefeat, 50_000, uint32(i))
			top = append(top, r)
			h.Record(r, replayFor(r.ID, size))
		}
		for i := range 4 {
			r := rec("stage1", time.Duration(100+i)*time.Second, rules.ResultDefeat, uint32(i))
			low = append(low, r)
			h.Record(r, replayFor(r.ID, size))
		}
		waitFor(t, "all games", recorded(h, uint64(2+ProtectTop+4)))
		has := func(r scores.Record) bool {
			_, _, err := h.ReplayPart(ctx(t), r.ID, 0)
			return err == nil
		}
		if !has(best) {
			t.Fatal("the best game's replay was pruned")
		}
		for _, r := range top {
			if !has(r) {
				t.Fatal("a top-10 duo replay was pruned")
			}
		}
		// Solo stage1: best + 4 low ones = 5 ranked games, all in the top 10: all protected.
		for _, r := range low {
			if !has(r) {
				t.Fatal("a top-10 solo replay was pruned")
			}
		}
		// An 11th duo game below the 10 others is not protected: over the size limit, it goes.
		extra := rec("stage1", 200*time.Second, rules.ResultDefeat, 1, 1)
		h.Record(extra, replayFor(extra.ID, size))
		waitFor(t, "the extra game", recorded(h, uint64(2+ProtectTop+4+1)))
		waitFor(t, "the extra replay pruned", func() bool { return !has(extra) })
		g, _, _ := h.Store().Game(ctx(t), extra.ID)
		if g.ReplayBytes != 0 || g.Score() != 2 {
			t.Fatalf("a pruned game's row: %+v (the row stays, its replay is marked gone)", g)
		}
		if _, err := os.Stat(h.ReplayPath(extra.ID)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the pruned replay's file: %v", err)
		}
	})
}

// TestHallDatabaseGone stops PostgreSQL under a running Hall: Record never blocks, the failure
// is logged once (sampled), nothing is lost, and recording resumes when the database is back.
func TestHallDatabaseGone(t *testing.T) {
	pg := startPG(t)
	defer pg.stop()
	h, lb := openHall(t, Config{Dialect: Postgres, DSN: pg.newDB(t)})
	first := rec("stage1", 0, rules.ResultDefeat, 1)
	h.Record(first, replayFor(first.ID, 100))
	waitFor(t, "a game stored", recorded(h, 1))
	pg.halt(t)
	var gone []scores.Record
	for i := range 5 {
		r := rec("stage1", time.Duration(i+1)*time.Second, rules.ResultDefeat, uint32(10+i))
		gone = append(gone, r)
		t0 := time.Now()
		if !h.Record(r, replayFor(r.ID, 100)) {
			t.Fatal("Record refused a game while the queue has room")
		}
		if d := time.Since(t0); d > 100*time.Millisecond {
			t.Fatalf("Record took %v while the database is down", d)
		}
	}
	waitFor(t, "several failed attempts", func() bool { return h.Stats().Failures >= 5 })
	if _, _, err := h.ReplayPart(ctx(t), gone[4].ID, 0); !errors.Is(err, scores.ErrPending) && err != nil {
		t.Fatalf("a queued game's replay: %v, want ErrPending or the file", err)
	}
	if n := lb.count("game recording stopped"); n != 1 {
		t.Fatalf("%d 'recording stopped' lines, want 1 (one a minute):\n%s", n, lb)
	}
	if !h.Stats().Failing {
		t.Fatal("Stats.Failing is false while the database is down")
	}
	pg.start(t)
	waitFor(t, "the queued games stored once the database is back", recorded(h, 6))
	if lb.count("game recording resumed") != 1 {
		t.Fatalf("no 'resumed' line:\n%s", lb)
	}
	rs, err := h.Games(ctx(t), scores.Query{Order: scores.Recent})
	if err != nil || len(rs) != 6 {
		t.Fatalf("%d games after the outage (%v), want 6", len(rs), err)
	}
	if st := h.Stats(); st.Dropped != 0 || st.Failing || st.Queued != 0 {
		t.Fatalf("stats after the outage: %+v", st)
	}
}

// TestHallDirectoryGone makes the replays directory unusable (a file in its place: a full or
// read-only disk as far as the recorder can tell, even as root): games go on, the queue fills
// and then refuses, the log says so once, and recording resumes when the directory is back.
func TestHallDirectoryGone(t *testing.T) {
	dir := t.TempDir()
	h, lb := openHall(t, Config{Dir: dir, Dialect: SQLite, DSN: filepath.Join(dir, "rtype.db"), QueueGames: 3})
	rd := filepath.Join(dir, "replays")
	if err := os.RemoveAll(rd); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rd, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	var kept int
	for i := range 5 {
		r := rec("stage1", time.Duration(i)*time.Second, rules.ResultDefeat, uint32(i))
		if h.Record(r, replayFor(r.ID, 100)) {
			kept++
		}
	}
	if kept != 3 {
		t.Fatalf("%d games queued, want 3 (QueueGames)", kept)
	}
	waitFor(t, "failed attempts", func() bool { return h.Stats().Failures >= 3 })
	st := h.Stats()
	if st.Dropped != 2 || st.Recorded != 0 {
		t.Fatalf("stats while the directory is gone: %+v", st)
	}
	if n := lb.count("game recording stopped"); n != 1 {
		t.Fatalf("%d 'recording stopped' lines, want 1:\n%s", n, lb)
	}
	os.Remove(rd)
	if err := os.Mkdir(rd, 0o750); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the queued games stored", recorded(h, 3))
	if lb.count("game recording resumed") != 1 {
		t.Fatalf("no 'resumed' line:\n%s", lb)
	}
}

func TestHallCloseStoresQueue(t *testing.T) {
	dir := t.TempDir()
	h, err := Open(ctx(t), Config{Dir: dir, Dialect: SQLite, DSN: filepath.Join(dir, "rtype.db"), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		r := rec("stage1", time.Duration(i)*time.Second, rules.ResultDefeat, uint32(i))
		h.Record(r, replayFor(r.ID, 3000))
	}
	if err := h.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if st := h.Stats(); st.Recorded != 5 || st.Dropped != 0 {
		t.Fatalf("after Close: %+v, want the 5 queued games stored", st)
	}
}

// TestHallDatabaseDownAtStart: a PostgreSQL that is down when the server starts does not stop
// it (it used to exit 1): Open returns a Hall that records nothing yet — games are queued,
// queries say the hall is unavailable — and stores the queued games once the database answers.
func TestHallDatabaseDownAtStart(t *testing.T) {
	pg := startPG(t)
	defer pg.stop()
	dsn := pg.newDB(t)
	pg.halt(t)
	h, lb := openHall(t, Config{Dialect: Postgres, DSN: dsn})
	if !h.Stats().Failing || h.Store() != nil {
		t.Fatalf("a hall whose database is down: failing %v, store %v", h.Stats().Failing, h.Store())
	}
	if _, err := h.Games(ctx(t), scores.Query{Order: scores.Recent}); !errors.Is(err, scores.ErrUnavailable) {
		t.Fatalf("a query while the database is down: %v, want scores.ErrUnavailable", err)
	}
	waiting := rec("stage1", 0, rules.ResultDefeat, 7)
	if !h.Record(waiting, replayFor(waiting.ID, 100)) {
		t.Fatal("Record refused a game while the database is down at start")
	}
	waitFor(t, "several connection attempts", func() bool { return h.Stats().Failures >= 3 })
	pg.start(t)
	waitFor(t, "the queued game stored once the database answers", recorded(h, 1))
	rs, err := h.Games(ctx(t), scores.Query{Order: scores.Recent})
	if err != nil || len(rs) != 1 || rs[0].ID != waiting.ID {
		t.Fatalf("games once the database answers: %+v %v", rs, err)
	}
	if h.Stats().Failing || lb.count("the database answers; recording starts") != 1 {
		t.Fatalf("stats %+v; log:\n%s", h.Stats(), lb)
	}
}
