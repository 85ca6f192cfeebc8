package netflow

import (
	"testing"
	"time"

	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/lobby"
)

// The rejoin ticket: built from the latest START push and the lost slot, saved in the settings
// directory for the next start, refused once expired, and turned into the REJOIN command.
func TestRejoinTicket(t *testing.T) {
	n := &Runner{addr: "host:4242"}
	if _, ok := n.Ticket(0, time.Now()); ok {
		t.Fatal("a ticket before any game")
	}
	key := [16]byte{1, 2, 3}
	n.noteStart(lobby.StartInfo{Port: 4242, Token: 7, Key: key, Code: "K7QF2"})
	lost := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tk, ok := n.Ticket(2, lost)
	if !ok || tk.Server != "host:4242" || tk.Code != "K7QF2" || tk.Slot != 2 || !tk.Expires.Equal(lost.Add(RejoinWindow)) {
		t.Fatalf("ticket %+v ok %v", tk, ok)
	}
	dir := t.TempDir()
	if err := SaveTicket(dir, tk); err != nil {
		t.Fatal(err)
	}
	got, ok := LoadTicket(dir, lost.Add(30*time.Second))
	if !ok || got.Code != tk.Code || got.Slot != 2 || string(got.Key) != string(key[:]) {
		t.Fatalf("loaded %+v ok %v", got, ok)
	}
	c := got.Cmd()
	if c.Kind != scene.CmdRejoin || c.Code != "K7QF2" || c.Slot != 2 || c.Key != key {
		t.Errorf("Cmd() = %+v", c)
	}
	if _, ok := LoadTicket(dir, lost.Add(61*time.Second)); ok {
		t.Error("an expired ticket loaded")
	}
	if _, ok := LoadTicket(dir, lost.Add(30*time.Second)); ok {
		t.Error("the expired ticket was not removed")
	}
	n.noteStart(lobby.StartInfo{Port: 4242, Token: 8, Code: "K7QF2", Spectator: true})
	if _, ok := n.Ticket(-1, lost); ok {
		t.Error("a spectator got a ticket")
	}
}
