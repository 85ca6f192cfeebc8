package session

import (
	"net/netip"
	"testing"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
)

// predicting is a session whose ship (alive, at x=500) is predicted, with inputs stamped up to
// tick 100.
func predicting(t *testing.T) *Client {
	t.Helper()
	s := NewClient(ClientConfig{Token: 42, Server: netip.MustParseAddrPort("127.0.0.1:9")}, 0)
	s.self = ecs.Entity(1<<32 | 1)
	if err := s.world.CreateWithID(s.self); err != nil {
		t.Fatal(err)
	}
	s.comps.Player.Set(s.self, game.Player{Lives: 3})
	s.predOK, s.predAlive, s.predX, s.predY = true, true, 500, 500
	s.haveTick, s.servTick, s.servAt = true, 94, s.t
	s.inTick = 100
	return s
}

// When the RTT estimate drops, the input stamps hold instead of going back: the ticks already
// stamped were sent, and the server keeps the first input it gets for a tick.
func TestInputStampsNeverGoBack(t *testing.T) {
	s := predicting(t)
	s.servTick = 80 // the target tick (about 82) is now far behind the stamps (100)
	s.held.Store(uint32(game.BtnUp))
	if s.stepInput(s.t, false) || s.inTick != 100 {
		t.Fatalf("stamped tick %d after the target fell 18 ticks behind, want a hold at 100", s.inTick)
	}
	s.servTick, s.servAt = 110, s.t // target about 112: far ahead, re-aim forward
	if !s.stepInput(s.t, false) || s.inTick < 110 {
		t.Fatalf("stamped tick %d, want a re-aim forward to about 112", s.inTick)
	}
	for tk := uint32(101); tk <= s.inTick; tk++ {
		if r := s.inputs[tk%uint32(len(s.inputs))]; r.tick != tk || r.b != game.BtnUp {
			t.Errorf("tick %d between the old and new stamps: %+v, want up", tk, r)
		}
	}
}

// Reconciliation replays, on a tick without an input, the last buttons before it, as the server
// applies them (docs/PROTOCOL.md §5.4).
func TestReconcileHoldsLastButtons(t *testing.T) {
	s := predicting(t)
	n := uint32(len(s.inputs))
	s.inputs[90%n] = inputRec{tick: 90, b: game.BtnRight}
	s.inputs[95%n] = inputRec{tick: 95, b: game.BtnRight}
	s.inputs[100%n] = inputRec{tick: 100, b: 0}
	// the server's state at tick 92: ticks 93..99 move right (no input for 93, 94, 96..99), 100 stays
	want := float32(300)
	for range 7 {
		want, _ = game.MoveShip(want, 500, game.BtnRight, 0)
	}
	s.predX = want
	s.reconcile(300, 500, 92)
	if s.predX != want || s.corrN != 0 {
		t.Errorf("replayed to x=%v with %d corrections, want x=%v and none", s.predX, s.corrN, want)
	}
}
