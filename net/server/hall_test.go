package server

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/instance"
)

// TestHallOfFameEndToEnd: a real server keeps its games in SQLite in its data directory. A game
// ends; its spectator gets GAME_ID then END, finds the game with GET_GAMES (aborted: not ranked by
// GET_SCORES), downloads the replay the server kept for it (Config.Replays) with GET_REPLAY, and
// /metrics counts it.
func TestHallOfFameEndToEnd(t *testing.T) {
	t.Parallel()
	log, _ := newLogCapture(t)
	metricsAddr := make(chan string, 1)
	replay := bytes.Repeat([]byte("a replay file "), 400) // 5600 bytes: 3 parts
	addr, _, stop := startServerTB(t, Config{Stage: "short", Logger: log, DataDir: t.TempDir(), DB: "sqlite",
		MetricsAddr: "127.0.0.1:0", OnMetrics: func(a net.Addr) { metricsAddr <- a.String() },
		Replays: func(*instance.Instance) []byte { return replay }, NoVerify: true})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	a := &manualPlayer{}
	a.lc, a.uid = dialLobby(t, ctx, addr, "alice")
	defer a.close()
	w, _ := dialLobby(t, ctx, addr, "wendy")
	defer w.Close()
	code, err := a.lc.Join("")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.lc.Start(); err != nil {
		t.Fatal(err)
	}
	if a.st, err = a.lc.WaitStart(ctx); err != nil {
		t.Fatal(err)
	}
	a.play(t, ctx)
	if _, err := w.Join(code); err != nil { // a spectator of the running game
		t.Fatal(err)
	}
	a.playTicks(t, 10) // a few ticks of play
	// the only player leaves for good (LEAVE, then BYE): the game ends (aborted). LEAVE first:
	// a lobby connection closed before the BYE arrives keeps the slot for a rejoin (60 s)
	if err := a.lc.Leave(); err != nil {
		t.Fatal(err)
	}
	a.close()

	res, err := w.WaitEnd(ctx)
	if err != nil || res != 2 {
		t.Fatalf("END %d %v, want 2 (aborted)", res, err)
	}
	id := w.LastGameID()
	if id.Version() != 4 {
		t.Fatalf("no GAME_ID before END (got %v)", id)
	}
	var games []lobby.GameEntry
	if !waitFor(10*time.Second, func() bool {
		games, err = w.RecentGames(0, "")
		return err == nil && len(games) == 1
	}) {
		t.Fatalf("GET_GAMES: %v %v, want the game", games, err)
	}
	g := games[0].Game
	if g.ID != id || g.Stage != "short" || g.Players() != 1 || g.Slots[0].Name != "alice" || g.ReplayBytes != int64(len(replay)) || g.Ticks == 0 {
		t.Fatalf("the kept game: %+v", g)
	}
	if best, err := w.Scores(lobby.ScoresQuery{Stage: "short"}); err != nil || len(best) != 0 {
		t.Fatalf("GET_SCORES ranks an aborted game: %v %v", best, err)
	}
	var got []byte
	waitFor(10*time.Second, func() bool { got, err = w.FetchReplay(id); return err == nil }) // written just after the row
	if err != nil || !bytes.Equal(got, replay) {
		t.Fatalf("GET_REPLAY: %d bytes, %v", len(got), err)
	}
	if _, err := w.FetchReplay(a.uid); err == nil {
		t.Fatal("GET_REPLAY of an unknown game succeeded")
	} else if re := new(lobby.ResponseError); !errors.As(err, &re) || re.Code != 500 {
		t.Fatalf("GET_REPLAY of an unknown game: %v", err)
	}
	m := scrape(t, <-metricsAddr)
	if m["rtype_scores_games_recorded_total"] != 1 || m["rtype_scores_replay_bytes"] != float64(len(replay)) || m["rtype_scores_failing"] != 0 {
		t.Fatalf("metrics: recorded %v, bytes %v, failing %v", m["rtype_scores_games_recorded_total"], m["rtype_scores_replay_bytes"], m["rtype_scores_failing"])
	}
}

// TestHallDiskGoneGamesGoOn: the data directory becomes unusable under a running server (its
// replays folder replaced by a file: what a full or read-only disk looks like to the recorder,
// even as root): the game still ends normally for its players (GAME_ID, END), the lobby still
// answers, and the log says once that recording stopped.
func TestHallDiskGoneGamesGoOn(t *testing.T) {
	t.Parallel()
	log, logs := newLogCapture(t)
	dir := t.TempDir()
	addr, _, stop := startServerTB(t, Config{Stage: "short", Logger: log, DataDir: dir, DB: "sqlite",
		Replays: func(*instance.Instance) []byte { return []byte("replay") }, NoVerify: true})
	defer stop()
	rd := filepath.Join(dir, "replays")
	if err := os.RemoveAll(rd); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rd, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for round := range 2 {
		a := &manualPlayer{}
		a.lc, a.uid = dialLobby(t, ctx, addr, "alice")
		w, _ := dialLobby(t, ctx, addr, "wendy")
		code, err := a.lc.Join("")
		if err != nil {
			t.Fatal(err)
		}
		if err := a.lc.Start(); err != nil {
			t.Fatal(err)
		}
		if a.st, err = a.lc.WaitStart(ctx); err != nil {
			t.Fatal(err)
		}
		a.play(t, ctx)
		if _, err := w.Join(code); err != nil {
			t.Fatal(err)
		}
		a.playTicks(t, 10)
		if err := a.lc.Leave(); err != nil { // for good: a closed connection would keep the slot 60 s
			t.Fatal(err)
		}
		a.close()
		if res, err := w.WaitEnd(ctx); err != nil || res != 2 {
			t.Fatalf("round %d: END %d %v", round, res, err)
		}
		if _, err := w.RecentGames(0, ""); err != nil { // the database works: the row waits behind its file
			t.Fatalf("round %d: GET_GAMES: %v", round, err)
		}
		w.Close()
	}
	if !waitFor(10*time.Second, func() bool {
		return len(logs.find("game recording stopped: cannot store finished games (they wait in memory and are stored once this works again; games go on)")) > 0
	}) {
		t.Fatal("no 'recording stopped' line")
	}
	if n := len(logs.find("game recording stopped: cannot store finished games (they wait in memory and are stored once this works again; games go on)")); n != 1 {
		t.Fatalf("%d 'recording stopped' lines for 2 games, want 1 (one a minute)", n)
	}
}

// TestHallOff: with -db off the hall-of-fame commands get 500 and END comes without GAME_ID.
func TestHallOff(t *testing.T) {
	t.Parallel()
	log, _ := newLogCapture(t)
	addr, _, stop := startServerTB(t, Config{Stage: "short", Logger: log, DB: "off"})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, _ := dialLobby(t, ctx, addr, "alice")
	defer c.Close()
	if _, err := c.Scores(lobby.ScoresQuery{}); err == nil {
		t.Fatal("GET_SCORES answered 200 with -db off")
	} else if re := new(lobby.ResponseError); !errors.As(err, &re) || re.Code != 500 {
		t.Fatalf("GET_SCORES with -db off: %v", err)
	}
}
