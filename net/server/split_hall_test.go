package server

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/replay"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/lobby/scores"
	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/fleet"
	"github.com/rtype/rtype/net/instance"
)

// TestSplitHall: in split mode the lobby's hall of fame (its -data, SQLite) keeps the games its
// host ran, as the all-in-one server does. A 2-bot game on the host ends: the lobby's GET_GAMES
// and GET_SCORES have it with every slot's name, score, kills and deaths as the host's
// simulation had them and its length, and GET_REPLAY returns the host's replay file, which
// decodes and verifies (every checkpoint re-simulated). Then a player's game is aborted: its
// spectator gets GAME_ID before END, and that id is a kept game with its replay.
func TestSplitHall(t *testing.T) {
	t.Parallel()
	var (
		mu     sync.Mutex
		onHost []scores.Record // what the host's simulation had at each end (GameRecord's figures)
	)
	hostCfg := Config{Addr: "127.0.0.1:0", UDPHost: "127.0.0.1", Stage: "short", Logger: quietLog(),
		OnGameEnd: func(in *instance.Instance) {
			r := scores.Record{Result: rules.Result(in.Result())}
			in.View(func(sim *game.Sim) {
				r.Ticks = uint32(sim.Tick())
				for slot := range rules.MaxPlayers {
					st := sim.Stats(slot)
					r.Slots = append(r.Slots, scores.Slot{Score: st.Score, Kills: st.Kills, Deaths: st.Deaths})
				}
			})
			mu.Lock()
			onHost = append(onHost, r)
			mu.Unlock()
		},
		Fleet: FleetConfig{Role: RoleHost, Secret: testControlSecret, Control: "127.0.0.1:0", Capacity: 4}}
	control, _, stopHost := startServerTB(t, hostCfg)
	defer stopHost()
	var remote *fleet.Remote
	addr, _, stop := startServerTB(t, Config{Stage: "short", Logger: quietLog(), DataDir: t.TempDir(), DB: "sqlite",
		Fleet: FleetConfig{Role: RoleLobby, Secret: testControlSecret, Hosts: []string{control}, OnRemote: func(r *fleet.Remote) { remote = r }}})
	defer stop()
	if !waitFor(10*time.Second, func() bool { return remote.Up() == 1 }) {
		t.Fatal("host not up")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	res, err := bot.Run(ctx, bot.Config{Server: addr, Players: 2, Name: "hall"}, nil)
	if err != nil || len(res) != 2 || !res[0].Ended() || res[0].Result == "aborted" {
		t.Fatalf("bots: %v %+v", err, res)
	}
	w, _ := dialLobby(t, ctx, addr, "wendy")
	defer w.Close()
	var games []lobby.GameEntry
	if !waitFor(10*time.Second, func() bool {
		games, err = w.RecentGames(0, "")
		return err == nil && len(games) == 1
	}) {
		t.Fatalf("GET_GAMES: %v %v, want the bots' game", games, err)
	}
	g := games[0].Game
	mu.Lock()
	want := onHost[0]
	mu.Unlock()
	if g.Stage != "short" || g.Players() != 2 || g.Ticks != want.Ticks || g.Ticks == 0 || g.Result != want.Result || g.ReplayBytes == 0 {
		t.Fatalf("the kept game: %+v, the host's: %+v", g, want)
	}
	for _, r := range res {
		s := g.Slots[r.Slot]
		h := want.Slots[r.Slot]
		if s.Name != r.Bot || s.Score != h.Score || s.Kills != h.Kills || s.Deaths != h.Deaths || s.Score != r.Score {
			t.Errorf("slot %d kept as %+v; the host had %+v, the bot %s scored %d", r.Slot, s, h, r.Bot, r.Score)
		}
	}
	best, err := w.Scores(lobby.ScoresQuery{Stage: "short"})
	if err != nil || len(best) != 1 || best[0].Game.ID != g.ID {
		t.Fatalf("GET_SCORES: %+v %v, want the bots' game", best, err)
	}
	var file []byte
	waitFor(10*time.Second, func() bool { file, err = w.FetchReplay(g.ID); return err == nil })
	if err != nil || int64(len(file)) != g.ReplayBytes {
		t.Fatalf("GET_REPLAY: %d bytes, %v; the record says %d", len(file), err, g.ReplayBytes)
	}
	rp, err := replay.Decode(file)
	if err != nil {
		t.Fatalf("the kept replay: %v", err)
	}
	if err := replay.Verify(rp); err != nil {
		t.Fatalf("the kept replay does not verify: %v", err)
	}

	// GAME_ID names a game the lobby's hall has, whichever process ran it.
	a := &manualPlayer{}
	a.lc, a.uid = dialLobby(t, ctx, addr, "alice")
	defer a.close()
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
	a.playTicks(t, 10) // a few ticks of play
	if err := a.lc.Leave(); err != nil {
		t.Fatal(err)
	}
	a.close()
	if r, err := w.WaitEnd(ctx); err != nil || r != 2 {
		t.Fatalf("END %d %v, want 2 (aborted)", r, err)
	}
	id := w.LastGameID()
	if id.Version() != 4 || id == g.ID {
		t.Fatalf("no new GAME_ID before END (got %v)", id)
	}
	if !waitFor(10*time.Second, func() bool {
		games, err = w.RecentGames(0, "")
		return err == nil && len(games) == 2
	}) {
		t.Fatalf("GET_GAMES: %v %v, want both games", games, err)
	}
	if k := games[0].Game; k.ID != id || k.Players() != 1 || k.Slots[0].Name != "alice" || k.Result != rules.ResultAborted || k.Ticks == 0 || k.ReplayBytes == 0 {
		t.Fatalf("the game of GAME_ID kept as %+v", k)
	}
	waitFor(10*time.Second, func() bool { file, err = w.FetchReplay(id); return err == nil })
	if err != nil {
		t.Fatalf("GET_REPLAY of the aborted game: %v", err)
	}
	if _, err := replay.Decode(file); err != nil {
		t.Fatalf("the aborted game's replay: %v", err)
	}
}

// TestSplitRecord: the lobby's record of a host's game takes the id, stage, level and names from
// its own spec and the figures from the host's record; without a valid one (a lost or older
// host, a record that does not fit, a result out of range) the game is kept as aborted with its
// names and no figures, so it is never ranked on figures nobody vouched for.
func TestSplitRecord(t *testing.T) {
	spec := handoff.GameSpec{ID: uuid.New(), Stage: "short", Difficulty: rules.DifficultyHard,
		Members: []handoff.Member{{Name: "ann", Slot: 0}, {Name: "bob", Slot: 1}}}
	rec := &fleet.Record{Ticks: 900, Slots: []fleet.SlotRecord{{Score: 700, Kills: 7, Deaths: 1}, {Score: 50, Kills: 1, Deaths: 3, Continued: true, Left: true}}}
	r := splitRecord(spec, fleet.GameEnd{Result: 1, Record: rec, Replay: []byte("x")})
	want := []scores.Slot{{Name: "ann", Score: 700, Kills: 7, Deaths: 1}, {Name: "bob", Score: 50, Kills: 1, Deaths: 3, Continued: true, Left: true}}
	if r.ID != spec.ID || r.Stage != "short" || r.Difficulty != rules.DifficultyHard || r.Result != rules.ResultVictory || r.Ticks != 900 ||
		!reflect.DeepEqual(r.Slots, want) || r.Check() != nil {
		t.Fatalf("record: %+v", r)
	}
	run := spec
	run.Run = []string{"short", "tiny"}
	if r := splitRecord(run, fleet.GameEnd{Result: 1, Record: rec}); r.Stage != stagefile.Arcade || !reflect.DeepEqual(r.Run, run.Run) || r.Check() != nil {
		t.Fatalf("an arcade run's record: stage %q run %v (%v), want its own board with its stages", r.Stage, r.Run, r.Check())
	}
	for name, end := range map[string]fleet.GameEnd{
		"lost host":   {Result: 2, Lost: true},
		"no record":   {Result: 1},
		"wrong slots": {Result: 1, Record: &fleet.Record{Ticks: 5, Slots: rec.Slots[:1]}},
		"result 3":    {Result: 3, Record: rec},
	} {
		r := splitRecord(spec, end)
		if r.Result != rules.ResultAborted || r.Ticks != 0 || len(r.Slots) != 2 || r.Slots[1] != (scores.Slot{Name: "bob"}) || r.Check() != nil {
			t.Errorf("%s: %+v", name, r)
		}
	}
}

// TestSplitRecordEndTime: a game that ended on its host while the lobby was away is kept with
// the host's end time; a record from an older host (none), one in the future or more than a
// day old is kept with the lobby's own time.
func TestSplitRecordEndTime(t *testing.T) {
	spec := handoff.GameSpec{ID: uuid.New(), Stage: "short", Members: []handoff.Member{{Name: "ann", Slot: 0}}}
	rec := func(ended time.Time) *fleet.Record {
		r := &fleet.Record{Ticks: 900, Slots: []fleet.SlotRecord{{Score: 700}}}
		if !ended.IsZero() {
			r.Ended = ended.UnixMilli()
		}
		return r
	}
	before := time.Now().UTC()
	away := before.Add(-25 * time.Second).Truncate(time.Millisecond)
	if got := splitRecord(spec, fleet.GameEnd{Result: 1, Record: rec(away)}).Ended; !got.Equal(away) {
		t.Errorf("ended 25 s before its hand-back: kept at %v, want the host's %v", got, away)
	}
	for name, ended := range map[string]time.Time{
		"older host": {},
		"future":     before.Add(time.Hour),
		"two days":   before.Add(-48 * time.Hour),
	} {
		if got := splitRecord(spec, fleet.GameEnd{Result: 1, Record: rec(ended)}).Ended; got.Before(before) {
			t.Errorf("%s: kept at %v, want the lobby's now (after %v)", name, got, before)
		}
	}
}
