package scoredb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/lobby/scores"
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
	// Verify, when set, is asked of every finished game before it is stored (in the recorder's
	// goroutine, never on the caller's): an error keeps the game out of the hall of fame
	// (Stats.Unverified, logged). The server's replays the game's replay to its end and checks
	// the hashes and that the results are what the game reported (net/server VerifyGame).
	Verify func(rec *scores.Record, replay []byte) error
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
	// Unverified counts the finished games kept out because Config.Verify refused them;
	// Verified those it passed, VerifyTime the time spent verifying (both).
	Unverified, Verified uint64
	VerifyTime           time.Duration
}

// job is one finished game waiting to be stored.
type job struct {
	rec    scores.Record
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
	store  atomic.Pointer[Store] // nil until the database first answered (Open: connectLater)
	dir    string                // Dir/replays
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
	var down *ConnectError
	if err != nil && !errors.As(err, &down) {
		return nil, err
	}
	h := &Hall{cfg: cfg, log: cfg.Logger, dir: dir, kick: make(chan struct{}, 1), quit: make(chan struct{}),
		done: make(chan struct{}), pending: map[uuid.UUID]bool{},
		warn: logsample.New[struct{}, struct{}](FailureLogEvery), epoch: cfg.Now()}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	if down != nil {
		// A database that is down at start (PostgreSQL still booting, a network outage) is
		// not a reason to refuse games: the recorder connects when it answers, and finished
		// games wait in the queue meanwhile, as during an outage of a running server.
		h.st.Failing = true
		h.log.Warn("hall of fame: the database does not answer; games go on, their results wait in memory and are stored once it does",
			"err", err, "queue_games", cfg.QueueGames)
		go h.run(true)
		return h, nil
	}
	if err := h.ready(ctx, st); err != nil {
		h.cancel()
		st.Close()
		return nil, err
	}
	go h.run(false)
	return h, nil
}

// ready takes st as the Hall's store: it removes what a crash left, applies retention and
// says where the hall is.
func (h *Hall) ready(ctx context.Context, st *Store) error {
	h.store.Store(st)
	if err := h.sweep(ctx); err != nil {
		h.store.Store(nil)
		return err
	}
	if err := h.classifyRuns(ctx); err != nil {
		h.store.Store(nil)
		return err
	}
	h.prune(ctx)
	h.log.Info("hall of fame open", "db", st.Dialect().String(), "where", st.Where(), "replays", h.dir,
		"replay_bytes", h.Stats().ReplayBytes, "keep_days", h.cfg.KeepDays, "keep_bytes", h.cfg.KeepBytes)
	return nil
}

