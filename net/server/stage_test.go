package server

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/replay"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/instance"
)

// A bot creates its lobby with the short stage while the server's default is stage1: the game
// plays short, and the bot knows it.
func TestBotPlaysStageChosenInLobby(t *testing.T) {
	t.Parallel()
	played := make(chan string, 1)
	addr, _, stop := startServer(t, Config{OnGameEnd: func(in *instance.Instance) {
		in.View(func(sim *game.Sim) { played <- sim.Stage().Name })
	}})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := bot.Run(ctx, bot.Config{Server: addr, Players: 1, Stage: "short"}, nil)
	if err != nil {
		t.Fatalf("bot: %v (%+v)", err, res)
	}
	short, err := stagefile.Embedded("short", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	if got := <-played; got != game.StageOf(short).Name {
		t.Fatalf("the server played %q, want %q (short)", got, game.StageOf(short).Name)
	}
	r := res[0]
	if !r.Ended() || r.Stage != "short" || r.StageHash != short.Hash || !reflect.DeepEqual(r.Script, game.StageOf(short)) {
		t.Fatalf("bot result %+v: want an ended game of short (%s) with its stage resolved", r, short.Hash)
	}
}

// A server started with -stage on a file that no client embeds: the bot fetches the file through
// the lobby, checks its hash and plays it.
func TestBotFetchesServerStageFile(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../testdata/lobby/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tinyfile.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	addr, _, stop := startServer(t, Config{Stage: path})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := bot.Run(ctx, bot.Config{Server: addr, Players: 1}, nil)
	if err != nil {
		t.Fatalf("bot: %v (%+v)", err, res)
	}
	want, err := game.ParseStage("tiny.json", data)
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if !r.Ended() || r.Stage != "tinyfile" || r.StageHash != stagefile.Hash(data) || !reflect.DeepEqual(r.Script, want) {
		t.Fatalf("bot result %+v: want an ended game of tinyfile with the fetched stage", r)
	}
}

// Bots play an arcade run against a real server (rtype-bot -mode arcade): the lobby's RUN push
// names the stages, the game goes through each stage and its tally to a victory after the last,
// every bot sees each stage (the stage singleton's variant) and the server's replay of the run
// verifies. The hall of fame keeps the run on its own board (stage arcade, docs/PROTOCOL.md
// §2.4.12), not on its first stage's.
func TestBotsPlayArcadeRun(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../testdata/lobby/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tinyfile.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	type end struct {
		index  int
		over   bool
		result rules.Result
		replay []byte
	}
	ended := make(chan end, 1)
	addr, _, stop := startServer(t, Config{Stage: path, Arcade: "tinyfile,tinyfile,tinyfile", DataDir: t.TempDir(), DB: "sqlite", OnGameEnd: func(in *instance.Instance) {
		var e end
		in.View(func(sim *game.Sim) { e.index = sim.RunIndex(); e.over, e.result = sim.Over() })
		e.replay = in.Replay()
		ended <- e
	}})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := bot.Run(ctx, bot.Config{Server: addr, Players: 2, Stage: stagefile.Arcade}, nil)
	if err != nil {
		t.Fatalf("bots: %v (%+v)", err, res)
	}
	for _, r := range res {
		if r.Result != "victory" || !reflect.DeepEqual(r.Run, []string{"tinyfile", "tinyfile", "tinyfile"}) || r.Reached != 3 || r.Tallies != 2 {
			t.Errorf("bot %s: %s, run %v, reached %d stages, %d tallies; want a victory through 3 stages and 2 tallies", r.Bot, r.Result, r.Run, r.Reached, r.Tallies)
		}
	}
	e := <-ended
	if !e.over || e.result != rules.ResultVictory || e.index != 2 {
		t.Fatalf("the server's game: over %v %v at stage %d", e.over, e.result, e.index)
	}
	rp, err := replay.Decode(e.replay)
	if err != nil {
		t.Fatal(err)
	}
	if rp.Mode != replay.ModeArcade || len(rp.Next) != 2 {
		t.Fatalf("replay mode %d with %d more stages", rp.Mode, len(rp.Next))
	}
	if err := replay.Verify(rp); err != nil {
		t.Fatal(err)
	}
	lc, _ := dialLobby(t, ctx, addr, "hallreader")
	defer lc.Close()
	var board []lobby.GameEntry
	if !waitFor(10*time.Second, func() bool {
		board, err = lc.Scores(lobby.ScoresQuery{Stage: stagefile.Arcade})
		return err == nil && len(board) == 1
	}) {
		t.Fatalf("GET_SCORES ;arcade: %v %v, want the run", board, err)
	}
	if g := board[0].Game; g.Stage != stagefile.Arcade || g.Players() != 2 || g.Result != rules.ResultVictory {
		t.Fatalf("the arcade board's game: %+v", g)
	}
	if first, err := lc.Scores(lobby.ScoresQuery{Stage: "tinyfile"}); err != nil || len(first) != 0 {
		t.Fatalf("the run's first stage's board: %v %v, want nothing", first, err)
	}
}
