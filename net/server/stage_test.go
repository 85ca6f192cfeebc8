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
	// a bound for a stuck game, not a speed: the run takes under a minute on an idle machine
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := bot.Run(ctx, bot.Config{Server: addr, Players: 2, Stage: stagefile.Arcade}, nil)
	if err != nil {
		t.Fatalf("bots: %v (%+v)", err, res)
	}
	e := <-ended
	if !e.over {
		t.Fatalf("the server's game: not over (%v at stage %d)", e.result, e.index)
	}
	// How far the bots get is how well they play, which a busy machine changes (stale
	// snapshots steer their autopilots): a whole run to its victory is the Sim's, in virtual
	// time (net/testsupport/simgame's arcade test). Here the run moves on over the wire at least
	// once, and the bots saw the server's game as it went: its stages, its tallies, its end.
	for _, r := range res {
		want := map[rules.Result]string{rules.ResultVictory: "victory", rules.ResultDefeat: "defeat"}[e.result]
		if r.Result != want || !reflect.DeepEqual(r.Run, []string{"tinyfile", "tinyfile", "tinyfile"}) || r.Reached != e.index+1 || r.Tallies != e.index || r.Reached < 2 {
			t.Errorf("bot %s: %s, run %v, reached %d stages, %d tallies; the server's game: %v at stage %d of 3 (want at least the second)",
				r.Bot, r.Result, r.Run, r.Reached, r.Tallies, e.result, e.index+1)
		}
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
