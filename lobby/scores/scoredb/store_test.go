package scoredb

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/scores"
)

// backend is a real database a test opens Stores on.
type backend struct {
	name string
	open func(t *testing.T) (Dialect, string) // a fresh, empty database
}

// backends are SQLite (a file in t.TempDir) and PostgreSQL (a new database on the server this
// test binary started): every store test runs on both.
func backends() []backend {
	return []backend{
		{"sqlite", func(t *testing.T) (Dialect, string) { return SQLite, filepath.Join(t.TempDir(), "rtype.db") }},
		{"postgres", func(t *testing.T) (Dialect, string) { return Postgres, sharedPG(t).newDB(t) }},
	}
}

func eachBackend(t *testing.T, fn func(t *testing.T, d Dialect, dsn string)) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			d, dsn := b.open(t)
			fn(t, d, dsn)
		})
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func openStore(t *testing.T, d Dialect, dsn string) *Store {
	t.Helper()
	s, err := OpenStore(ctx(t), d, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var day0 = time.Date(2026, 3, 14, 9, 26, 53, 589_000_000, time.UTC)

// rec is a game of the given stage, slots' points and result, ended at day0 + at.
func rec(stage string, at time.Duration, result rules.Result, points ...uint32) scores.Record {
	r := scores.Record{ID: uuid.New(), Stage: stage, Difficulty: rules.DifficultyNormal, Result: result, Ticks: 3600, Ended: day0.Add(at)}
	for i, s := range points {
		r.Slots = append(r.Slots, scores.Slot{Name: fmt.Sprintf("p%d", i), Score: s, Kills: uint16(s / 100), Deaths: 1})
	}
	return r
}

func ids(rs []scores.Record) []uuid.UUID {
	out := make([]uuid.UUID, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func wantIDs(t *testing.T, what string, got []scores.Record, want ...scores.Record) {
	t.Helper()
	g, w := ids(got), ids(want)
	if fmt.Sprint(g) != fmt.Sprint(w) {
		t.Fatalf("%s: got %d games %v, want %d %v", what, len(g), g, len(w), w)
	}
}

func TestStoreRoundTrip(t *testing.T) {
	eachBackend(t, func(t *testing.T, d Dialect, dsn string) {
		s := openStore(t, d, dsn)
		r := scores.Record{ID: uuid.New(), Stage: "stage1", Difficulty: rules.DifficultyHard, Result: rules.ResultVictory, Ticks: 4_000_000_000,
			Ended: day0, ReplayBytes: 12345, Slots: []scores.Slot{
				{Name: "alice", Score: 4_000_000_000, Kills: 65535, Deaths: 255, Continued: true},
				{Name: "bob-2", Score: 10, Kills: 1, Deaths: 0, Left: true},
			}}
		if err := s.Add(ctx(t), &r); err != nil {
			t.Fatal(err)
		}
		if err := s.Add(ctx(t), &r); err != nil { // a retry: no error, no second row
			t.Fatalf("second Add of the same game: %v", err)
		}
		got, ok, err := s.Game(ctx(t), r.ID)
		if err != nil || !ok {
			t.Fatalf("Game: %v %v", ok, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(r) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, r)
		}
		all, err := s.Games(ctx(t), scores.Query{Order: scores.Recent})
		if err != nil || len(all) != 1 {
			t.Fatalf("Recent after two Adds of one game: %d games, %v", len(all), err)
		}
		if _, ok, err := s.Game(ctx(t), uuid.New()); ok || err != nil {
			t.Fatalf("Game of an unknown id: %v %v", ok, err)
		}
		bad := r
		bad.ID, bad.Slots = uuid.New(), nil
		if err := s.Add(ctx(t), &bad); err == nil {
			t.Fatal("Add of a game without players succeeded")
		}
	})
}

func TestStoreQueries(t *testing.T) {
	eachBackend(t, func(t *testing.T, d Dialect, dsn string) {
		s := openStore(t, d, dsn)
		yesterday := -24 * time.Hour
		a := rec("stage1", yesterday, rules.ResultVictory, 9000)     // best solo, yesterday
		b := rec("stage1", 0, rules.ResultDefeat, 5000)              // today
		c := rec("stage1", time.Minute, rules.ResultDefeat, 5000)    // same score, later: after b
		e := rec("stage1", 2*time.Minute, rules.ResultAborted, 9999) // aborted: never ranked
		f := rec("short", 3*time.Minute, rules.ResultDefeat, 1, 20000)
		g := rec("stage1", 4*time.Minute, rules.ResultDefeat, 3000, 3000)
		f.Slots[1].Name = "alice"
		b.Slots[0].Name = "alice"
		for _, r := range []scores.Record{a, b, c, e, f, g} {
			if err := s.Add(ctx(t), &r); err != nil {
				t.Fatal(err)
			}
		}
		q := func(q scores.Query) []scores.Record {
			t.Helper()
			rs, err := s.Games(ctx(t), q)
			if err != nil {
				t.Fatal(err)
			}
			return rs
		}
		wantIDs(t, "best, every stage", q(scores.Query{}), f, a, g, b, c)
		wantIDs(t, "best stage1", q(scores.Query{Stage: "stage1"}), a, g, b, c)
		wantIDs(t, "best stage1 solo", q(scores.Query{Stage: "stage1", Players: 1}), a, b, c)
		wantIDs(t, "best stage1 solo today", q(scores.Query{Stage: "stage1", Players: 1, Since: scores.StartOfDay(day0)}), b, c)
		wantIDs(t, "best duo", q(scores.Query{Players: 2}), f, g)
		wantIDs(t, "alice's best", q(scores.Query{Name: "alice"}), f, b)
		wantIDs(t, "alice's best stage1", q(scores.Query{Name: "alice", Stage: "stage1"}), b)
		wantIDs(t, "nobody's", q(scores.Query{Name: "zed"}))
		wantIDs(t, "recent", q(scores.Query{Order: scores.Recent}), g, f, e, c, b, a)
		wantIDs(t, "recent page 1", q(scores.Query{Order: scores.Recent, Page: 1}))
		wantIDs(t, "unknown stage", q(scores.Query{Stage: "nope"}))
	})
}

func TestStorePaging(t *testing.T) {
	eachBackend(t, func(t *testing.T, d Dialect, dsn string) {
		s := openStore(t, d, dsn)
		var all []scores.Record
		for i := range 2*scores.PageSize + 3 {
			r := rec("stage1", time.Duration(i)*time.Second, rules.ResultDefeat, uint32(1000-i))
			all = append(all, r)
			if err := s.Add(ctx(t), &r); err != nil {
				t.Fatal(err)
			}
		}
		for p, want := range [][]scores.Record{all[:scores.PageSize], all[scores.PageSize : 2*scores.PageSize], all[2*scores.PageSize:], nil} {
			got, err := s.Games(ctx(t), scores.Query{Stage: "stage1", Page: p})
			if err != nil {
				t.Fatal(err)
			}
			wantIDs(t, fmt.Sprintf("page %d", p), got, want...)
		}
	})
}

func TestStoreMigrations(t *testing.T) {
	eachBackend(t, func(t *testing.T, d Dialect, dsn string) {
		s := openStore(t, d, dsn)
		r := rec("stage1", 0, rules.ResultDefeat, 1)
		if err := s.Add(ctx(t), &r); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s = openStore(t, d, dsn) // migrations again: nothing to do, the data stays
		var v int
		if err := s.DB().QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil || v != SchemaVersion() {
			t.Fatalf("schema version %d (%v), want %d", v, err, SchemaVersion())
		}
		var n int
		if err := s.DB().QueryRow(`SELECT COUNT(*) FROM schema_version`).Scan(&n); err != nil || n != 1 {
			t.Fatalf("schema_version has %d rows (%v), want 1", n, err)
		}
		if _, ok, _ := s.Game(ctx(t), r.ID); !ok {
			t.Fatal("the game is gone after reopening")
		}
		if _, err := s.DB().Exec(`UPDATE schema_version SET version = 99`); err != nil {
			t.Fatal(err)
		}
		s.Close()
		_, err := OpenStore(ctx(t), d, dsn)
		if !errors.Is(err, errNewerSchema) {
			t.Fatalf("opening a newer schema: %v, want errNewerSchema", err)
		}
		t.Log(err)
	})
}

func TestParseDB(t *testing.T) {
	for _, c := range []struct {
		spec    string
		d       Dialect
		dsn     string
		wantErr bool
	}{
		{"", SQLite, "/data/rtype.db", false},
		{"sqlite", SQLite, "/data/rtype.db", false},
		{"sqlite:/var/lib/x.db", SQLite, "/var/lib/x.db", false},
		{"postgres://u:pw@db/rtype", Postgres, "postgres://u:pw@db/rtype", false},
		{"postgresql://db/rtype", Postgres, "postgresql://db/rtype", false},
		{"mysql://u:pw@db", 0, "", true},
		{"sqlite:", 0, "", true},
		{"sqlite:/x?mode=ro", 0, "", true},
	} {
		d, dsn, err := ParseDB(c.spec, "/data")
		if (err != nil) != c.wantErr || d != c.d || dsn != c.dsn {
			t.Errorf("ParseDB(%q) = %v %q %v", c.spec, d, dsn, err)
		}
		if err != nil && containsStr(err.Error(), "pw") {
			t.Errorf("ParseDB(%q): the error shows the password: %v", c.spec, err)
		}
	}
}

func containsStr(s, sub string) bool {
	return len(sub) > 0 && len(s) >= len(sub) && indexStr(s, sub) >= 0
}

func indexStr(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1234": 1234, "500M": 500 << 20, "20G": 20 << 30, "2t": 2 << 40, "64KiB": 64 << 10, "3MB": 3 << 20} {
		if got, err := scores.ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1.5G", "G", "12X", "99999999999T"} {
		if _, err := scores.ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted it", in)
		}
	}
}

func TestDefaultDataDir(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/srv/data")
	if d, err := scores.DefaultDataDir(); err != nil || d != "/srv/data/rtype" {
		t.Fatalf("with XDG_DATA_HOME: %q %v", d, err)
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return // the per-user configuration directory there
	}
	t.Setenv("XDG_DATA_HOME", "relative") // not absolute: ignored (XDG Base Directory spec)
	t.Setenv("HOME", "/home/pilot")
	if d, err := scores.DefaultDataDir(); err != nil || d != "/home/pilot/.local/share/rtype" {
		t.Fatalf("without XDG_DATA_HOME: %q %v", d, err)
	}
}
