package scoredb

import (
	"fmt"
	"github.com/rtype/rtype/lobby/scores"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/replay"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
)

// arcadeRec is an arcade run of the embedded stages (its own board, stage "arcade").
func arcadeRec(score uint32) scores.Record {
	r := rec(stagefile.Arcade, 0, rules.ResultVictory, score)
	r.Run = []string{"stage1", "stage2", "stage3"}
	return r
}

// An arcade run is its own board: GET_SCORES ;arcade finds it with its stages, a stage's board
// does not rank it (docs/PROTOCOL.md §2.4.12).
func TestStoreArcadeBoard(t *testing.T) {
	eachBackend(t, func(t *testing.T, d Dialect, dsn string) {
		s := openStore(t, d, dsn)
		run, one := arcadeRec(182_400), rec("stage1", 1, rules.ResultVictory, 20_000)
		for _, r := range []*scores.Record{&run, &one} {
			if err := s.Add(ctx(t), r); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Games(ctx(t), scores.Query{Stage: "stage1"})
		if err != nil {
			t.Fatal(err)
		}
		wantIDs(t, "the stage1 board", got, one)
		got, err = s.Games(ctx(t), scores.Query{Stage: stagefile.Arcade})
		if err != nil {
			t.Fatal(err)
		}
		wantIDs(t, "the arcade board", got, run)
		if !slices.Equal(got[0].Run, run.Run) {
			t.Fatalf("the arcade run's stages: got %v, want %v", got[0].Run, run.Run)
		}
		if g, _, _ := s.Game(ctx(t), one.ID); g.Run != nil {
			t.Fatalf("a one-stage game has the run %v", g.Run)
		}
		for _, bad := range []scores.Record{
			func() scores.Record { r := arcadeRec(1); r.Run = nil; return r }(),                 // arcade without its stages
			func() scores.Record { r := arcadeRec(1); r.Run = r.Run[:1]; return r }(),           // a run of one stage
			func() scores.Record { r := arcadeRec(1); r.Stage = "stage1"; return r }(),          // a stage with a run
			func() scores.Record { r := arcadeRec(1); r.Run[1] = stagefile.Arcade; return r }(), // arcade inside a run
		} {
			if err := s.Add(ctx(t), &bad); err == nil {
				t.Errorf("Add of stage %q run %v succeeded", bad.Stage, bad.Run)
			}
		}
	})
}

// replayOf records a few ticks of a game of the embedded stages named (two or more: an arcade
// run) with the replay package, as a server does.
func replayOf(t *testing.T, names ...string) []byte {
	t.Helper()
	var stages []*game.Stage
	for _, n := range names {
		f, err := stagefile.Embedded(n, game.ParseScript)
		if err != nil {
			t.Fatal(err)
		}
		stages = append(stages, game.StageOf(f))
	}
	cfg := game.Config{Seed: 7, Players: 1, Stage: stages[0]}
	if len(stages) >= 2 {
		cfg.Run = stages
	}
	sim := game.NewSim(cfg)
	rc := replay.NewRecorder(replay.NewRunHeader(cfg, names, []string{"p0"}))
	sim.SetRecorder(rc)
	for range 10 {
		sim.Step()
		rc.Stepped(sim)
	}
	return rc.Encode(sim, rules.ResultDefeat)
}

// replayRun reads what the replay package writes (docs/REPLAY.md "Layout").
func TestReplayRun(t *testing.T) {
	for _, names := range [][]string{{"stage1"}, {"stage1", "stage2"}, {"stage2", "stage3", "stage1"}} {
		got, err := replayRun(replayOf(t, names...))
		want := names
		if len(names) < 2 {
			want = nil
		}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("replayRun of a game of %v: %v, %v; want %v", names, got, err, want)
		}
	}
	for _, b := range [][]byte{nil, []byte("RTRP"), []byte("RTRQ\x01"), replayOf(t, "stage1", "stage2")[:40]} {
		if run, err := replayRun(b); err == nil {
			t.Errorf("replayRun(%q) = %v, want an error", b, run)
		}
	}
}

