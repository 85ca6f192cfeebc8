package simgame

import (
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/replay"
)

// Every game is recorded (instance.Game.Replay): three autopilot players on the short stage, one
// of whom crashes and rejoins, two of whom leave, and the last one pauses and resumes, give a
// replay that plays back (replay.Verify, every checkpoint) to the server's final hash, with the
// suspension, resumption, removals and pause in it.
func TestRecordedGameReplays(t *testing.T) {
	st, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Stage: st, Players: 3, Seed: 11, Autopilot: true, SilenceTimeout: time.Second, RejoinWindow: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sim := g.Server.Sim()
	g.RunFor(3 * time.Second)
	g.CloseClient(2, false) // crash: suspended after SilenceTimeout
	if !g.RunUntil(g.Now+5*time.Second, func() bool { return sim.Suspended(2) }) {
		t.Fatal("the crashed player was not suspended")
	}
	g.RunFor(time.Second)
	rj := member("p3-again", 2, 2002)
	if _, err := g.Server.Rejoin(g.Now, rj); err != nil {
		t.Fatal(err)
	}
	g.AddClient(rj)
	g.RunFor(3 * time.Second)
	g.CloseClient(1, true) // BYE: removed
	g.CloseClient(3, true) // the rejoined player leaves too
	g.RunFor(time.Second)
	g.Clients[0].RequestPause(true)
	if !g.RunUntil(g.Now+time.Second, g.Server.Paused) {
		t.Fatal("the lone player's PAUSE was not honoured")
	}
	g.RunFor(time.Second)
	g.Clients[0].RequestPause(false)
	if !g.RunUntil(g.Now+time.Second, func() bool { return !g.Server.Paused() }) {
		t.Fatal("the game stayed paused")
	}
	g.RunUntil(g.Now+120*time.Second, func() bool { over, _ := g.Server.Over(); return over })
	over, res := g.Server.Over()
	if !over {
		t.Fatal("the game did not end")
	}

	b := g.Server.Replay()
	r, err := replay.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if end := r.End(); end.Tick != sim.Tick() || end.Hash != sim.Hash() {
		t.Fatalf("replay ends at tick %d hash %016x; the server's game at tick %d hash %016x", end.Tick, end.Hash, sim.Tick(), sim.Hash())
	}
	if r.Result != res || r.Players != 3 || r.Names[0] != "p1" || r.Stage != "" && r.Stage != "short" {
		t.Errorf("replay header/result: %+v, result %v (want %v)", r.Header, r.Result, res)
	}
	seen := map[replay.EventKind]int{}
	for _, ev := range r.Events {
		seen[ev.Kind]++
	}
	for _, k := range []replay.EventKind{replay.EventSuspend, replay.EventResume, replay.EventRemove, replay.EventPause, replay.EventUnpause} {
		if seen[k] == 0 {
			t.Errorf("no %s event in the replay (%v)", k, seen)
		}
	}
	if seen[replay.EventRemove] != 2 {
		t.Errorf("%d remove events, want 2", seen[replay.EventRemove])
	}
	if err := replay.Verify(r); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d ticks, %d bytes, %d checkpoints, events %v", r.End().Tick, len(b), r.Checkpoints(), seen)
}
