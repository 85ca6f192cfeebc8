package lobbyserver

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rtype/rtype/lobby"
)

// waitMsg returns c's next message.
func waitMsg(t *testing.T, c *lobby.Client) lobby.Message {
	t.Helper()
	m, err := c.WaitMessage(waitCtx(t))
	if err != nil {
		t.Fatalf("WaitMessage: %v", err)
	}
	return m
}

// TestChat: two players chat in the lobby and during the game and each sees
// the other's line (commas, '%' and UTF-8 intact); strangers and floods are
// refused.
func TestChat(t *testing.T) {
	st := newFakeStarter()
	_, addr := startServer(t, ServerConfig{Starter: st})
	alice, _ := dialClient(t, addr, "alice")
	bob, _ := dialClient(t, addr, "bob")
	carol, _ := dialClient(t, addr, "carol")
	respErr(t, alice.Chat("anyone?"), 500) // not in a lobby
	code, _ := alice.Join("")
	bob.Join(code)
	if _, err := carol.Join(""); err != nil {
		t.Fatal(err)
	}
	line := "hi bob, ready? 100% ✈"
	if err := alice.Chat(line); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*lobby.Client{alice, bob} {
		if m := waitMsg(t, c); m != (lobby.Message{From: "alice", Text: line}) {
			t.Fatalf("got %+v", m)
		}
	}
	if err := bob.Chat("go!"); err != nil {
		t.Fatal(err)
	}
	if m := waitMsg(t, alice); m != (lobby.Message{From: "bob", Text: "go!"}) {
		t.Fatalf("got %+v", m)
	}
	waitMsg(t, bob)
	// In game: the lobby connection still carries chat.
	if err := alice.Start(); err != nil {
		t.Fatal(err)
	}
	bob.WaitStart(waitCtx(t))
	if err := bob.Chat("in game, behind you"); err != nil {
		t.Fatal(err)
	}
	if m := waitMsg(t, alice); m != (lobby.Message{From: "bob", Text: "in game, behind you"}) {
		t.Fatalf("got %+v", m)
	}
	if ms := carol.Messages(); len(ms) != 0 {
		t.Fatalf("carol, in another lobby, got %v", ms)
	}
	// Rate: ChatBurst lines at once, then 500.
	for i := range ChatBurst + 1 {
		err := alice.Chat("spam")
		if i < ChatBurst-1 && err != nil { // alice already sent one line
			t.Fatalf("line %d: %v", i, err)
		}
		if i == ChatBurst {
			if re := respErr(t, err, 500); re.Reason != "too many chat lines: at most 5 at once, then 1 per second" {
				t.Fatalf("reason %q", re.Reason)
			}
		}
	}
}

// TestBroadcast: a broadcast reaches every connected client, authenticated
// or not, in a lobby or not.
func TestBroadcast(t *testing.T) {
	srv, addr := startServer(t, ServerConfig{})
	a, _ := dialClient(t, addr, "a")
	b, _ := dialClient(t, addr, "b")
	b.Join("")
	r := dialRaw(t, addr)
	r.send("HELLO ;\r\n")
	r.line()
	n, err := srv.Broadcast("Server restarts in 5 minutes, sorry!")
	if err != nil || n != 3 {
		t.Fatalf("Broadcast = %d, %v; want 3 clients", n, err)
	}
	for _, c := range []*lobby.Client{a, b} {
		if m := waitMsg(t, c); m != (lobby.Message{Broadcast: true, Text: "Server restarts in 5 minutes, sorry!"}) {
			t.Fatalf("got %+v", m)
		}
	}
	if got, want := r.line(), "BROADCAST "+srv.core.srv+";Server restarts in 5 minutes, sorry!\r\n"; got != want {
		t.Fatalf("raw got %q, want %q", got, want)
	}
	if _, err := srv.Broadcast(""); err == nil {
		t.Fatal("empty broadcast accepted")
	}
}

// TestEndBeforeCloseAtShutdown: a game that is over when the server shuts
// down still gets its END push before the connection closes (issue 14 #5).
func TestEndBeforeCloseAtShutdown(t *testing.T) {
	for range 20 {
		st := newFakeStarter()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s := NewServer(withStages(ServerConfig{Starter: st, Logger: discardLogger(), ServerUUID: uuid.New()}))
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- s.Serve(ctx, ln) }()
		r := dialRaw(t, ln.Addr().String())
		id := r.auth("a")
		r.send("JOIN_LOBBY " + id + ";\r\nSTART " + id + ";\r\n")
		for range 5 { // 200, MEMBERS, STAGE, 200, START
			r.line()
		}
		st.lastGame(t).end(2) // as Manager.Shutdown does: every game ends, then the lobby stops
		cancel()
		if got := r.line(); got != "END "+s.core.srv+";2\r\n" {
			t.Fatalf("got %q, want END", got)
		}
		r.expectClosed(waitTime)
		select {
		case err := <-errc:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(waitTime):
			t.Fatal("Serve did not return")
		}
	}
}
