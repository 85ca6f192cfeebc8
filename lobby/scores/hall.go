package scores

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/net/metrics/logsample"
)

// Defaults of Config.
const (
	DefaultQueueGames = 64
	DefaultQueueBytes = 64 << 20
	// FailureLogEvery is the sampling of the recorder's failure log: one line per period while
	// recording fails, however many games fail.
	FailureLogEvery = time.Minute
	// DefaultRetryMin and DefaultRetryMax bound the wait between two attempts to store the game
	// at the head of the queue while the database or the directory fails (doubling).
	DefaultRetryMin = 250 * time.Millisecond
	DefaultRetryMax = 10 * time.Second
	// storeTimeout bounds one attempt to store a game (file and row).
	storeTimeout = 30 * time.Second
	// orphanAge: a replay file without its row is removed at start once older than this (a
	// younger one may be another server's, sharing the directory and the database, between
	// its file and its row).
	orphanAge = 10 * time.Minute
	// refusedTries: a game the database refuses while it answers pings is dropped after this
	// many attempts (it would stall the queue for ever).
	refusedTries = 3
)

// Config configures a Hall.
type Config struct {
	// Dir is the data directory; replays go to Dir/replays (created).
	Dir string
	// Dialect and DSN name the database (ParseDB).
	Dialect Dialect
	DSN     string
	// KeepDays removes the replays of games older than this many days (0: no age limit);
	// KeepBytes removes the oldest replays while they take more than this (0: no size limit).
	// The ProtectTop best games of each stage and player count keep theirs. Rows are never
	// removed: the hall of fame keeps every score.
	KeepDays  int
	KeepBytes int64
	// QueueGames and QueueBytes bound the games (and their replay bytes) waiting to be stored;
	// past them a finished game is not kept (counted, logged).
	QueueGames int
	QueueBytes int64
	// RetryMin and RetryMax bound the wait between attempts while storing fails.
	RetryMin, RetryMax time.Duration
	Logger             *slog.Logger
	// Now is the wall clock (tests); nil: time.Now.
	Now func() time.Time
}

// Stats are a Hall's counters (rtype_scores_* metrics).
type Stats struct {
	Recorded    uint64 // games stored (row committed)
	Failures    uint64 // failed attempts to store a game (each retry counts)
	Dropped     uint64 // finished games not kept: the queue was full, or the database refused them
	Pruned      uint64 // replays removed by retention
	Queued      int    // games waiting to be stored
	ReplayBytes int64  // bytes of the replay files kept
	Failing     bool   // the latest attempt failed: recording is stopped until one succeeds
}

// job is one finished game waiting to be stored.
type job struct {
	rec    Record
	replay []byte
}

// Hall is the hall of fame's runtime over a Store: Record queues a finished game and returns at
// once; one goroutine writes its replay file (temporary file, fsync, rename, fsync of the
// directory: a kill -9 never leaves a cut replay under its final name), then commits its row,
// then applies retention. While the directory or the database fails, it keeps the game at the
// head of the queue and tries again (RetryMin doubling to RetryMax), logs one line per
// FailureLogEvery, and resumes where it stopped when they work again. Safe for concurrent use.
type Hall struct {
	cfg    Config
	log    *slog.Logger
	store  *Store
	dir    string // Dir/replays
	kick   chan struct{}
	quit   chan struct{}
	done   chan struct{}
	closed sync.Once
	// ctx bounds the recorder's database and file work; Close cancels it once its own ctx is
	// done, so that a database that hangs does not hold Close.
	ctx    context.Context
	cancel context.CancelFunc

	mu         sync.Mutex
	queue      []job
	queueBytes int64
	pending    map[uuid.UUID]bool // queued or being stored
	st         Stats
	warn       *logsample.Sampler[struct{}, struct{}] // the failure lines: one per FailureLogEvery
	epoch      time.Time                              // the sampler's time 0 (cfg.Now at Open)
}

