// Package scoredb keeps every finished game: the hall of fame (docs/PROTOCOL.md §2.4.12 to
// §2.4.14, README "Where the data lives") over the records of package lobby/scores. A Store is
// the database over database/sql — SQLite (modernc.org/sqlite, pure Go, WAL) by default,
// PostgreSQL (github.com/jackc/pgx/v5/stdlib) for hosts that run one — with one schema and
// versioned migrations applied at Open. A Hall is its runtime: it takes finished games from the
// game runtime without ever blocking it (a bounded queue and one goroutine), writes each replay
// atomically under the data directory, then commits the game's row, prunes old replays, and
// answers the lobby's queries.
//
// The package registers no database driver: the binary that opens a Store imports
// modernc.org/sqlite and github.com/jackc/pgx/v5/stdlib (net/server does). Only the server
// links it: the lobby client reads the records (lobby/scores) and links no database/sql.
package scoredb
