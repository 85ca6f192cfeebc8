package netflow

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	_ "modernc.org/sqlite"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/replay"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/lobbyserver"
	"github.com/rtype/rtype/lobby/scores"
	"github.com/rtype/rtype/lobby/scores/scoredb"
)

// recordGame plays ticks of a 1-player autopilot game on stage 1 and returns its replay file.
func recordGame(t *testing.T, ticks int) []byte {
	t.Helper()
	f, err := stagefile.Embedded("stage1", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	cfg := game.Config{Seed: 7, Players: 1, Stage: game.StageOf(f)}
	sim := game.NewSim(cfg)
	rec := replay.NewRecorder(replay.NewRunHeader(cfg, []string{"stage1"}, []string{"ann"}))
	sim.SetRecorder(rec)
	for i := 0; i < ticks; i++ {
		sim.SetInput(0, game.Autopilot(sim.World(), sim.Components(), &game.StageOf(f).Terrain, sim.PlayerEntity(0), sim.Tick()))
		sim.Step()
		sim.World().ClearEvents()
	}
	_, res := sim.Over()
	return rec.Encode(sim, res)
}

// The Hall of fame against a real lobby with a real SQLite hall: the page lists the kept games;
// a game's replay is downloaded into the replays folder (and not again when it is there); a
// game whose replay the server does not keep is said so; a server's bytes that are not a replay
// are refused, nothing written.
func TestHallOfFameAgainstRealLobby(t *testing.T) {
	dir := t.TempDir()
	h, err := scoredb.Open(context.Background(), scoredb.Config{Dir: filepath.Join(dir, "server"), Dialect: scoredb.SQLite,
		DSN: filepath.Join(dir, "server.db"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	rep := recordGame(t, 600)
	kept, bare, junk := uuid.New(), uuid.New(), uuid.New()
	for _, g := range []struct {
		id     uuid.UUID
		score  uint32
		replay []byte
	}{{kept, 9000, rep}, {bare, 5000, nil}, {junk, 100, []byte("not a replay at all")}} {
		rec := scores.Record{ID: g.id, Stage: "stage1", Result: rules.ResultDefeat, Ticks: 600, Ended: time.Now().UTC(),
			Slots: []scores.Slot{{Name: "ann", Score: g.score}}}
		if !h.Record(rec, g.replay) {
			t.Fatal("the hall refused a game")
		}
	}
	for deadline := time.Now().Add(5 * time.Second); h.Stats().Recorded < 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("games not stored")
		}
	}
	addr, _, _ := startLobbyConfig(t, func(c *lobbyserver.ServerConfig) { c.Hall = h })

	n := NewRunner(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), "ann", "")
	defer n.Close()
	m := scene.New(addr, scene.Auto{})
	run := func(ev scene.Event) {
		for _, c := range m.Handle(ev) {
			if c.Kind == scene.CmdFetchReplay {
				c.Path = filepath.Join(dir, "client") // what the app sets: its replays folder
			}
			n.Exec(c)
		}
	}
	step := func(what string) {
		t.Helper()
		select {
		case ne := <-n.events:
			n.Accept(ne)
			run(ne.Ev)
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no reply (scene %v busy %q error %q)", what, m.Scene, m.Busy, m.Error)
		}
	}
	run(scene.Event{Kind: scene.EvOpenHall})
	step("connect")
	step("scores")
	if m.Scene != scene.HallOfFame || len(m.Games) != 3 || m.Games[0].Game.ID != kept || m.Games[0].Game.ReplayBytes != int64(len(rep)) {
		t.Fatalf("hall: scene %v, %d games, error %q", m.Scene, len(m.Games), m.Error)
	}
	run(scene.Event{Kind: scene.EvHallQuery, Hall: scene.Hall{View: scene.HallMine}})
	step("your best")
	if len(m.Games) != 3 {
		t.Fatalf("your best: %d games", len(m.Games))
	}
	run(scene.Event{Kind: scene.EvWatchGame, Code: kept.String()})
	step("fetch")
	path := filepath.Join(dir, "client", kept.String()+replay.FileExt)
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, rep) || m.Busy != "Opening replay" {
		t.Fatalf("fetched file: %v (%d bytes, want %d); busy %q", err, len(got), len(rep), m.Busy)
	}
	m.Handle(scene.Event{Kind: scene.EvWatchFailed, Err: io.EOF}) // back to the list (the app would play it)
	p, err := fetchReplay(n.lobby, filepath.Join(dir, "client"), kept)
	if err != nil || p != path {
		t.Fatalf("second fetch: %q %v", p, err)
	}
	run(scene.Event{Kind: scene.EvWatchGame, Code: bare.String()})
	step("no replay")
	if !strings.Contains(m.Detail+m.Error, "no replay") {
		t.Fatalf("a game without a replay: error %q detail %q", m.Error, m.Detail)
	}
	if _, err := fetchReplay(n.lobby, filepath.Join(dir, "client"), junk); err == nil || !strings.Contains(err.Error(), "replay") {
		t.Fatalf("a server's junk accepted as a replay: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "client", junk.String()+replay.FileExt)); !os.IsNotExist(err) {
		t.Fatalf("junk written: %v", err)
	}
}

// The replay kept after a game is the game's that just ended: the lobby's GAME_ID may come
// after GAME_END (the command), so an id that is none or still the game kept before is asked
// for again, and "being stored" is asked again; a server that names no game gets no download.
func TestKeepReplayWaitsForTheGamesID(t *testing.T) {
	defer func(d time.Duration) { keepEvery = d }(keepEvery)
	keepEvery = time.Millisecond
	n := NewRunner(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), "ann", "")
	defer n.Close()
	old, fresh := uuid.New(), uuid.New()
	var mu sync.Mutex
	asks := 0
	gameID := func() uuid.UUID { // the previous game's id until the new GAME_ID, on the 3rd look
		mu.Lock()
		defer mu.Unlock()
		asks++
		if asks < 3 {
			return old
		}
		return fresh
	}
	var fetched []uuid.UUID
	fetch := func(id uuid.UUID) (string, error) {
		fetched = append(fetched, id)
		if len(fetched) == 1 {
			return "", &lobby.ResponseError{Code: 500, Reason: "the replay of game " + id.String() + " is being stored: ask again in a moment"}
		}
		return "/replays/" + id.String() + ".rtr", nil
	}
	n.keepReplay(gameID, fetch, old)
	if len(fetched) != 2 || fetched[0] != fresh || fetched[1] != fresh {
		t.Fatalf("fetched %v, want the new game %v twice (being stored, then kept)", fetched, fresh)
	}
	n.mu.Lock()
	kept := n.keptGame
	n.mu.Unlock()
	if kept != fresh {
		t.Errorf("keptGame %v, want %v", kept, fresh)
	}

	fetched = nil
	n.keepReplay(func() uuid.UUID { return fresh }, fetch, fresh) // no new GAME_ID: the server kept none
	if len(fetched) != 0 {
		t.Errorf("fetched %v for a game that named no new id", fetched)
	}
}