// Open opens the data directory and the database, removes what a crash left behind (temporary
// files, replay files whose row was never committed), and starts the recorder.
func Open(ctx context.Context, cfg Config) (*Hall, error) {
	if cfg.QueueGames <= 0 {
		cfg.QueueGames = DefaultQueueGames
	}
	if cfg.QueueBytes <= 0 {
		cfg.QueueBytes = DefaultQueueBytes
	}
	if cfg.RetryMin <= 0 {
		cfg.RetryMin = DefaultRetryMin
	}
	if cfg.RetryMax < cfg.RetryMin {
		cfg.RetryMax = max(DefaultRetryMax, cfg.RetryMin)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Dir == "" {
		return nil, errors.New("scores: no data directory")
	}
	dir := filepath.Join(cfg.Dir, "replays")
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("scores: data directory: %w", err)
	}
	st, err := OpenStore(ctx, cfg.Dialect, cfg.DSN)
	if err != nil {
		return nil, err
	}
	h := &Hall{cfg: cfg, log: cfg.Logger, store: st, dir: dir, kick: make(chan struct{}, 1), quit: make(chan struct{}),
		done: make(chan struct{}), pending: map[uuid.UUID]bool{},
		warn: logsample.New[struct{}, struct{}](FailureLogEvery), epoch: cfg.Now()}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	if err := h.sweep(ctx); err != nil {
		h.cancel()
		st.Close()
		return nil, err
	}
	if err := h.classifyRuns(ctx); err != nil {
		h.cancel()
		st.Close()
		return nil, err
	}
	h.prune(ctx)
	go h.run()
	h.log.Info("hall of fame open", "db", st.Dialect().String(), "where", st.Where(), "replays", dir,
		"replay_bytes", h.Stats().ReplayBytes, "keep_days", cfg.KeepDays, "keep_bytes", cfg.KeepBytes)
	return h, nil
}

// Store is the Hall's database.
func (h *Hall) Store() *Store { return h.store }

// ReplayPath is where the replay of game id is kept.
func (h *Hall) ReplayPath(id uuid.UUID) string { return filepath.Join(h.dir, id.String()+ReplayExt) }

// Record queues the finished game rec with its replay file (nil: none) and returns at once: it
// never waits for the disk or the database. It returns false when the game is not kept (the
// queue is full: recording is failing or far behind; counted and logged).
func (h *Hall) Record(rec Record, replay []byte) bool {
	if err := rec.Check(); err != nil {
		h.mu.Lock()
		h.st.Dropped++
		h.mu.Unlock()
		h.log.Error("finished game not kept", "err", err)
		return false
	}
	if len(replay) > MaxReplayBytes {
		h.log.Warn("replay larger than the largest kept: the game is kept without it", "game", rec.ID, "bytes", len(replay), "max", MaxReplayBytes)
		replay = nil
	}
	rec.ReplayBytes = int64(len(replay))
	if rec.Ended.IsZero() {
		rec.Ended = h.cfg.Now()
	}
	h.mu.Lock()
	if len(h.queue) >= h.cfg.QueueGames || h.queueBytes+int64(len(replay)) > h.cfg.QueueBytes {
		h.st.Dropped++
		n := len(h.queue)
		line, skipped := h.sampled(h.cfg.Now())
		h.mu.Unlock()
		if line {
			h.log.Warn("game recording stopped: the queue of finished games is full; this game is not kept, games go on",
				"game", rec.ID, "queued", n, "lines_skipped", skipped)
		}
		return false
	}
	h.queue = append(h.queue, job{rec: rec, replay: replay})
	h.queueBytes += int64(len(replay))
	h.pending[rec.ID] = true
	h.st.Queued = len(h.queue)
	h.mu.Unlock()
	select {
	case h.kick <- struct{}{}:
	default:
	}
	return true
}

// Stats returns the Hall's counters.
func (h *Hall) Stats() Stats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.st
}

// Close stores what is queued (until ctx is done: the rest is lost, counted as dropped), stops
// the recorder and closes the database.
func (h *Hall) Close(ctx context.Context) error {
	h.closed.Do(func() {
		stop := context.AfterFunc(ctx, func() { close(h.quit); h.cancel() })
		h.mu.Lock()
		h.queue = append(h.queue, job{}) // the end marker
		h.mu.Unlock()
		select {
		case h.kick <- struct{}{}:
		default:
		}
		<-h.done
		if stop() {
			close(h.quit)
		}
		h.cancel()
		h.mu.Lock()
		for _, j := range h.queue {
			if j.rec.ID != uuid.Nil {
				h.st.Dropped++
			}
		}
		h.queue = nil
		h.mu.Unlock()
	})
	return h.store.Close()
}

