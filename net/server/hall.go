package server

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // -db postgres://...
	_ "modernc.org/sqlite"             // -db sqlite (the default)

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/lobby/scores"
	"github.com/rtype/rtype/lobby/scores/scoredb"
	"github.com/rtype/rtype/net/fleet"
	"github.com/rtype/rtype/net/instance"
)

// hallCloseTimeout bounds the time Run waits at shutdown for the finished games still queued
// (the games aborted by the shutdown among them) to be stored; hallCloseFailing when recording
// is failing already (the disk or the database is gone: waiting would only delay the exit).
const (
	hallCloseTimeout = 5 * time.Second
	hallCloseFailing = 500 * time.Millisecond
)

// closeHall stores what it can of the queue and closes the hall of fame.
func closeHall(h *scoredb.Hall, log *slog.Logger) {
	d := hallCloseTimeout
	if h.Stats().Failing {
		d = hallCloseFailing
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	before := h.Stats().Dropped
	h.Close(ctx)
	if lost := h.Stats().Dropped - before; lost > 0 {
		log.Warn("hall of fame closed with finished games not stored", "games", lost)
	}
}

// openHall opens the hall of fame cfg asks for (nil when -db is off).
func openHall(ctx context.Context, cfg Config, log *slog.Logger) (*scoredb.Hall, error) {
	if cfg.DB == "" || cfg.DB == "off" {
		return nil, nil
	}
	if cfg.DataDir == "" {
		return nil, fmt.Errorf("-db %s needs a data directory (-data)", cfg.DB)
	}
	d, dsn, err := scoredb.ParseDB(cfg.DB, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	verify := VerifyGame
	if cfg.NoVerify {
		verify = nil
	}
	return scoredb.Open(octx, scoredb.Config{Dir: cfg.DataDir, Dialect: d, DSN: dsn, KeepDays: cfg.KeepDays, KeepBytes: cfg.KeepBytes, Logger: log,
		Verify: verify})
}

// keeper starts games through the Manager and remembers each one's spec, so that at its end the
// game is handed to the hall of fame with its id, stage, level and players (OnGameEnd).
type keeper struct {
	mgr     *instance.Manager
	hall    *scoredb.Hall
	replays func(*instance.Instance) []byte

	mu      sync.Mutex
	specs   map[*instance.Instance]handoff.GameSpec
	started map[*instance.Instance]time.Time // when each game started (A2S_PLAYER's durations)
}

// StartGame implements handoff.Starter.
func (k *keeper) StartGame(spec handoff.GameSpec) (handoff.Game, error) {
	g, err := k.mgr.StartGame(spec)
	if in, ok := g.(*instance.Instance); ok && err == nil {
		k.mu.Lock()
		k.specs[in] = spec
		if k.started == nil {
			k.started = map[*instance.Instance]time.Time{}
		}
		k.started[in] = time.Now()
		k.mu.Unlock()
	}
	return g, err
}

// gameEnded hands the ended game in to the hall of fame (it never waits: Hall.Record queues).
func (k *keeper) gameEnded(in *instance.Instance) {
	k.mu.Lock()
	spec, ok := k.specs[in]
	delete(k.specs, in)
	delete(k.started, in)
	k.mu.Unlock()
	if !ok || k.hall == nil || spec.Practice() {
		return // a practice game is not kept (docs/PROTOCOL.md §2.5.9): no hall-of-fame score
	}
	var replay []byte
	if k.replays != nil {
		replay = k.replays(in)
	}
	k.hall.Record(GameRecord(spec, in), replay)
}

// board is the hall-of-fame stage of the game of spec and its run: an arcade run is its own
// board, stagefile.Arcade with its stages (docs/PROTOCOL.md §2.4.12), a one-stage game its stage.
func board(spec handoff.GameSpec) (string, []string) {
	if len(spec.Run) >= 2 {
		return stagefile.Arcade, slices.Clone(spec.Run)
	}
	return spec.Stage, nil
}

// GameRecord is the hall-of-fame record of the ended game in started from spec: every slot's
// figures from the simulation (game.Sim.Stats), the game's result and length in ticks.
func GameRecord(spec handoff.GameSpec, in *instance.Instance) scores.Record {
	r := scores.Record{ID: spec.ID, Difficulty: spec.Difficulty, Result: rules.Result(in.Result()), Ended: time.Now().UTC()}
	r.Stage, r.Run = board(spec)
	in.View(func(sim *game.Sim) {
		r.Ticks = uint32(sim.Tick())
		for _, m := range spec.Members {
			st := sim.Stats(m.Slot)
			r.Slots = append(r.Slots, scores.Slot{Name: m.Name, Score: st.Score, Kills: st.Kills, Deaths: st.Deaths,
				Continued: st.Continues > 0, Left: !st.Present})
		}
	})
	return r
}

// hostEnded is when a host's game ended: its record's time (Unix ms) when it is within
// maxHostEndAge before now (a game held for an away lobby), else now (an older host sends none;
// a clock far off is not believed).
func hostEnded(ms int64, now time.Time) time.Time {
	if ms <= 0 {
		return now
	}
	t := time.UnixMilli(ms).UTC()
	if t.After(now) || now.Sub(t) > maxHostEndAge {
		return now
	}
	return t
}

// maxHostEndAge bounds how long before its hand-back a host's game may have ended (a lobby
// down longer than this is a restore, not an upgrade).
const maxHostEndAge = 24 * time.Hour

// hostReport is a host's fleet.HostConfig.Report (-role host): an ended game's figures as
// GameRecord has them, sent to its lobby with the game's replay file (replays) for the lobby's
// hall of fame (docs/CONTROL.md §4.1).
func hostReport(replays func(*instance.Instance) []byte) func(handoff.GameSpec, handoff.Game) (*fleet.Record, []byte) {
	return func(spec handoff.GameSpec, g handoff.Game) (*fleet.Record, []byte) {
		in, ok := g.(*instance.Instance)
		if !ok {
			return nil, nil
		}
		r := GameRecord(spec, in)
		out := &fleet.Record{Ticks: r.Ticks, Slots: make([]fleet.SlotRecord, len(r.Slots)), Ended: r.Ended.UnixMilli()}
		for i, s := range r.Slots {
			out.Slots[i] = fleet.SlotRecord{Score: s.Score, Kills: s.Kills, Deaths: s.Deaths, Continued: s.Continued, Left: s.Left}
		}
		return out, replays(in)
	}
}

// splitRecord is the hall-of-fame record a lobby (-role lobby) keeps of a game a host ran:
// the id, stage, level and names from the lobby's own spec, the result and every slot's
// figures from the host (end.Record, checked against spec by fleet). A game without figures
// (its host was lost, sent none, or sent a bad record) is kept as aborted — not ranked — with
// its players' names, so that the GAME_ID the lobby pushes always names a kept game.
func splitRecord(spec handoff.GameSpec, end fleet.GameEnd) scores.Record {
	rec := end.Record
	r := scores.Record{ID: spec.ID, Difficulty: spec.Difficulty, Result: rules.Result(end.Result), Ended: time.Now().UTC()}
	r.Stage, r.Run = board(spec)
	if rec == nil || len(rec.Slots) != len(spec.Members) || r.Result > rules.ResultAborted {
		rec, r.Result = nil, rules.ResultAborted
	}
	if rec != nil {
		r.Ticks = rec.Ticks
		r.Ended = hostEnded(rec.Ended, r.Ended)
	}
	for i, m := range spec.Members {
		s := scores.Slot{Name: m.Name}
		if rec != nil {
			f := rec.Slots[i]
			s.Score, s.Kills, s.Deaths, s.Continued, s.Left = f.Score, f.Kills, f.Deaths, f.Continued, f.Left
		}
		r.Slots = append(r.Slots, s)
	}
	return r
}

// replaysOf is cfg's source of an ended game's replay file: Config.Replays, else the
// instance's own recording.
func replaysOf(cfg Config) func(*instance.Instance) []byte {
	if cfg.Replays != nil {
		return cfg.Replays
	}
	return (*instance.Instance).Replay
}
