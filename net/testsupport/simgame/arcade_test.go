package simgame

import (
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/wire"
)

// An arcade run over the real protocol, in virtual time: two autopiloted clients see each stage
// of the run and its tally through the stage singleton's Kind variant (their terrain follows),
// get each cleared stage's figures as RESULTS while its tally is on (the server's StageFigures),
// and the game ends in victory after the last stage only.
func TestArcadeRunOverTheWire(t *testing.T) {
	short, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	run := []*game.Stage{short, short, short}
	g, err := New(Config{Run: run, Players: 2, Seed: 5, Autopilot: true})
	if err != nil {
		t.Fatal(err)
	}
	type seen struct{ index, tallies int }
	var views [2]seen
	var tallyOn [2]bool
	step := func() bool {
		for i, c := range g.Clients {
			c.View(g.Now, func(v *session.View) {
				idx, tally, tr := v.Stage()
				if tr != &run[idx].Terrain {
					t.Fatalf("client %d at stage %d draws another stage's terrain", i, idx)
				}
				views[i].index = max(views[i].index, idx)
				if tally && !tallyOn[i] {
					views[i].tallies++
				}
				tallyOn[i] = tally
			})
		}
		return g.Closed[0] && g.Closed[1]
	}
	if !g.RunUntil(10*time.Minute, step) {
		t.Fatalf("the run did not end: server at stage %d", g.Server.Sim().RunIndex())
	}
	over, r := g.Server.Sim().Over()
	if !over || r != rules.ResultVictory || g.Server.Sim().RunIndex() != 2 {
		t.Fatalf("the server's game: over %v %v at stage %d", over, r, g.Server.Sim().RunIndex())
	}
	for i := range g.Clients {
		if views[i].index != 2 || views[i].tallies != 2 {
			t.Errorf("client %d saw stages up to %d and %d tallies, want 2 and 2", i, views[i].index, views[i].tallies)
		}
		n := 0
		for _, ev := range g.Events[i] {
			if strings.HasPrefix(ev, "results:") {
				n++
			}
		}
		// Two players: one RESULTS per player at each of the two tallies and at the end.
		if n != 2*3 {
			t.Errorf("client %d got %d RESULTS commands, want 6 (2 tallies and the end, 2 players each): %v", i, n, g.Events[i])
		}
		res, _ := g.Clients[i].Results()
		for _, e := range res.Entries[:res.Count] {
			if want := g.Server.Sim().Stats(int(e.Slot)); e.Score != want.Score || e.Kills != want.Kills {
				t.Errorf("client %d: final RESULTS of slot %d %+v, want the run's %+v", i, e.Slot, e, want)
			}
		}
	}
}

// A practice game (it starts at the boss) flags its RESULTS as practice.
func TestPracticeResultsFlagged(t *testing.T) {
	short, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Stage: short, Players: 1, Seed: 2, Autopilot: true, Section: short.PracticeBoss()})
	if err != nil {
		t.Fatal(err)
	}
	if !g.RunUntil(5*time.Minute, func() bool { return g.Closed[0] }) {
		t.Fatal("the practice game did not end")
	}
	res, ok := g.Clients[0].Results()
	if !ok || res.Count != 1 || res.Entries[0].Flags&wire.ResultPractice == 0 {
		t.Fatalf("RESULTS %+v (ok %v): want slot 0 flagged practice", res, ok)
	}
}

// A game with infinite lives (the practice trainer, docs/PROTOCOL.md §2.4.17) from the stage's
// start, in virtual time: its RESULTS at the victory are flagged practice.
func TestInfiniteLivesResultsFlagged(t *testing.T) {
	short, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Stage: short, Players: 1, Seed: 2, Autopilot: true, InfiniteLives: true})
	if err != nil {
		t.Fatal(err)
	}
	if !g.RunUntil(10*time.Minute, func() bool { return g.Closed[0] }) {
		t.Fatal("the game did not end")
	}
	res, ok := g.Clients[0].Results()
	if !ok || res.Count != 1 || res.Entries[0].Flags&wire.ResultPractice == 0 {
		t.Fatalf("RESULTS %+v (ok %v): want slot 0 flagged practice", res, ok)
	}
	if st := g.Server.Sim().Stats(0); st.Lives != rules.DifficultyNormal.Rules().Lives {
		t.Errorf("%d deaths and %d lives at the end, want every life", st.Deaths, st.Lives)
	}
}
