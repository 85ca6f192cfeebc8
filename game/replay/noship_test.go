package replay

import (
	"testing"

	"github.com/rtype/rtype/game"
)

// docs/REPLAY.md: an input event for a slot without a ship (removed, or suspended and not yet
// resumed) is recorded and replayed like any other: the Sim keeps the slot's buttons, which move
// nothing while it has no ship, and a resumed ship holds them from its first Step.
func TestInputWithoutShip(t *testing.T) {
	g := newBotGame(t, "short", 2, 1)
	g.sim.Step()
	g.sim.SuspendPlayer(0)
	g.sim.RemovePlayer(1)
	g.sim.SetInput(0, game.Input{Buttons: game.BtnRight}) // suspended
	g.sim.SetInput(1, game.Input{Buttons: game.BtnFire})  // removed
	g.sim.Step()
	e := g.sim.ResumePlayer(0)
	x := g.sim.Components().Position.Get(e).X
	g.sim.Step()
	if got := g.sim.Components().Position.Get(e).X; got <= x {
		t.Fatalf("the resumed ship went from x=%v to %v: it does not hold the buttons set while it was suspended", x, got)
	}
	r := mustDecode(t, g.encode(t))
	var kinds []EventKind
	for _, ev := range r.Events {
		if ev.Kind != EventCheckpoint {
			kinds = append(kinds, ev.Kind)
		}
	}
	want := []EventKind{EventSuspend, EventRemove, EventInput, EventInput, EventResume, EventEnd}
	if len(kinds) != len(want) {
		t.Fatalf("events %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("events %v, want %v", kinds, want)
		}
	}
	if err := Verify(r); err != nil {
		t.Fatal(err)
	}
}
