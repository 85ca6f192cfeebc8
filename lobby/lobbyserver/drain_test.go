package lobbyserver

import (
	"testing"
	"time"

	"github.com/rtype/rtype/lobby"
)

// Drain in virtual time: every connection hears CLOSING with the time its games have left; a
// START and a RETRY are refused with RefusedDraining while lobbies, joins and chat still work.
func TestCoreDrain(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	a := hallPlayer(v, "10.0.0.1", "alice")
	code := a.ok(lobby.CmdJoinLobby, "")
	if n, err := v.core.Drain(10 * time.Minute); err != nil || n != 1 {
		t.Fatalf("Drain: %d, %v", n, err)
	}
	v.collect()
	if got := a.pushes(lobby.PushClosing); len(got) != 1 || got[0] != "shutdown,600" {
		t.Fatalf("CLOSING pushes %q, want shutdown,600", got)
	}
	if got := a.fail(lobby.CmdStart); got != RefusedDraining {
		t.Fatalf("START while draining: %q, want %q", got, RefusedDraining)
	}
	if got := a.fail(lobby.CmdRetry); got != RefusedDraining {
		t.Fatalf("RETRY while draining: %q, want %q", got, RefusedDraining)
	}
	b := hallPlayer(v, "10.0.0.2", "bob")
	b.ok(lobby.CmdJoinLobby, code) // joining a lobby still works: only new games are refused
	b.ok(lobby.CmdChat, "bye")
}