// run stores the queued games in order until Close.
func (h *Hall) run() {
	defer close(h.done)
	lastPrune := h.cfg.Now()
	for {
		h.mu.Lock()
		var j job
		have := len(h.queue) > 0
		if have {
			j = h.queue[0]
		}
		h.mu.Unlock()
		if !have {
			select {
			case <-h.kick:
			case <-h.quit:
				return
			case <-time.After(time.Hour): // age-based retention of a quiet server
			}
			if h.cfg.Now().Sub(lastPrune) >= time.Hour {
				h.prune(h.ctx)
				lastPrune = h.cfg.Now()
			}
			continue
		}
		if j.rec.ID == uuid.Nil { // Close's marker: everything before it is stored
			return
		}
		if !h.storeJob(j) {
			return // Close gave up waiting
		}
		h.mu.Lock()
		h.queue = h.queue[1:]
		h.queueBytes -= int64(len(j.replay))
		delete(h.pending, j.rec.ID)
		h.st.Queued = len(h.queue)
		h.mu.Unlock()
		h.prune(h.ctx)
		lastPrune = h.cfg.Now()
	}
}

// storeJob stores j, trying again while the directory or the database fails. It returns false
// when Close gave up waiting.
func (h *Hall) storeJob(j job) bool {
	wait := h.cfg.RetryMin
	var since time.Time
	refused := 0
	for {
		err := h.storeOnce(j)
		if err == nil {
			h.mu.Lock()
			h.st.Recorded++
			h.st.ReplayBytes += int64(len(j.replay))
			was := h.st.Failing
			h.st.Failing = false
			h.warn.Reset(struct{}{})
			h.mu.Unlock()
			if was {
				h.log.Info("game recording resumed", "game", j.rec.ID, "stopped_for", h.cfg.Now().Sub(since).Round(time.Millisecond))
			}
			return true
		}
		now := h.cfg.Now()
		h.mu.Lock()
		h.st.Failures++
		if !h.st.Failing {
			since = now
		}
		h.st.Failing = true
		n := len(h.queue)
		line, skipped := h.sampled(now)
		h.mu.Unlock()
		var fe *fileError
		if !errors.As(err, &fe) && h.pingOK() {
			// The database answers but refuses this game: it would block the queue for ever.
			if refused++; refused >= refusedTries {
				h.mu.Lock()
				h.st.Dropped++
				h.mu.Unlock()
				os.Remove(h.ReplayPath(j.rec.ID)) // no row will name it
				h.log.Error("finished game not kept: the database refuses it", "game", j.rec.ID, "err", err)
				return true
			}
		}
		if line {
			h.log.Warn("game recording stopped: cannot store finished games (they wait in memory and are stored once this works again; games go on)",
				"err", err, "queued", n, "lines_skipped", skipped, "next_line_in", FailureLogEvery)
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-h.quit:
			t.Stop()
			return false
		}
		wait = min(2*wait, h.cfg.RetryMax)
	}
}

func (h *Hall) pingOK() bool {
	ctx, cancel := context.WithTimeout(h.ctx, 2*time.Second)
	defer cancel()
	return h.store.Ping(ctx) == nil
}

// storeOnce writes j's replay (when it has one), then commits its row.
func (h *Hall) storeOnce(j job) error {
	ctx, cancel := context.WithTimeout(h.ctx, storeTimeout)
	defer cancel()
	if len(j.replay) > 0 {
		if err := writeAtomic(h.dir, j.rec.ID.String()+ReplayExt, j.replay); err != nil {
			return &fileError{err}
		}
	}
	return h.store.Add(ctx, &j.rec)
}

// fileError is a failure of the data directory (full disk, read-only, gone).
type fileError struct{ err error }

