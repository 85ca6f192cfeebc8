package scoredb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/scores"
)

// Dialect names the database behind a Store. The schema, the migrations and the queries are
// the same for both; what differs is isolated in the dialect's methods (placeholders, the
// migration lock, the connection settings).
type Dialect uint8

const (
	SQLite Dialect = iota
	Postgres
)

func (d Dialect) String() string {
	if d == Postgres {
		return "postgres"
	}
	return "sqlite"
}

// driver is the database/sql driver name of the dialect (registered by the importing binary).
func (d Dialect) driver() string {
	if d == Postgres {
		return "pgx"
	}
	return "sqlite"
}

// rebind turns the ? placeholders of q into PostgreSQL's $1, $2, ... (SQLite takes ? as is).
// The queries of this package have no ? inside string literals.
func (d Dialect) rebind(q string) string {
	if d != Postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// The Store's connection pools: RecordConns record the finished games and run retention,
// QueryConns answer the players' queries (GET_SCORES, GET_GAMES). Separate, so that queries
// waiting for a connection never hold a game's recording back; with the lobby's budget per
// address (lobbyserver.HallPerAddr) one address holds at most 2 of the query connections.
const (
	RecordConns = 2
	QueryConns  = 8
)

// SQLiteBusyTimeout is how long a SQLite connection waits for another's write lock.
const SQLiteBusyTimeout = 5 * time.Second

// sqliteDSN is the modernc.org/sqlite data source of the database file path:
//   - WAL: readers (the lobby's queries) never wait for the writer (the recorder);
//   - synchronous=FULL: each commit syncs the WAL, so a committed game survives a power cut as
//     well as a kill -9 (NORMAL survives a process crash only). A server commits one row per
//     finished game, minutes apart: the one fsync it costs is nothing (docs/BENCHMARKS.md);
//   - busy_timeout: a writer waits for the lock instead of failing at once;
//   - foreign_keys on, and BEGIN IMMEDIATE (the write lock is taken at the start of a
//     transaction, never upgraded midway: no deadlock between two writers).
func sqliteDSN(path string) string {
	q := url.Values{}
	q.Set("_busy_timeout", strconv.Itoa(int(SQLiteBusyTimeout/time.Millisecond)))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "FULL")
	q.Set("_foreign_keys", "1")
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// Store is the hall of fame's database: one finished game per row of games, its players in
// game_slots (schema: migrations.go). Safe for concurrent use.
type Store struct {
	// db records the games and keeps the hall (retention); players' queries have a pool of
	// their own, qdb, so that however many queries wait, a finished game is stored at once.
	db, qdb *sql.DB
	dialect Dialect
	where   string // the file or the host, for logs (no password)
}

// ParseDB reads the -db flag: "" or "sqlite" (the file rtype.db in dir), "sqlite:PATH", a
// "postgres://" or "postgresql://" URL. It returns the dialect and the data source name. ("off"
// is the caller's: no Store at all.)
func ParseDB(spec, dir string) (Dialect, string, error) {
	switch {
	case spec == "" || spec == "sqlite":
		return SQLite, filepath.Join(dir, "rtype.db"), nil
	case strings.HasPrefix(spec, "sqlite:"):
		p := strings.TrimPrefix(spec, "sqlite:")
		if p == "" || strings.ContainsAny(p, "?#") {
			return 0, "", fmt.Errorf("scores: -db %q: give a file path after sqlite: (without ? or #)", spec)
		}
		return SQLite, p, nil
	case strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://"):
		if _, err := url.Parse(spec); err != nil {
			return 0, "", errors.New("scores: -db: the postgres URL does not parse (its text is not repeated here: it may hold a password)")
		}
		return Postgres, spec, nil
	}
	return 0, "", fmt.Errorf("scores: -db %q: want sqlite, sqlite:PATH, postgres://... or off", redactURL(spec))
}

// OpenStore opens the database (dsn: a SQLite file path or a PostgreSQL URL, as ParseDB returns)
// and brings its schema to the newest version (migrate). ctx bounds the connection and the
// migrations.
func OpenStore(ctx context.Context, d Dialect, dsn string) (*Store, error) {
	name, where := dsn, dsn
	if d == SQLite {
		name = sqliteDSN(dsn)
	} else {
		where = redactURL(dsn)
	}
	if !slices.Contains(sql.Drivers(), d.driver()) {
		return nil, fmt.Errorf("scores: the %s driver is not linked into this program (import modernc.org/sqlite or github.com/jackc/pgx/v5/stdlib)", d.driver())
	}
	db, err := sql.Open(d.driver(), name)
	if err != nil {
		return nil, fmt.Errorf("scores: open %s %s: %w", d, where, err)
	}
	qdb, err := sql.Open(d.driver(), name)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("scores: open %s %s: %w", d, where, err)
	}
	// Recording: one writer at a time anyway (SQLite's lock), plus retention's reads.
	db.SetMaxOpenConns(RecordConns)
	qdb.SetMaxOpenConns(QueryConns)
	if d == Postgres {
		db.SetConnMaxIdleTime(5 * time.Minute)
		qdb.SetConnMaxIdleTime(5 * time.Minute)
	}
	s := &Store{db: db, qdb: qdb, dialect: d, where: where}
	if err := db.PingContext(ctx); err != nil {
		s.Close()
		return nil, &ConnectError{fmt.Errorf("scores: connect to %s %s: %w", d, where, err)}
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// ConnectError is OpenStore's error when the database does not answer (down, not yet up,
// unreachable): worth trying again later, unlike a refused schema.
type ConnectError struct{ err error }

func (e *ConnectError) Error() string { return e.err.Error() }
func (e *ConnectError) Unwrap() error { return e.err }

// Dialect is the database's dialect.
func (s *Store) Dialect() Dialect { return s.dialect }

// Where names the database for logs: the SQLite file, or the PostgreSQL URL without password.
func (s *Store) Where() string { return s.where }

// DB is the underlying database (tests: integrity checks).
func (s *Store) DB() *sql.DB { return s.db }

// Close closes the database.
func (s *Store) Close() error {
	err := s.db.Close()
	if s.qdb != nil {
		err = errors.Join(err, s.qdb.Close())
	}
	return err
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

func (s *Store) exec(ctx context.Context, tx *sql.Tx, q string, args ...any) (sql.Result, error) {
	return tx.ExecContext(ctx, s.dialect.rebind(q), args...)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Add commits r (the games row and its slots) in one transaction. Adding a game id that is
// already there changes nothing (a retry after a commit whose answer was lost).
func (s *Store) Add(ctx context.Context, r *scores.Record) error {
	if err := r.Check(); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	file := ""
	if r.ReplayBytes > 0 {
		file = r.ID.String() + scores.ReplayExt
	}
	ended := r.Ended.UTC().UnixMilli()
	if _, err := s.exec(ctx, tx, `INSERT INTO games (id, stage, difficulty, players, result, score, kills, ticks, continued, ended_at, replay_file, replay_bytes, run)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		r.ID.String(), r.Stage, r.Difficulty.String(), len(r.Slots), int(r.Result), int64(r.Score()), r.Kills(), int64(r.Ticks),
		b2i(r.Continued()), ended, file, r.ReplayBytes, strings.Join(r.Run, ",")); err != nil {
		return fmt.Errorf("scores: insert game %s: %w", r.ID, err)
	}
	for i, sl := range r.Slots {
		if _, err := s.exec(ctx, tx, `INSERT INTO game_slots (game_id, slot, name, score, kills, deaths, continued, left_game)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id, slot) DO NOTHING`,
			r.ID.String(), i, sl.Name, int64(sl.Score), int(sl.Kills), int(sl.Deaths), b2i(sl.Continued), b2i(sl.Left)); err != nil {
			return fmt.Errorf("scores: insert game %s slot %d: %w", r.ID, i, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("scores: commit game %s: %w", r.ID, err)
	}
	return nil
}

const gameColumns = `g.id, g.stage, g.difficulty, g.result, g.ticks, g.ended_at, g.replay_bytes, g.run`

// Games returns one page of the games q selects, in q's order.
func (s *Store) Games(ctx context.Context, q scores.Query) ([]scores.Record, error) {
	sqlq, args := gamesSQL(q)
	return s.query(ctx, sqlq, args...)
}

// gamesSQL is the query of Games: every form has an index that gives its order (migration 2;
// TestQueryPlans shows each plan on both databases).
func gamesSQL(q scores.Query) (string, []any) {
	var (
		where []string
		args  []any
	)
	if q.Order == scores.Best {
		where = append(where, "g.result <> ?")
		args = append(args, int(rules.ResultAborted))
	}
	if q.Stage != "" {
		where = append(where, "g.stage = ?")
		args = append(args, q.Stage)
	}
	if q.Players != 0 {
		where = append(where, "g.players = ?")
		args = append(args, q.Players)
	}
	if !q.Since.IsZero() {
		where = append(where, "g.ended_at >= ?")
		args = append(args, q.Since.UTC().UnixMilli())
	}
	if q.Name != "" {
		// IN, not a correlated EXISTS: both databases then start from the name index (a player
		// has few games among many), instead of checking every ranked game (SQLite: 640 ms → 0.4 ms
		// at 100k games, docs/BENCHMARKS.md).
		where = append(where, "g.id IN (SELECT n.game_id FROM game_slots n WHERE n.name = ?)")
		args = append(args, q.Name)
	}
	sqlq := "SELECT " + gameColumns + " FROM games g"
	if len(where) > 0 {
		sqlq += " WHERE " + strings.Join(where, " AND ")
	}
	if q.Order == scores.Best {
		sqlq += " ORDER BY g.score DESC, g.ended_at, g.id"
	} else {
		sqlq += " ORDER BY g.ended_at DESC, g.id"
	}
	sqlq += " LIMIT ? OFFSET ?"
	args = append(args, scores.PageSize, max(q.Page, 0)*scores.PageSize)
	return sqlq, args
}

// Game returns the game of id (found false when there is none).
func (s *Store) Game(ctx context.Context, id uuid.UUID) (r scores.Record, found bool, err error) {
	rs, err := s.query(ctx, "SELECT "+gameColumns+" FROM games g WHERE g.id = ?", id.String())
	if err != nil || len(rs) == 0 {
		return scores.Record{}, false, err
	}
	return rs[0], true, nil
}

// queries is the pool of the players' queries (the recording pool for a Store made by a test
// or a benchmark with one).
func (s *Store) queries() *sql.DB {
	if s.qdb != nil {
		return s.qdb
	}
	return s.db
}

// query runs a games query and fills in the slots of the games it found.
func (s *Store) query(ctx context.Context, q string, args ...any) ([]scores.Record, error) {
	rows, err := s.queries().QueryContext(ctx, s.dialect.rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("scores: query games: %w", err)
	}
	defer rows.Close()
	var out []scores.Record
	byID := map[string]int{}
	for rows.Next() {
		var (
			id, stage, diff, run string
			result               int
			ticks, ended, size   int64
		)
		if err := rows.Scan(&id, &stage, &diff, &result, &ticks, &ended, &size, &run); err != nil {
			return nil, fmt.Errorf("scores: read games: %w", err)
		}
		gid, err := uuid.Parse(id)
		if err != nil {
			return nil, fmt.Errorf("scores: game id %q in the database: %w", id, err)
		}
		d, err := rules.ParseDifficulty(diff)
		if err != nil {
			return nil, fmt.Errorf("scores: game %s: %w", id, err)
		}
		byID[id] = len(out)
		var stages []string
		if run != "" && run != runUnknown {
			stages = strings.Split(run, ",")
		}
		out = append(out, scores.Record{ID: gid, Stage: stage, Run: stages, Difficulty: d, Result: rules.Result(result), Ticks: uint32(ticks),
			Ended: time.UnixMilli(ended).UTC(), ReplayBytes: size})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("scores: read games: %w", err)
	}
	rows.Close()
	if len(out) == 0 {
		return nil, nil
	}
	ph := strings.Repeat("?, ", len(out))
	ids := make([]any, len(out))
	for i, r := range out {
		ids[i] = r.ID.String()
	}
	srows, err := s.queries().QueryContext(ctx, s.dialect.rebind(`SELECT game_id, slot, name, score, kills, deaths, continued, left_game
		FROM game_slots WHERE game_id IN (`+ph[:len(ph)-2]+`) ORDER BY game_id, slot`), ids...)
	if err != nil {
		return nil, fmt.Errorf("scores: query slots: %w", err)
	}
	defer srows.Close()
	for srows.Next() {
		var (
			id, name                           string
			slot, kills, deaths, cont, leftInt int
			score                              int64
		)
		if err := srows.Scan(&id, &slot, &name, &score, &kills, &deaths, &cont, &leftInt); err != nil {
			return nil, fmt.Errorf("scores: read slots: %w", err)
		}
		i, ok := byID[id]
		if !ok || slot != len(out[i].Slots) {
			return nil, fmt.Errorf("scores: game %s: slot %d out of order in the database", id, slot)
		}
		out[i].Slots = append(out[i].Slots, scores.Slot{Name: name, Score: uint32(score), Kills: uint16(kills), Deaths: uint8(deaths),
			Continued: cont != 0, Left: leftInt != 0})
	}
	if err := srows.Err(); err != nil {
		return nil, fmt.Errorf("scores: read slots: %w", err)
	}
	return out, nil
}

// replayRow is a game whose replay file is kept.
type replayRow struct {
	id    uuid.UUID
	bytes int64
	ended int64
}

// replays lists the games whose replay is kept, the oldest first.
func (s *Store) replays(ctx context.Context) ([]replayRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, replay_bytes, ended_at FROM games WHERE replay_bytes > 0 ORDER BY ended_at, id`)
	if err != nil {
		return nil, fmt.Errorf("scores: list replays: %w", err)
	}
	defer rows.Close()
	var out []replayRow
	for rows.Next() {
		var id string
		var r replayRow
		if err := rows.Scan(&id, &r.bytes, &r.ended); err != nil {
			return nil, err
		}
		if r.id, err = uuid.Parse(id); err != nil {
			return nil, fmt.Errorf("scores: game id %q in the database: %w", id, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// topGames is the ids of the ProtectTop best ranked games of every stage and player count,
// whose replays retention never removes.
func (s *Store) topGames(ctx context.Context) (map[uuid.UUID]bool, error) {
	rows, err := s.db.QueryContext(ctx, s.dialect.rebind(`SELECT id FROM (
		SELECT id, ROW_NUMBER() OVER (PARTITION BY stage, players ORDER BY score DESC, ended_at, id) AS r
		FROM games WHERE result <> ?) t WHERE r <= ?`), int(rules.ResultAborted), ProtectTop)
	if err != nil {
		return nil, fmt.Errorf("scores: list top games: %w", err)
	}
	defer rows.Close()
	out := map[uuid.UUID]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		if u, err := uuid.Parse(id); err == nil {
			out[u] = true
		}
	}
	return out, rows.Err()
}

// ProtectTop is how many of the best games of each stage and player count keep their replays
// whatever the retention flags say: the first page of the hall of fame stays watchable.
const ProtectTop = scores.PageSize

// dropReplay marks game id as having no replay (before its file is removed: a crash between
// the two leaves an orphan file, which the next start removes, never a row without its file).
func (s *Store) dropReplay(ctx context.Context, id uuid.UUID) error {
	_, err := s.db.ExecContext(ctx, s.dialect.rebind(`UPDATE games SET replay_bytes = 0, replay_file = '' WHERE id = ?`), id.String())
	if err != nil {
		return fmt.Errorf("scores: mark replay %s pruned: %w", id, err)
	}
	return nil
}

// redactURL hides the password of a URL for logs and errors.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	return u.Redacted()
}

var errNewerSchema = errors.New("scores: the database's schema is newer than this server")
