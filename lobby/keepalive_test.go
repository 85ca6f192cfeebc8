package lobby

import (
	"testing"
	"time"
)

// A player waiting in a lobby longer than the server's idle timeout is not disconnected: the
// Client's keep-alive sends GET_LOBBIES in time.
func TestClientKeepAliveOutlastsIdleTimeout(t *testing.T) {
	old := KeepAlive
	KeepAlive = 100 * time.Millisecond // 6 keep-alives per idle timeout: robust on a loaded machine
	defer func() { KeepAlive = old }()
	srv, addr := startServer(t, ServerConfig{IdleTimeout: 600 * time.Millisecond, Starter: newFakeStarter()})
	c, _ := dialClient(t, addr, "waiter")
	code, err := c.Join("")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2100 * time.Millisecond) // 3.5 idle timeouts
	ls, err := c.Lobbies()
	if err != nil {
		t.Fatalf("connection closed while waiting in the lobby: %v", err)
	}
	if len(ls) != 1 || ls[0].Code != code || len(srv.Lobbies()) != 1 {
		t.Fatalf("lobbies %+v, want the waiting lobby %s", ls, code)
	}
}
