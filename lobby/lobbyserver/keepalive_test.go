package lobbyserver

import (
	"bytes"
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rtype/rtype/lobby"
)

// countingConn counts the GET_LOBBIES lines a Client writes.
type countingConn struct {
	net.Conn
	lists atomic.Int64
}

func (c *countingConn) Write(b []byte) (int, error) {
	if bytes.HasPrefix(b, []byte(lobby.CmdGetLobbies+" ")) {
		c.lists.Add(1)
	}
	return c.Conn.Write(b)
}

// A player waiting in a lobby longer than the server's idle timeout is not disconnected: an
// authenticated Client sends GET_LOBBIES every KeepAlive by itself, well within the default
// idle timeout, and a valid GET_LOBBIES restarts the server's idle timer (TestCoreIdleTimeout,
// in virtual time). Here, over a real socket: the keep-alives go out and are answered, and the
// connection stays usable.
func TestClientKeepAlive(t *testing.T) {
	if 2*lobby.KeepAlive > DefaultIdleTimeout {
		t.Fatalf("KeepAlive %v: a waiting player's keep-alive must come at least twice per idle timeout (%v)", lobby.KeepAlive, DefaultIdleTimeout)
	}
	old := lobby.KeepAlive
	lobby.KeepAlive = 20 * time.Millisecond
	defer func() { lobby.KeepAlive = old }()
	srv, addr := startServer(t, ServerConfig{Starter: newFakeStarter()})
	nc, err := (&net.Dialer{Timeout: waitTime}).DialContext(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	cc := &countingConn{Conn: nc}
	c := lobby.NewClient(cc)
	t.Cleanup(func() { c.Close() })
	if _, err := c.Authenticate("waiter"); err != nil {
		t.Fatal(err)
	}
	code, err := c.Join("")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "five keep-alives", func() bool { return cc.lists.Load() >= 5 })
	ls, err := c.Lobbies()
	if err != nil {
		t.Fatalf("connection unusable after the keep-alives: %v", err)
	}
	if len(ls) != 1 || ls[0].Code != code || len(srv.Lobbies()) != 1 {
		t.Fatalf("lobbies %+v, want the waiting lobby %s", ls, code)
	}
}