// connect tries to open the database until it answers (RetryMin doubling to RetryMax, a log
// line per FailureLogEvery) or Close; it reports whether the store is ready.
func (h *Hall) connect() bool {
	wait := h.cfg.RetryMin
	since := h.cfg.Now()
	for {
		ctx, cancel := context.WithTimeout(h.ctx, storeTimeout)
		st, err := OpenStore(ctx, h.cfg.Dialect, h.cfg.DSN)
		if err == nil {
			err = h.ready(ctx, st)
			if err != nil {
				st.Close()
			}
		}
		cancel()
		if err == nil {
			h.mu.Lock()
			h.st.Failing = false
			h.mu.Unlock()
			h.log.Info("hall of fame: the database answers; recording starts", "waited", h.cfg.Now().Sub(since).Round(time.Millisecond))
			return true
		}
		h.mu.Lock()
		h.st.Failures++
		line, skipped := h.sampled(h.cfg.Now())
		h.mu.Unlock()
		if line {
			h.log.Warn("hall of fame: the database still does not answer; games go on", "err", err, "lines_skipped", skipped, "next_line_in", FailureLogEvery)
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

// Store is the Hall's database.
// It is nil while a database that was down at Open has not answered yet.
func (h *Hall) Store() *Store { return h.store.Load() }

// ReplayPath is where the replay of game id is kept.
func (h *Hall) ReplayPath(id uuid.UUID) string {
	return filepath.Join(h.dir, id.String()+scores.ReplayExt)
}

// Record queues the finished game rec with its replay file (nil: none) and returns at once: it
// never waits for the disk or the database. It returns false when the game is not kept (the
// queue is full: recording is failing or far behind; counted and logged).
func (h *Hall) Record(rec scores.Record, replay []byte) bool {
	if err := rec.Check(); err != nil {
		h.mu.Lock()
		h.st.Dropped++
		h.mu.Unlock()
		h.log.Error("finished game not kept", "err", err)
		return false
	}
	if len(replay) > scores.MaxReplayBytes {
		h.log.Warn("replay larger than the largest kept: the game is kept without it", "game", rec.ID, "bytes", len(replay), "max", scores.MaxReplayBytes)
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
	if st := h.store.Load(); st != nil {
		return st.Close()
	}
	return nil
}

// run stores the queued games in order until Close; connectFirst: the database was down at Open.
func (h *Hall) run(connectFirst bool) {
	defer close(h.done)
	if connectFirst && !h.connect() {
		return
	}
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
		if h.verified(j) && !h.storeJob(j) {
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

// verified reports whether j may be stored: Config.Verify (if any) accepts it.
func (h *Hall) verified(j job) bool {
	if h.cfg.Verify == nil {
		return true
	}
	start := time.Now()
	err := h.cfg.Verify(&j.rec, j.replay)
	took := time.Since(start)
	h.mu.Lock()
	h.st.VerifyTime += took
	if err != nil {
		h.st.Unverified++
	} else {
		h.st.Verified++
	}
	h.mu.Unlock()
	if err != nil {
		h.log.Error("finished game kept out of the hall of fame: it does not verify", "game", j.rec.ID, "stage", j.rec.Stage,
			"score", j.rec.Score(), "ticks", j.rec.Ticks, "err", err)
		return false
	}
	return true
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
	st := h.store.Load()
	return st != nil && st.Ping(ctx) == nil
}

// storeOnce writes j's replay (when it has one), then commits its row.
func (h *Hall) storeOnce(j job) error {
	ctx, cancel := context.WithTimeout(h.ctx, storeTimeout)
	defer cancel()
	if len(j.replay) > 0 {
		if err := writeAtomic(h.dir, j.rec.ID.String()+scores.ReplayExt, j.replay); err != nil {
			return &fileError{err}
		}
	}
	st := h.store.Load()
	if st == nil {
		return scores.ErrUnavailable
	}
	return st.Add(ctx, &j.rec)
}

// fileError is a failure of the data directory (full disk, read-only, gone).
type fileError struct{ err error }

func (e *fileError) Error() string { return "replay file: " + e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// Games answers a hall-of-fame query (lobby GET_SCORES and GET_GAMES).
// scores.ErrUnavailable while a database that was down at Open has not answered yet.
func (h *Hall) Games(ctx context.Context, q scores.Query) ([]scores.Record, error) {
	st := h.store.Load()
	if st == nil {
		return nil, scores.ErrUnavailable
	}
	return st.Games(ctx, q)
}

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
			return 0, nil, scores.ErrPending
		}
		if errors.Is(err, os.ErrNotExist) {
			return 0, nil, scores.ErrNoReplay
		}
		return 0, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, nil, err
	}
	size := fi.Size()
	if size == 0 || size > scores.MaxReplayBytes {
		return 0, nil, scores.ErrNoReplay
	}
	parts = int((size + scores.ReplayPartBytes - 1) / scores.ReplayPartBytes)
	if part < 0 || part >= parts {
		return parts, nil, &scores.PartRangeError{Parts: parts}
	}
	data = make([]byte, min(scores.ReplayPartBytes, size-int64(part)*scores.ReplayPartBytes))
	if _, err := f.ReadAt(data, int64(part)*scores.ReplayPartBytes); err != nil {
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
			return nil, scores.ErrPending
		case errors.Is(err, os.ErrNotExist):
			return nil, scores.ErrNoReplay
		}
		return nil, err
	}
	return b, nil
}

// sweep removes what a crash left in the replays directory: temporary files no live writer
// holds (any age), and replay files whose row was never committed (older than orphanAge); and
// counts the bytes kept.
func (h *Hall) sweep(ctx context.Context) error {
	rows, err := h.store.Load().replays(ctx)
	if err != nil {
		return err
	}
	kept := make(map[string]bool, len(rows))
	for _, r := range rows {
		kept[r.id.String()+scores.ReplayExt] = true
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
			// A temporary file no live writer holds is what a killed run left, whatever its
			// age (and whatever -keep-bytes: it is not a replay); one still held is another
			// server's, being written.
			if abandoned(filepath.Join(h.dir, name)) || h.cfg.Now().Sub(fi.ModTime()) > orphanAge {
				os.Remove(filepath.Join(h.dir, name))
				removed++
			}
		case strings.HasSuffix(name, scores.ReplayExt) && !kept[name]:
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
	rows, err := h.store.Load().replays(ctx)
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
	top, err := h.store.Load().topGames(ctx)
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
		if err := h.store.Load().dropReplay(ctx, r.id); err != nil {
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