// A database of schema version 1 (before arcade runs had their own board) migrates: a run kept
// under its first stage moves to the arcade board with its stages, read from its replay; a
// one-stage game, and a game whose replay is gone, stay where they were.
func TestMigrateArcadeRuns(t *testing.T) {
	eachBackend(t, func(t *testing.T, d Dialect, dsn string) {
		s := openStore(t, d, dsn)
		// Make it a version-1 database: versions 4 (bans), 3 (the query indexes) and 2 (the column) undone,
		// as an older server left it.
		for _, q := range []string{`DROP INDEX games_rank`, `DROP INDEX games_rank_stage`, `DROP INDEX games_rank_players`,
			`DROP INDEX games_best`, `DROP INDEX games_recent`,
			`CREATE INDEX games_rank ON games (stage, players, score DESC, ended_at)`, `CREATE INDEX games_score ON games (score DESC, ended_at)`,
			`ALTER TABLE games DROP COLUMN run`, `DROP TABLE bans`, `UPDATE schema_version SET version = 1`} {
			if _, err := s.DB().Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "replays"), 0o750)
		type old struct {
			id     uuid.UUID
			replay []byte
		}
		run, one, gone, none := old{uuid.New(), replayOf(t, "stage1", "stage2", "stage3")}, old{uuid.New(), replayOf(t, "stage1")},
			old{uuid.New(), nil}, old{uuid.New(), nil}
		for i, g := range []old{run, one, gone, none} {
			size := int64(len(g.replay))
			if g.id == gone.id {
				size = 5000 // kept once; the file is gone since
			}
			if g.replay != nil {
				if err := os.WriteFile(filepath.Join(dir, "replays", g.id.String()+scores.ReplayExt), g.replay, 0o640); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.DB().Exec(s.dialect.rebind(`INSERT INTO games (id, stage, difficulty, players, result, score, kills, ticks, continued, ended_at, replay_file, replay_bytes)
				VALUES (?, 'stage1', 'normal', 1, 1, ?, 1, 60, 0, ?, '', ?)`), g.id.String(), 1000*(i+1), day0.UnixMilli(), size); err != nil {
				t.Fatal(err)
			}
			if _, err := s.DB().Exec(s.dialect.rebind(`INSERT INTO game_slots (game_id, slot, name, score, kills, deaths, continued, left_game)
				VALUES (?, 0, 'alice', ?, 1, 0, 0, 0)`), g.id.String(), 1000*(i+1)); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		h, lb := openHall(t, Config{Dialect: d, DSN: dsn, Dir: dir})
		board := func(stage string) []scores.Record {
			got, err := h.Games(ctx(t), scores.Query{Stage: stage})
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		got := board(stagefile.Arcade)
		if len(got) != 1 || got[0].ID != run.id || !slices.Equal(got[0].Run, []string{"stage1", "stage2", "stage3"}) {
			t.Fatalf("the arcade board after migrating: %+v, want the run %s with its three stages", got, run.id)
		}
		if got := fmt.Sprint(ids(board("stage1"))); got != fmt.Sprint([]uuid.UUID{none.id, gone.id, one.id}) {
			t.Fatalf("the stage1 board after migrating: %v, want %v", got, []uuid.UUID{none.id, gone.id, one.id})
		}
		if lb.count("arcade_runs=1") != 1 {
			t.Errorf("the log does not say one run was found:\n%s", lb)
		}
		h.Close(ctx(t))
		h, lb = openHall(t, Config{Dialect: d, DSN: dsn, Dir: dir}) // done once: nothing to read again
		if lb.count("classified") != 0 || len(board(stagefile.Arcade)) != 1 {
			t.Errorf("reopening classified games again:\n%s", lb)
		}
	})
}
