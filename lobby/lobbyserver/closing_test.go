package lobbyserver

import (
	"testing"
	"time"

	"github.com/rtype/rtype/lobby"
)

// CLOSING in virtual time (docs/PROTOCOL.md §2.5.13): every open connection, authenticated or
// not, is told why the server closes and how long its games have left, with the operator's
// last broadcast; the seconds are whole and bounded; another reason is refused.
func TestCoreClosing(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	a := hallPlayer(v, "10.0.0.1", "alice")
	anon := v.open("10.0.0.2")
	if n, err := v.core.Closing(lobby.ClosingRestart, 90*time.Second+400*time.Millisecond); err != nil || n != 2 {
		t.Fatalf("Closing: %d connections, %v", n, err)
	}
	v.collect()
	for _, c := range []*vconn{a, anon} {
		if got := c.pushes(lobby.PushClosing); len(got) != 1 || got[0] != "restart,90" {
			t.Fatalf("CLOSING pushes %q, want restart,90", got)
		}
	}
	if _, err := v.core.Broadcast("maintenance, back soon"); err != nil {
		t.Fatal(err)
	}
	v.core.Closing(lobby.ClosingShutdown, 48*time.Hour)
	v.collect()
	if got := a.pushes(lobby.PushClosing); len(got) != 1 || got[0] != "shutdown,86400,maintenance, back soon" {
		t.Fatalf("CLOSING after a broadcast: %q", got)
	}
	if _, err := v.core.Closing("reboot", 0); err == nil {
		t.Fatal("Closing with an unknown reason succeeded")
	}
}

// The reference client keeps the CLOSING push (Closing, ClosingNotice), reads an unknown reason
// as a shutdown, and treats a malformed one as a protocol violation.
func TestClientClosing(t *testing.T) {
	srv, addr := startServer(t, ServerConfig{})
	c, _ := dialClient(t, addr, "alice")
	if _, ok := c.Closing(); ok {
		t.Fatal("Closing before any push")
	}
	if _, err := srv.Broadcast("new build, 2 min"); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Closing(lobby.ClosingRestart, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.ClosingNotice():
	case <-time.After(waitTime):
		t.Fatal("no CLOSING push")
	}
	if cl, ok := c.Closing(); !ok || cl != (lobby.Closing{Why: lobby.ClosingRestart, Left: 5 * time.Second, Text: "new build, 2 min"}) {
		t.Fatalf("Closing() = %+v %v", cl, ok)
	}
}