func (e *fileError) Error() string { return "replay file: " + e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// Games answers a hall-of-fame query (lobby GET_SCORES and GET_GAMES).
func (h *Hall) Games(ctx context.Context, q Query) ([]Record, error) { return h.store.Games(ctx, q) }

// ReplayPart returns part (0..parts-1) of the replay of game id, cut in ReplayPartBytes pieces
// (lobby GET_REPLAY): ErrNoReplay when none is kept, ErrPending while it waits to be written,
// *PartRangeError past the last part. It reads the file only: it works while the database is
// down.
func (h *Hall) ReplayPart(_ context.Context, id uuid.UUID, part int) (parts int, data []byte, err error) {
	f, err := os.Open(h.ReplayPath(id))
	if err != nil {
		h.mu.Lock()
		p := h.pending[id]
		h.mu.Unlock()
		if p {
			return 0, nil, ErrPending
		}
		if errors.Is(err, os.ErrNotExist) {
			return 0, nil, ErrNoReplay
		}
		return 0, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, nil, err
	}
	size := fi.Size()
	if size == 0 || size > MaxReplayBytes {
		return 0, nil, ErrNoReplay
	}
	parts = int((size + ReplayPartBytes - 1) / ReplayPartBytes)
	if part < 0 || part >= parts {
		return parts, nil, &PartRangeError{Parts: parts}
	}
	data = make([]byte, min(ReplayPartBytes, size-int64(part)*ReplayPartBytes))
	if _, err := f.ReadAt(data, int64(part)*ReplayPartBytes); err != nil {
		return 0, nil, err
	}
	return parts, data, nil
}

// Replay returns the whole replay of game id (ErrNoReplay, ErrPending as ReplayPart).
func (h *Hall) Replay(id uuid.UUID) ([]byte, error) {
	b, err := os.ReadFile(h.ReplayPath(id))
	if err != nil {
		h.mu.Lock()
		p := h.pending[id]
		h.mu.Unlock()
		switch {
		case p:
			return nil, ErrPending
		case errors.Is(err, os.ErrNotExist):
			return nil, ErrNoReplay
		}
		return nil, err
	}
	return b, nil
}

// sweep removes what a crash left in the replays directory: temporary files, and replay files
// whose row was never committed (older than orphanAge); and counts the bytes kept.
func (h *Hall) sweep(ctx context.Context) error {
	rows, err := h.store.replays(ctx)
	if err != nil {
		return err
	}
	kept := make(map[string]bool, len(rows))
	for _, r := range rows {
		kept[r.id.String()+ReplayExt] = true
	}
	ents, err := os.ReadDir(h.dir)
	if err != nil {
		return fmt.Errorf("scores: data directory: %w", err)
	}
	var total int64
	removed := 0
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		switch {
		case strings.HasPrefix(name, tmpPrefix):
			if h.cfg.Now().Sub(fi.ModTime()) > orphanAge {
				os.Remove(filepath.Join(h.dir, name))
				removed++
			}
		case strings.HasSuffix(name, ReplayExt) && !kept[name]:
			if h.cfg.Now().Sub(fi.ModTime()) > orphanAge {
				os.Remove(filepath.Join(h.dir, name))
				removed++
			}
		case kept[name]:
			total += fi.Size()
		}
	}
	if removed > 0 {
		h.log.Info("removed files an interrupted run left in the replays directory", "dir", h.dir, "files", removed)
	}
	h.mu.Lock()
	h.st.ReplayBytes = total
	h.mu.Unlock()
	return nil
}

// prune applies retention (Config.KeepDays, KeepBytes): the replays of the oldest games go first,
// those of the ProtectTop best games of each stage and player count never. Each game's row is
// marked first, then its file removed. Failures are logged (sampled) and left for the next pass.
func (h *Hall) prune(ctx context.Context) {
	if h.cfg.KeepDays <= 0 && h.cfg.KeepBytes <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	if err := h.pruneOnce(ctx); err != nil {
		h.mu.Lock()
		line, skipped := h.sampled(h.cfg.Now())
		h.mu.Unlock()
		if line {
			h.log.Warn("replay retention failed; it runs again after the next game", "err", err, "lines_skipped", skipped)
		}
	}
}

func (h *Hall) pruneOnce(ctx context.Context) error {
	rows, err := h.store.replays(ctx)
	if err != nil {
		return err
	}
	var total int64
	for _, r := range rows {
		total += r.bytes
	}
	cutoff := int64(-1)
	if h.cfg.KeepDays > 0 {
		cutoff = h.cfg.Now().Add(-time.Duration(h.cfg.KeepDays) * 24 * time.Hour).UnixMilli()
	}
	overAge := len(rows) > 0 && rows[0].ended < cutoff
	if !overAge && (h.cfg.KeepBytes <= 0 || total <= h.cfg.KeepBytes) {
		return nil
	}
	top, err := h.store.topGames(ctx)
	if err != nil {
		return err
	}
	for _, r := range rows { // oldest first
		old := r.ended < cutoff
		big := h.cfg.KeepBytes > 0 && total > h.cfg.KeepBytes
		if !old && !big {
			break
		}
		if top[r.id] {
			continue
		}
		if err := h.store.dropReplay(ctx, r.id); err != nil {
			return err
		}
		if err := os.Remove(h.ReplayPath(r.id)); err != nil && !errors.Is(err, os.ErrNotExist) {
			h.log.Warn("pruned replay file not removed", "game", r.id, "err", err)
		}
		total -= r.bytes
		h.mu.Lock()
		h.st.Pruned++
		h.st.ReplayBytes -= r.bytes
		h.mu.Unlock()
	}
	return nil
}

// sampled reports whether a failure line may be logged at now, and how many were not since the
// last. Call it with h.mu held.
func (h *Hall) sampled(now time.Time) (bool, uint64) {
	ok, before := h.warn.Hit(now.Sub(h.epoch), struct{}{}, struct{}{})
	return ok, before.Skipped
}
