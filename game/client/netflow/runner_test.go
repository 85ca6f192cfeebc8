package netflow

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/lobby/lobbyserver"
	"github.com/rtype/rtype/net/session"
)

type fakeGame struct{ done chan struct{} }

func (g *fakeGame) Port() int                                        { return 4999 }
func (g *fakeGame) Done() <-chan struct{}                            { return g.done }
func (g *fakeGame) Result() uint8                                    { return 2 }
func (g *fakeGame) Drop(id uuid.UUID, left bool)                     {}
func (g *fakeGame) StartGame(handoff.GameSpec) (handoff.Game, error) { return g, nil }

// startLobby runs a real lobbyserver.Server on a free port with a fake game starter.
func startLobby(t *testing.T) string {
	addr, _ := startKillableLobby(t)
	return addr
}

// startKillableLobby is startLobby that also returns kill, which ends the server's connections
// at once (as a killed process's do); the test's cleanup stops it either way.
func startKillableLobby(t *testing.T) (addr string, kill func()) {
	addr, _, kill = startLobbyConfig(t, nil)
	return addr, kill
}

// startLobbyConfig runs a real lobbyserver.Server on a free port whose games are one fakeGame (end them
// with endGames), with edit applied to its config (a hall of fame, say); kill as
// startKillableLobby's.
func startLobbyConfig(t *testing.T, edit func(*lobbyserver.ServerConfig)) (addr string, endGames func(), kill func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &fakeGame{done: make(chan struct{})}
	cat, err := stagefile.LoadCatalogue(stagefile.Default, game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	cfg := lobbyserver.ServerConfig{ServerUUID: uuid.New(), MaxLobbies: 8, IdleTimeout: time.Minute, Starter: g, Stages: cat,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if edit != nil {
		edit(&cfg)
	}
	srv := lobbyserver.NewServer(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); srv.Serve(ctx, ln) }()
	var once sync.Once
	endGames = func() { once.Do(func() { close(g.done) }) }
	t.Cleanup(func() { endGames(); cancel(); wg.Wait() })
	return ln.Addr().String(), endGames, cancel
}

// drive runs the scene machine with the Runner like Update does, until the scene is want.
func drive(t *testing.T, m *scene.Machine, n *Runner, want scene.ID) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for m.Scene != want {
		select {
		case ne := <-n.events:
			n.Accept(ne)
			for _, c := range m.Handle(ne.Ev) {
				n.Exec(c)
			}
		case <-deadline:
			t.Fatalf("stuck in %v (busy %q, error %q) waiting for %v", m.Scene, m.Busy, m.Error, want)
		}
	}
}

func TestAutoFlowAgainstRealLobby(t *testing.T) {
	addr := startLobby(t)
	n := NewRunner(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), "tester", "lat=10ms")
	var dialed session.Config
	n.dialSession = func(ctx context.Context, cfg session.Config, _ *game.Stage) (Link, error) {
		dialed = cfg
		return NewLocalWorld(), nil
	}
	defer n.Close()
	m := scene.New(addr, scene.Auto{On: true, Start: true})
	for _, c := range m.Begin() {
		n.Exec(c)
	}
	drive(t, m, n, scene.Playing)
	if m.Code == "" || len(m.Code) != 5 {
		t.Fatalf("lobby code %q", m.Code)
	}
	if _, port, _ := net.SplitHostPort(dialed.Addr); port != "4999" || dialed.Token == 0 || dialed.Key == ([16]byte{}) || dialed.UUID == uuid.Nil || dialed.NetSim != "lat=10ms" {
		t.Fatalf("session dialled with %+v", dialed)
	}
	if code, names := n.Members(); code != m.Code || len(names) != 1 || names[0] != "tester" {
		t.Fatalf("members %q %v", code, names)
	}
}

