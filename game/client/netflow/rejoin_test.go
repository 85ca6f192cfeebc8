package netflow

import (
	"os"
	"path/filepath"
	"runtime"
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

// After a rejoin the results screen names every player as at the game's START: the ticket keeps
// the names (saved with it for a rejoin on the next start), and GameNames prefers them to the
// lobby's member order, which no longer follows the slots.
func TestRejoinKeepsGameNames(t *testing.T) {
	start := []string{"alice", "bob", "carol"}
	names, byOrder := GameNames(start, false, Ticket{})
	if !byOrder || SlotName(names, byOrder, 1, 0, "alice") != "bob" {
		t.Fatalf("a fresh game: names %v by order %v", names, byOrder)
	}
	tk := Ticket{Code: "K7QF2", Slot: 0, Key: make([]byte, 16), Expires: time.Now().Add(time.Minute), Names: start}
	dir := t.TempDir()
	if err := SaveTicket(dir, tk); err != nil {
		t.Fatal(err)
	}
	got, ok := LoadTicket(dir, time.Now())
	if !ok {
		t.Fatal("ticket not loaded")
	}
	// the rejoined lobby lists the members in its own order: bob, carol, then alice who came back
	rejoined := []string{"bob", "carol", "alice"}
	names, byOrder = GameNames(rejoined, true, got)
	for slot, want := range start {
		if n := SlotName(names, byOrder, slot, 0, "alice"); n != want {
			t.Errorf("slot %d named %q after the rejoin, want %q", slot, n, want)
		}
	}
	// a ticket without names (an older client's): only the local player is named
	names, byOrder = GameNames(rejoined, true, Ticket{})
	if n := SlotName(names, byOrder, 1, 0, "alice"); n != "Player 2" {
		t.Errorf("slot 1 named %q without the ticket's names, want Player 2", n)
	}
}

// The ticket holds the session key: its file is readable by its owner only, also when it
// replaces a ticket file that was readable by everyone.
func TestRejoinTicketFileIsPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, ticketFile)
	if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil { // an older client's file
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	tk := Ticket{Code: "K7QF2", Slot: 1, Key: make([]byte, 16), Expires: time.Now().Add(time.Minute)}
	for i := 0; i < 2; i++ {
		if err := SaveTicket(dir, tk); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("save %d: ticket file mode %04o, want 0600", i, m)
		}
	}
	if _, ok := LoadTicket(dir, time.Now()); !ok {
		t.Error("the saved ticket does not load")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the settings directory, want the ticket alone", len(ents))
	}
}
