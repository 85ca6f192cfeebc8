// Package scores is what the hall of fame keeps of a finished game and how it is asked for
// (docs/PROTOCOL.md §2.4.12 to §2.4.14): Record and Slot, Query, the page and replay-part
// bounds. It links no database: the lobby client reads these types, and the hall of fame
// itself (the database and its runtime) is package lobby/scores/scoredb.
package scores

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
)

// PageSize is how many games one page of a query holds (GET_SCORES and GET_GAMES answer one
// page: docs/PROTOCOL.md §2.4.12).
const PageSize = 10

// MaxPage is the deepest page GET_SCORES and GET_GAMES answer (docs/PROTOCOL.md §2.4.12): the
// first (MaxPage+1)×PageSize games of a query. A deeper page would make the database skip
// that many ranked games for each question; nobody browses a hall of fame that far.
const MaxPage = 99

// ReplayPartBytes is the most replay bytes one GET_REPLAY part carries (before base64), the
// size of a GET_STAGE part (docs/PROTOCOL.md §2.4.14).
const ReplayPartBytes = 2048

// MaxReplayBytes is the largest replay a Hall keeps: the largest replay file, replay.MaxBytes
// (declared here too so that the lobby does not link the replay package and the simulation
// behind it; the package's tests do not compile unless the two are equal); a game with a
// larger replay is kept without it.
const MaxReplayBytes = 8 << 20

// MaxReplayParts bounds the parts of one replay: 4096, so part numbers have at most 4 digits.
const MaxReplayParts = (MaxReplayBytes + ReplayPartBytes - 1) / ReplayPartBytes

// The part numbers of GET_REPLAY have at most 4 digits (docs/PROTOCOL.md §2.4.14): a larger
// replay.MaxBytes does not compile.
const _ = uint(9999 - MaxReplayParts)

// ReplayExt is the extension of the replay files under the data directory's replays/ folder:
// replay.FileExt (TestReplayFacts ties the two).
const ReplayExt = ".rtr"

// Slot is one player's figures in a finished game (game.Sim.Stats at the end).
type Slot struct {
	Name      string // the player name at the start (lobby AUTHENTICATE)
	Score     uint32
	Kills     uint16
	Deaths    uint8
	Continued bool // the slot took a continue: its score is marked
	Left      bool // the slot was gone at the end (left, or its rejoin window passed)
}

// Record is one finished game.
type Record struct {
	ID uuid.UUID // the game id (handoff.GameSpec.ID), also the replay's id
	// Stage is the stage played, or stagefile.Arcade for an arcade run (its own board: the run's
	// stages are in Run).
	Stage string
	// Run is the stages of an arcade run in the order they were played (2..stagefile.MaxRun; Stage
	// is then stagefile.Arcade); nil for a one-stage game.
	Run        []string
	Difficulty rules.Difficulty
	Result     rules.Result
	Ticks      uint32    // the game's length in ticks (game.TickRate a second)
	Ended      time.Time // when it ended (kept in UTC to the millisecond)
	Slots      []Slot    // by slot: len(Slots) is the player count, 1..rules.MaxPlayers
	// ReplayBytes is the size of the kept replay file; 0: none (not recorded, or pruned).
	ReplayBytes int64
}

// Players is the player count of the game.
func (r *Record) Players() int { return len(r.Slots) }

// Score is the game's score in the hall of fame: the sum of its slots' scores (a co-op team's).
func (r *Record) Score() uint64 {
	var s uint64
	for _, sl := range r.Slots {
		s += uint64(sl.Score)
	}
	return s
}

// Kills is the sum of the slots' kills.
func (r *Record) Kills() int {
	n := 0
	for _, sl := range r.Slots {
		n += int(sl.Kills)
	}
	return n
}

// Continued reports whether a slot took a continue (the score is marked).
func (r *Record) Continued() bool {
	for _, sl := range r.Slots {
		if sl.Continued {
			return true
		}
	}
	return false
}

