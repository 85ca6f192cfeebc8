package netflow

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/server"
	"github.com/rtype/rtype/net/session"
)

// TestServerShutdownReachesThePlayer (issue 30, item 4): a real server (net/server.Run, as
// rtype-server runs it) with a player in a game; the operator broadcasts, then the server gets
// its SIGTERM (the end of Run's context, what rtype-server's first stop signal does). The game
// plays on to the end of the drain, then the player's results say the server is shutting down,
// with the operator's words; Enter leads to the title, whose Play reaches the Connect screen
// and says the server is not answering (not a lobby that is gone, not "closed the connection.
// EOF").
func TestServerShutdownReachesThePlayer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	const token, words = "test-admin-token", "Restarting for the v5 update, back in 10 minutes"
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, sigterm := context.WithCancel(context.Background())
	defer sigterm()
	ready, admin := make(chan string, 1), make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- server.Run(ctx, server.Config{Addr: "127.0.0.1:0", UDPHost: "127.0.0.1", Stage: "short", Logger: quiet,
			AdminAddr: "127.0.0.1:0", AdminToken: token, Fleet: server.FleetConfig{DrainTimeout: 2 * time.Second},
			Ready: func(a net.Addr, _ *instance.Manager) { ready <- a.String() }, OnAdmin: func(a net.Addr) { admin <- a.String() }})
	}()
	var addr, adminAddr string
	for addr == "" || adminAddr == "" {
		select {
		case addr = <-ready:
		case adminAddr = <-admin:
		case err := <-errc:
			t.Fatalf("server: %v", err)
		case <-time.After(30 * time.Second):
			t.Fatal("the server did not come up")
		}
	}
	stopped := false
	defer func() {
		if !stopped {
			sigterm()
			<-errc
		}
	}()

	n := NewRunner(context.Background(), quiet, "alice", "")
	defer n.Close()
	m := scene.New(addr, scene.Auto{On: true, Start: true, ResultsTicks: 1 << 30}) // the results wait for Enter
	l := driveLinks(t, n, m, m.Begin(), nil, func() bool { return m.Scene == scene.Playing })
	if l == nil {
		t.Fatal("playing with no session")
	}

	req, _ := http.NewRequest(http.MethodPost, "http://"+adminAddr+"/broadcast", strings.NewReader(words))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /broadcast: %s", resp.Status)
	}
	// the broadcast reached the player before the signal (it is what the CLOSING push quotes)
	for deadline := time.Now().Add(30 * time.Second); !heardBroadcast(n, words); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the broadcast did not reach the player")
		}
	}
	sigterm()

	// the app's loop: lobby replies to the scene machine, the session's events too
	deadline := time.After(60 * time.Second) // the drain is 2 s: a stuck shutdown, not a speed
	for m.Scene == scene.Playing {
		select {
		case r := <-n.Events():
			n.Accept(r)
			for _, c := range m.Handle(r.Ev) {
				n.Exec(c)
			}
		case ev := <-l.Events():
			switch ev.Kind {
			case session.EventGameEnd:
				for _, c := range m.Handle(scene.Event{Kind: scene.EvGameEnd, Result: uint8(ev.Result)}) {
					n.Exec(c)
				}
			case session.EventDisconnected:
				for _, c := range m.Handle(scene.Event{Kind: scene.EvDisconnected, Reason: ev.Reason}) {
					n.Exec(c)
				}
			}
		case <-deadline:
			t.Fatalf("still playing 60 s after the SIGTERM (busy %q reason %q)", m.Busy, m.Reason)
		}
	}
	if m.Scene != scene.Results || m.Result != uint8(rules.ResultAborted) {
		t.Fatalf("after the drain: scene %v result %d reason %q, want the results of the aborted game", m.Scene, m.Result, m.Reason)
	}
	if !strings.Contains(m.Reason, "shutting down") || !strings.Contains(m.Reason, words) {
		t.Fatalf("the results say %q, want the server shutting down and the operator's words", m.Reason)
	}
	t.Logf("the results say: %s", m.Reason)
	select {
	case err := <-errc:
		stopped = true
		if err != nil {
			t.Errorf("server shutdown: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the server did not stop after its drain")
	}

	// Enter (once the results' guard is over): the title; Play: the server browser, whose Direct
	// connect is the Connect screen, which says the server does not answer
	for i := 0; i < scene.ResultsGuardTicks; i++ {
		m.Handle(scene.Event{Kind: scene.EvTick})
	}
	for _, c := range m.Handle(scene.Event{Kind: scene.EvContinue}) {
		n.Exec(c)
	}
	if m.Scene != scene.Title {
		t.Fatalf("Enter on the results: scene %v, want the title", m.Scene)
	}
	m.Handle(scene.Event{Kind: scene.EvPlay})
	if m.Scene != scene.Servers {
		t.Fatalf("Play: scene %v, want the server browser", m.Scene)
	}
	if m.Handle(scene.Event{Kind: scene.EvDirectConnect}); m.Scene != scene.Connect {
		t.Fatalf("Direct connect: scene %v, want Connect", m.Scene)
	}
	cmds := m.Handle(scene.Event{Kind: scene.EvSubmitAddr, Addr: addr})
	driveLinks(t, n, m, cmds, nil, func() bool { return m.Busy == "" })
	// (the keyless flow this test plays by says it on the Lost screen, a player's on Connect)
	if said := m.Error + m.Reason; !strings.Contains(said, "not answering") {
		t.Fatalf("connecting to the stopped server: scene %v error %q reason %q, want it said the server is not answering", m.Scene, m.Error, m.Reason)
	}
}

// heardBroadcast reports whether the runner has received the operator's broadcast text.
func heardBroadcast(n *Runner, text string) bool {
	for _, msg := range n.Messages() {
		if msg.Broadcast && msg.Text == text {
			return true
		}
	}
	return false
}
