package scoredb

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/scores"
)

// planQueries are the hall-of-fame queries of docs/PROTOCOL.md §2.4.12 and §2.4.13 (every
// argument form of GET_SCORES and GET_GAMES) at the deepest page a client may ask for
// (scores.MaxPage); ordered says whether an index must give the query's order (a player's
// games and a day's are few: sorting them is cheap).
var planQueries = []struct {
	name    string
	q       scores.Query
	ordered bool
}{
	{"GET_SCORES", scores.Query{Page: scores.MaxPage}, true},
	{"GET_SCORES stage", scores.Query{Stage: "stage1", Page: scores.MaxPage}, true},
	{"GET_SCORES ,players", scores.Query{Players: 2, Page: scores.MaxPage}, true},
	{"GET_SCORES stage,players", scores.Query{Stage: "stage1", Players: 2, Page: scores.MaxPage}, true},
	{"GET_SCORES stage,players,,today", scores.Query{Stage: "stage1", Players: 2, Since: time.Unix(0, 0), Page: scores.MaxPage}, false},
	{"GET_SCORES ,,,,name", scores.Query{Name: "pilot42", Page: scores.MaxPage}, false},
	{"GET_GAMES", scores.Query{Order: scores.Recent, Page: scores.MaxPage}, true},
	{"GET_GAMES ,name", scores.Query{Order: scores.Recent, Name: "pilot42", Page: scores.MaxPage}, false},
}

// TestQueryPlans: on both databases, every hall-of-fame query reads the games through an index
// (none scans the table), and those of many games (the rankings, the recent games) read it in
// the query's order and stop after the page, with no sort of the games they select. The
// plans are logged (go test -v -run TestQueryPlans ./lobby/scores/scoredb).
func TestQueryPlans(t *testing.T) {
	eachBackend(t, func(t *testing.T, d Dialect, dsn string) {
		s, err := OpenStore(ctx(t), d, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		conn, err := s.DB().Conn(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		explain := "EXPLAIN QUERY PLAN "
		if d == Postgres {
			// An empty table is cheaper to scan than any index: make scans and sorts the
			// planner's last resort, so that the plan shows what the indexes allow.
			for _, set := range []string{"SET enable_seqscan = off", "SET enable_sort = off", "SET enable_bitmapscan = off"} {
				if _, err := conn.ExecContext(ctx(t), set); err != nil {
					t.Fatal(err)
				}
			}
			explain = "EXPLAIN "
		}
		for _, pq := range planQueries {
			sqlq, args := gamesSQL(pq.q)
			rows, err := conn.QueryContext(ctx(t), d.rebind(explain+sqlq), args...)
			if err != nil {
				t.Fatal(err)
			}
			cols, _ := rows.Columns()
			var plan []string
			for rows.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, toString(vals[len(vals)-1])) // SQLite: detail; PostgreSQL: QUERY PLAN
			}
			rows.Close()
			text := strings.Join(plan, "\n")
			t.Logf("%s:\n%s\n%s", pq.name, sqlq, text)
			var scan, sorted bool
			if d == SQLite {
				for _, l := range plan {
					l = strings.TrimSpace(l)
					if (strings.HasPrefix(l, "SCAN g") || strings.HasPrefix(l, "SCAN games")) && !strings.Contains(l, "INDEX") {
						scan = true
					}
				}
				sorted = strings.Contains(text, "TEMP B-TREE FOR ORDER BY") || strings.Contains(text, "TEMP B-TREE FOR RIGHT PART OF ORDER BY")
			} else {
				scan = strings.Contains(text, "Seq Scan on games")
				sorted = strings.Contains(text, "Sort")
			}
			if scan {
				t.Errorf("%s scans the games table:\n%s", pq.name, text)
			}
			if pq.ordered && sorted {
				t.Errorf("%s sorts the games it selects (no index in its order):\n%s", pq.name, text)
			}
		}
	})
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}

// TestRecordingNotStarved: with every query connection held by players' queries (a flood of
// GET_SCORES), a finished game is still recorded, and the players' queries still come back
// once a connection is free.
func TestRecordingNotStarved(t *testing.T) {
	eachBackend(t, func(t *testing.T, d Dialect, dsn string) {
		s, err := OpenStore(ctx(t), d, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var held []*sql.Conn
		for range QueryConns {
			c, err := s.queries().Conn(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			held = append(held, c)
		}
		r := rec("stage1", 0, rules.ResultVictory, 100)
		if err := s.Add(ctx(t), &r); err != nil {
			t.Fatalf("recording while queries hold every query connection: %v", err)
		}
		held[0].Close()
		if rs, err := s.Games(ctx(t), scores.Query{Stage: "stage1"}); err != nil || len(rs) != 1 {
			t.Fatalf("query once a connection is free: %d games, %v", len(rs), err)
		}
		for _, c := range held[1:] {
			c.Close()
		}
	})
}
