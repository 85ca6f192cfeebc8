package replay

import (
	"testing"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
)

// A practice game with infinite lives (game.Config.InfiniteLives) is recorded as such (bit 7 of
// the difficulty byte, docs/REPLAY.md) and plays back to the same hashes; its ships come back
// with every life however often they are lost. Without the bit the same bytes as ever.
func TestReplayInfiniteLives(t *testing.T) {
	f, err := stagefile.Embedded("short", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	cfg := game.Config{Seed: 3, Players: 1, Stage: game.StageOf(f), Difficulty: rules.DifficultyHard, InfiniteLives: true}
	h := NewRunHeader(cfg, []string{"short"}, []string{"ann"})
	g := &botGame{sim: game.NewSim(cfg), rec: NewRecorder(h), st: cfg.Stage}
	g.sim.SetRecorder(g.rec)
	for i := 0; i < 40*game.TickRate; i++ { // a passive player: the enemies get it again and again
		g.sim.Step()
		g.sim.World().ClearEvents()
	}
	st := g.sim.Stats(0)
	if st.Deaths < 3 || st.Lives != rules.DifficultyHard.Rules().Lives {
		t.Fatalf("an idle ship in 40 s with infinite lives: %d deaths, %d lives left (want several deaths, every life)", st.Deaths, st.Lives)
	}
	r := mustDecode(t, g.encode(t))
	if !r.InfiniteLives || r.Difficulty != rules.DifficultyHard {
		t.Fatalf("header: infinite lives %v, difficulty %v", r.InfiniteLives, r.Difficulty)
	}
	if err := Verify(r); err != nil {
		t.Fatal(err)
	}
	h.InfiniteLives = false
	if b := appendHeader(nil, &h); b[len(b)-len("ann")-3] != byte(rules.DifficultyHard) {
		t.Fatalf("the difficulty byte without infinite lives is %#x", b[len(b)-len("ann")-3])
	}
}

// An arcade run's replay goes by the arcade board's name (what the replays list and its results
// show), a one-stage game's by its stage.
func TestReplayBoard(t *testing.T) {
	if b := mustDecode(t, newRunGame(t, []string{"short", "stage1"}, 1, 1).encode(t)).Board(); b != stagefile.Arcade {
		t.Errorf("an arcade run's Board() = %q", b)
	}
	if b := mustDecode(t, newBotGame(t, "short", 1, 1).encode(t)).Board(); b != "short" {
		t.Errorf("a one-stage game's Board() = %q", b)
	}
}