func TestManualBrowseCreateAndLeave(t *testing.T) {
	addr := startLobby(t)
	n := NewRunner(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), "", "")
	defer n.Close()
	m := scene.New(addr, scene.Auto{})
	step := func(ev scene.Event) {
		for _, c := range m.Handle(ev) {
			n.Exec(c)
		}
	}
	step(scene.Event{Kind: scene.EvPlay})
	step(scene.Event{Kind: scene.EvSubmitAddr, Addr: addr})
	drive(t, m, n, scene.Browser)
	deadline := time.Now().Add(5 * time.Second)
	for m.Busy != "" && time.Now().Before(deadline) { // the lobby list arrives
		select {
		case ne := <-n.events:
			n.Accept(ne)
			step(ne.Ev)
		case <-time.After(50 * time.Millisecond):
		}
	}
	if m.Busy != "" || m.Error != "" {
		t.Fatalf("browser busy %q error %q", m.Busy, m.Error)
	}
	step(scene.Event{Kind: scene.EvCreate})
	drive(t, m, n, scene.Room)
	code := m.Code
	step(scene.Event{Kind: scene.EvBack}) // LEAVE, then GET_LOBBIES
	deadline = time.Now().Add(5 * time.Second)
	for (m.Busy != "" || len(m.Lobbies) != 0) && time.Now().Before(deadline) {
		select {
		case ne := <-n.events:
			n.Accept(ne)
			step(ne.Ev)
		case <-time.After(50 * time.Millisecond):
		}
	}
	for _, l := range m.Lobbies {
		if l.Code == code && l.Players != 0 {
			t.Fatalf("still in lobby %s after leaving: %+v", code, m.Lobbies)
		}
	}
}

func TestConnectRefusedShowsError(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	n := NewRunner(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), "", "")
	defer n.Close()
	m := scene.New(addr, scene.Auto{})
	m.Handle(scene.Event{Kind: scene.EvPlay})
	for _, c := range m.Handle(scene.Event{Kind: scene.EvSubmitAddr, Addr: addr}) {
		n.Exec(c)
	}
	select {
	case ne := <-n.events:
		m.Handle(ne.Ev)
	case <-time.After(6 * time.Second):
		t.Fatal("no reply to a refused connection")
	}
	if m.Scene != scene.Connect || m.Error != "The server at "+addr+" is not answering. Is it running?" || m.Busy != "" {
		t.Fatalf("scene %v error %q busy %q", m.Scene, m.Error, m.Busy)
	}
}

func TestSessionDialFailureGoesToLost(t *testing.T) {
	addr := startLobby(t)
	n := NewRunner(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), "", "")
	n.dialSession = func(ctx context.Context, cfg session.Config, _ *game.Stage) (Link, error) {
		return nil, errors.New("no WELCOME")
	}
	defer n.Close()
	m := scene.New(addr, scene.Auto{On: true, Start: true})
	for _, c := range m.Begin() {
		n.Exec(c)
	}
	drive(t, m, n, scene.Lost)
	if m.Reason == "" {
		t.Fatal("no reason shown")
	}
}

// TestChatBetweenRunners: two clients in one lobby room see each other's chat lines; a refused
// line comes back in player words.
func TestChatBetweenRunners(t *testing.T) {
	addr := startLobby(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a := NewRunner(context.Background(), log, "alice", "")
	defer a.Close()
	ma := scene.New(addr, scene.Auto{On: true})
	for _, c := range ma.Begin() {
		a.Exec(c)
	}
	drive(t, ma, a, scene.Room)
	b := NewRunner(context.Background(), log, "bob", "")
	defer b.Close()
	mb := scene.New(addr, scene.Auto{On: true, Lobby: ma.Code})
	for _, c := range mb.Begin() {
		b.Exec(c)
	}
	drive(t, mb, b, scene.Room)
	a.Chat("hi bob, 100% ready")
	b.Chat("go!")
	want := map[string]bool{"alice: hi bob, 100% ready": true, "bob: go!": true}
	for _, n := range []*Runner{a, b} {
		got := map[string]bool{}
		for end := time.Now().Add(5 * time.Second); len(got) < 2 && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			for _, m := range n.Messages() {
				got[m.From+": "+m.Text] = true
			}
		}
		for w := range want {
			if !got[w] {
				t.Errorf("%s did not see %q (saw %v)", n.Name(), w, got)
			}
		}
	}
	a.Chat("   ") // refused by the client library: shown as a note
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if ms := a.Messages(); len(ms) > 0 {
			if ms[0].From != "" || ms[0].Text != "Empty text." {
				t.Fatalf("note %+v", ms[0])
			}
			return
		}
	}
	t.Fatal("no note for a refused line")
}