// Check reports what makes r unfit to keep.
func (r *Record) Check() error {
	switch {
	case r.ID == uuid.Nil:
		return errors.New("scores: record without a game id")
	case !stagefile.ValidName(r.Stage):
		return fmt.Errorf("scores: record %s: invalid stage name %q", r.ID, r.Stage)
	case len(r.Slots) < 1 || len(r.Slots) > rules.MaxPlayers:
		return fmt.Errorf("scores: record %s: %d players (want 1..%d)", r.ID, len(r.Slots), rules.MaxPlayers)
	case r.Result > rules.ResultAborted:
		return fmt.Errorf("scores: record %s: result %d", r.ID, r.Result)
	case (r.Stage == stagefile.Arcade) != (r.Run != nil):
		return fmt.Errorf("scores: record %s: stage %q with a run of %d stages (an arcade run, and only it, has its stages)", r.ID, r.Stage, len(r.Run))
	case r.Run != nil && (len(r.Run) < 2 || len(r.Run) > stagefile.MaxRun):
		return fmt.Errorf("scores: record %s: an arcade run of %d stages (want 2..%d)", r.ID, len(r.Run), stagefile.MaxRun)
	}
	for _, n := range r.Run {
		if !stagefile.ValidName(n) || n == stagefile.Arcade {
			return fmt.Errorf("scores: record %s: invalid run stage name %q", r.ID, n)
		}
	}
	for i, s := range r.Slots {
		if len(s.Name) < 1 || len(s.Name) > 16 {
			return fmt.Errorf("scores: record %s: slot %d: name %q is not 1..16 characters", r.ID, i, s.Name)
		}
	}
	return nil
}

// Order is how a Query sorts the games.
type Order uint8

const (
	// Best: the hall of fame: the highest Score first (earlier games first among equals); aborted
	// games are not ranked.
	Best Order = iota
	// Recent: every finished game, aborted ones included, the newest first.
	Recent
)

// Query selects one page of games.
type Query struct {
	Order   Order
	Stage   string    // "" every stage
	Players int       // 0 every player count, else 1..rules.MaxPlayers
	Since   time.Time // zero: all time; else games that ended at or after it (today: StartOfDay)
	Name    string    // "" every game; else the games with a slot of that player name
	Page    int       // 0 first: games Page*PageSize .. Page*PageSize+PageSize-1
}

// StartOfDay is the start of t's day in UTC, the Since of a "today" query.
func StartOfDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// Errors of a Hall's replay lookups.
var (
	// ErrNoReplay: the server keeps no replay of that id (never recorded, or pruned).
	ErrNoReplay = errors.New("scores: no such replay")
	// ErrPending: the game has ended and its replay is queued, not written yet: ask again.
	ErrPending = errors.New("scores: replay not written yet")
	// ErrUnavailable: the database was down when the server started and has not answered
	// since (Hall.Games); finished games wait in memory meanwhile.
	ErrUnavailable = errors.New("scores: the hall of fame's database is not available yet")
)

// PartRangeError is a replay part number past the replay's last part.
type PartRangeError struct{ Parts int }

func (e *PartRangeError) Error() string {
	return fmt.Sprintf("scores: replay part out of range: the replay has parts 0..%d", e.Parts-1)
}

// DefaultDataDir is the data directory of a server started without -data: $XDG_DATA_HOME/rtype,
// else ~/.local/share/rtype on Linux and the other Unixes, the per-user configuration directory
// elsewhere (macOS ~/Library/Application Support/rtype, Windows %AppData%\rtype).
func DefaultDataDir() (string, error) {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "rtype"), nil
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		d, err := os.UserConfigDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(d, "rtype"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share", "rtype"), nil
}

// ParseSize reads a byte count: a decimal number with an optional suffix K, M, G or T (powers of
// 1024; KB, MB, GB, TB, KiB... are the same), e.g. "500M", "20G"; "0" is no limit.
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	mult := int64(1)
	if n := len(t); n > 0 {
		if i := strings.IndexByte("KMGT", t[n-1]); i >= 0 {
			mult = int64(1) << (10 * (i + 1))
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < 0 || v > (1<<62)/mult {
		return 0, fmt.Errorf("size %q: want a number of bytes, optionally with K, M, G or T", s)
	}
	return v * mult, nil
}
