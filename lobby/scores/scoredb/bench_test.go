package scoredb

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/lobbyserver"
	"github.com/rtype/rtype/lobby/scores"
)

// BenchmarkAdd is the cost of committing one finished game (4 players): SQLite with the
// server's settings (WAL, synchronous=FULL), SQLite with synchronous=NORMAL (what FULL costs),
// and PostgreSQL (this test's server runs with fsync off: a floor, not a production figure).
func BenchmarkAdd(b *testing.B) {
	for _, c := range []struct {
		name string
		open func(b *testing.B) *Store
	}{
		{"sqlite-full", func(b *testing.B) *Store { return benchStore(b, SQLite, filepath.Join(b.TempDir(), "rtype.db")) }},
		{"sqlite-normal", func(b *testing.B) *Store { return benchSQLiteNormal(b) }},
		{"postgres-nofsync", func(b *testing.B) *Store { return benchStore(b, Postgres, sharedPG(b).newDB(b)) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := c.open(b)
			r := rec("stage1", 0, rules.ResultDefeat, 1, 2, 3, 4)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				r.ID = uuid.New()
				r.Ended = day0.Add(time.Duration(i) * time.Second)
				if err := s.Add(context.Background(), &r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchStore(b *testing.B, d Dialect, dsn string) *Store {
	b.Helper()
	s, err := OpenStore(context.Background(), d, dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func benchSQLiteNormal(b *testing.B) *Store {
	path := filepath.Join(b.TempDir(), "rtype.db")
	db, err := sql.Open("sqlite", strings.Replace(sqliteDSN(path), "_synchronous=FULL", "_synchronous=NORMAL", 1))
	if err != nil {
		b.Fatal(err)
	}
	s := &Store{db: db, dialect: SQLite, where: path}
	if err := s.migrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// seed adds n games (3 stages, 1..4 players, random scores, one a minute back from day0) in
// batches, for the query benchmarks.
func seed(b *testing.B, s *Store, n int) {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	stages := []string{"stage1", "stage2", "short"}
	const batch = 200
	for start := 0; start < n; start += batch {
		tx, err := s.db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		var gq, sq strings.Builder
		var gargs, sargs []any
		gq.WriteString(`INSERT INTO games (id, stage, difficulty, players, result, score, kills, ticks, continued, ended_at, replay_file, replay_bytes) VALUES `)
		sq.WriteString(`INSERT INTO game_slots (game_id, slot, name, score, kills, deaths, continued, left_game) VALUES `)
		ns := 0
		for i := start; i < min(n, start+batch); i++ {
			id := uuid.New().String()
			players := 1 + rng.IntN(4)
			var total int64
			for p := range players {
				sc := int64(rng.IntN(100000))
				total += sc
				if ns > 0 {
					sq.WriteString(", ")
				}
				sq.WriteString("(?, ?, ?, ?, ?, ?, ?, ?)")
				sargs = append(sargs, id, p, fmt.Sprintf("pilot%d", rng.IntN(5000)), sc, 10, 1, 0, 0)
				ns++
			}
			if i > start {
				gq.WriteString(", ")
			}
			gq.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
			gargs = append(gargs, id, stages[rng.IntN(3)], "normal", players, rng.IntN(3), total, 10*players, 3600, 0,
				day0.Add(-time.Duration(i)*time.Minute).UnixMilli(), "", 0)
		}
		if _, err := tx.Exec(s.dialect.rebind(gq.String()), gargs...); err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(s.dialect.rebind(sq.String()), sargs...); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.db.Exec("ANALYZE"); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkGamesAt100k is a GET_SCORES or GET_GAMES query (one page) on a hall of 100,000 games:
// the top 10 of a stage and player count, of today, a player's best, the recent games.
func BenchmarkGamesAt100k(b *testing.B) {
	const n = 100_000
	for _, d := range []struct {
		name string
		open func(b *testing.B) *Store
	}{
		{"sqlite", func(b *testing.B) *Store { return benchStore(b, SQLite, filepath.Join(b.TempDir(), "rtype.db")) }},
		{"postgres", func(b *testing.B) *Store { return benchStore(b, Postgres, sharedPG(b).newDB(b)) }},
	} {
		b.Run(d.name, func(b *testing.B) {
			s := d.open(b)
			seed(b, s, n)
			for _, q := range []struct {
				name string
				q    scores.Query
			}{
				{"top10-stage-players", scores.Query{Stage: "stage1", Players: 2}},
				{"top10-page50", scores.Query{Stage: "stage1", Players: 2, Page: 50}},
				{"top10-today", scores.Query{Stage: "stage1", Players: 2, Since: scores.StartOfDay(day0)}},
				{"top10-every-stage", scores.Query{}},
				{"own-best", scores.Query{Name: "pilot42"}},
				{"recent", scores.Query{Order: scores.Recent}},
			} {
				b.Run(q.name, func(b *testing.B) {
					for b.Loop() {
						rs, err := s.Games(context.Background(), q.q)
						if err != nil || len(rs) == 0 {
							b.Fatal(len(rs), err)
						}
					}
				})
			}
			// The own-best filter as a correlated EXISTS (what Games used first): the baseline of
			// own-best's ratio.
			b.Run("own-best-exists", func(b *testing.B) {
				q := s.dialect.rebind(`SELECT g.id FROM games g WHERE g.result <> 2 AND EXISTS (SELECT 1 FROM game_slots n
					WHERE n.game_id = g.id AND n.name = ?) ORDER BY g.score DESC, g.ended_at, g.id LIMIT 10 OFFSET 0`)
				for b.Loop() {
					rows, err := s.db.Query(q, "pilot42")
					if err != nil {
						b.Fatal(err)
					}
					n := 0
					for rows.Next() {
						n++
					}
					rows.Close()
					if n == 0 {
						b.Fatal("no game")
					}
				}
			})
		})
	}
}

// BenchmarkGamesAt300k is each hall-of-fame query (docs/PROTOCOL.md §2.4.12, §2.4.13) on a hall
// of 300,000 games, at page 0 and at the deepest page (scores.MaxPage), and a player's query
// while one address uses its whole budget (lobbyserver.HallPerAddr questions at once, each the
// deepest page of a stage) — docs/BENCHMARKS.md, the hall of fame's table.
func BenchmarkGamesAt300k(b *testing.B) {
	const n = 300_000
	for _, d := range []struct {
		name string
		open func(b *testing.B) *Store
	}{
		{"sqlite", func(b *testing.B) *Store {
			s, err := OpenStore(context.Background(), SQLite, filepath.Join(b.TempDir(), "rtype.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}},
		{"postgres", func(b *testing.B) *Store {
			s, err := OpenStore(context.Background(), Postgres, sharedPG(b).newDB(b))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		}},
	} {
		b.Run(d.name, func(b *testing.B) {
			s := d.open(b)
			seed(b, s, n)
			for _, pq := range planQueries {
				for _, page := range []int{0, scores.MaxPage} {
					q := pq.q
					q.Page = page
					if q.Name != "" {
						q.Page = 0 // a player has a few dozen games: page 0 is the one there is
						if page != 0 {
							continue
						}
					}
					if !q.Since.IsZero() {
						q.Since = day0.Add(-24 * time.Hour) // the last day's 1440 games
					}
					b.Run(strings.ReplaceAll(pq.name, " ", "_")+"/page"+strconv.Itoa(q.Page), func(b *testing.B) {
						for b.Loop() {
							if _, err := s.Games(context.Background(), q); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			}
			b.Run("victim-while-one-address-uses-its-budget", func(b *testing.B) {
				stop := make(chan struct{})
				var wg sync.WaitGroup
				for range lobbyserver.HallPerAddr {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for {
							select {
							case <-stop:
								return
							default:
							}
							s.Games(context.Background(), scores.Query{Stage: "stage1", Page: scores.MaxPage})
						}
					}()
				}
				for b.Loop() {
					if rs, err := s.Games(context.Background(), scores.Query{Stage: "stage2", Players: 3}); err != nil || len(rs) == 0 {
						b.Fatal(len(rs), err)
					}
				}
				close(stop)
				wg.Wait()
			})
		})
	}
}
