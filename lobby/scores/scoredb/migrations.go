package scoredb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// migration is one step of the schema. Its statements are the same for SQLite and PostgreSQL:
// they use only types both have (TEXT, INTEGER, BIGINT; booleans as 0/1, times as Unix
// milliseconds UTC, ids as canonical UUID text).
type migration struct {
	version int
	what    string
	stmts   []string
}

// migrations are applied in order, each once, in one transaction with the schema_version
// update; a new version is appended, never edited once released.
var migrations = []migration{
	{1, "games and their slots", []string{
		`CREATE TABLE games (
			id           TEXT PRIMARY KEY,
			stage        TEXT NOT NULL,
			difficulty   TEXT NOT NULL,
			players      INTEGER NOT NULL,
			result       INTEGER NOT NULL,
			score        BIGINT NOT NULL,
			kills        INTEGER NOT NULL,
			ticks        BIGINT NOT NULL,
			continued    INTEGER NOT NULL,
			ended_at     BIGINT NOT NULL,
			replay_file  TEXT NOT NULL,
			replay_bytes BIGINT NOT NULL
		)`,
		`CREATE TABLE game_slots (
			game_id   TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
			slot      INTEGER NOT NULL,
			name      TEXT NOT NULL,
			score     BIGINT NOT NULL,
			kills     INTEGER NOT NULL,
			deaths    INTEGER NOT NULL,
			continued INTEGER NOT NULL,
			left_game INTEGER NOT NULL,
			PRIMARY KEY (game_id, slot)
		)`,
		`CREATE INDEX games_rank ON games (stage, players, score DESC, ended_at)`,
		`CREATE INDEX games_score ON games (score DESC, ended_at)`,
		`CREATE INDEX games_ended ON games (ended_at)`,
		`CREATE INDEX game_slots_name ON game_slots (name)`,
	}},
	// An arcade run is its own board (stage 'arcade', Record.Run): games.run holds its stages,
	// comma-separated ('' for one stage). Earlier servers recorded a run under its first stage;
	// the games with a kept replay are marked runUnknown here, and the Hall reads each one's
	// replay header once at Open to tell (Hall.classifyRuns).
	{2, "arcade runs on their own board, with their stages", []string{
		`ALTER TABLE games ADD COLUMN run TEXT NOT NULL DEFAULT ''`,
		`UPDATE games SET run = '` + runUnknown + `' WHERE replay_bytes > 0`,
	}},
	{3, "an index in the order of each hall-of-fame query", []string{
		// GET_SCORES of a stage, of a player count, of both, of every game: each scans its
		// index in rank order (score, then the earlier, then the id) and stops after the page,
		// instead of sorting every game it selects (a stage alone: 330–737 ms at 300 000 games).
		`DROP INDEX games_rank`,
		`DROP INDEX games_score`,
		`CREATE INDEX games_rank ON games (stage, players, score DESC, ended_at, id)`,
		`CREATE INDEX games_rank_stage ON games (stage, score DESC, ended_at, id)`,
		`CREATE INDEX games_rank_players ON games (players, score DESC, ended_at, id)`,
		`CREATE INDEX games_best ON games (score DESC, ended_at, id)`,
		// GET_GAMES: the newest first.
		`CREATE INDEX games_recent ON games (ended_at DESC, id)`,
	}},
	{4, "bans", []string{
		// A ban names a player (name) or an address or CIDR (network), the other being '';
		// expires_at 0: never.
		`CREATE TABLE bans (
			id         TEXT PRIMARY KEY,
			name       TEXT NOT NULL,
			network    TEXT NOT NULL,
			reason     TEXT NOT NULL,
			created_at BIGINT NOT NULL,
			expires_at BIGINT NOT NULL
		)`,
	}},
}

// runUnknown is the games.run of a game recorded before schema version 2 whose replay has not
// been read yet: it may be an arcade run recorded under its first stage.
const runUnknown = "?"

// SchemaVersion is the schema version this program writes.
func SchemaVersion() int { return migrations[len(migrations)-1].version }

// migrate brings the schema to SchemaVersion in one transaction, under the dialect's lock (two
// servers starting on one PostgreSQL database migrate one after the other). A database newer
// than this program is refused: its data is left alone.
func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil) // SQLite: BEGIN IMMEDIATE (the write lock, sqliteDSN)
	if err != nil {
		return fmt.Errorf("scores: migrate %s: %w", s.where, err)
	}
	defer tx.Rollback()
	if s.dialect == Postgres {
		// Transaction-scoped: released at commit or rollback. The key is any constant of ours.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7250001)`); err != nil {
			return fmt.Errorf("scores: migrate %s: lock: %w", s.where, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("scores: migrate %s: %w", s.where, err)
	}
	var have int
	switch err := tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&have); {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return fmt.Errorf("scores: migrate %s: %w", s.where, err)
		}
	case err != nil:
		return fmt.Errorf("scores: migrate %s: read the schema version: %w", s.where, err)
	}
	if have > SchemaVersion() {
		return fmt.Errorf("%w: %s has schema version %d, this server knows up to %d: run a newer server (the data is left as it is)",
			errNewerSchema, s.where, have, SchemaVersion())
	}
	for _, m := range migrations {
		if m.version <= have {
			continue
		}
		for _, st := range m.stmts {
			if _, err := tx.ExecContext(ctx, st); err != nil {
				return fmt.Errorf("scores: migrate %s to version %d (%s): %w", s.where, m.version, m.what, err)
			}
		}
		if _, err := tx.ExecContext(ctx, s.dialect.rebind(`UPDATE schema_version SET version = ?`), m.version); err != nil {
			return fmt.Errorf("scores: migrate %s: %w", s.where, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("scores: migrate %s: commit: %w", s.where, err)
	}
	return nil
}
