package netflow

import (
	"context"
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

// specStarter is a game starter that keeps the spec of the game it started (what a host hands
// back to a restarted lobby).
type specStarter struct {
	fakeGame
	mu   sync.Mutex
	spec handoff.GameSpec
}

func (s *specStarter) StartGame(spec handoff.GameSpec) (handoff.Game, error) {
	s.mu.Lock()
	s.spec = spec
	s.mu.Unlock()
	return &s.fakeGame, nil
}

// serveLobby runs a real lobbyserver.Server on ln, with adopt's game taken back before it serves
// (a restarted lobby, docs/DEPLOY.md "Upgrading"); stop ends it and its connections at once.
func serveLobby(t *testing.T, ln net.Listener, st handoff.Starter, adopt *handoff.GameSpec, g handoff.Game) (stop func()) {
	t.Helper()
	cat, err := stagefile.LoadCatalogue(stagefile.Default, game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	srv := lobbyserver.NewServer(lobbyserver.ServerConfig{ServerUUID: uuid.New(), MaxLobbies: 8, IdleTimeout: time.Minute, Starter: st, Stages: cat,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if adopt != nil {
		srv.AdoptGame(*adopt, g)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); srv.Serve(ctx, ln) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); wg.Wait() }) }
	t.Cleanup(stop)
	return stop
}

// TestLobbyRestartMidGameResumes: the player's lobby is killed mid-game and started again on the
// same address, taking the game back from its host; the client, still playing, takes its place
// back by itself (RESUME, tried again while the lobby is down) and is a member of its lobby
// again: the scene stays in the game, the HUD's "reconnecting" notice goes.
func TestLobbyRestartMidGameResumes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	first := &specStarter{fakeGame: fakeGame{done: make(chan struct{})}}
	kill := serveLobby(t, ln, first, nil, nil)

	n := NewRunner(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), "tester", "")
	n.dialSession = func(context.Context, session.Config, *game.Stage) (Link, error) { return NewLocalWorld(), nil }
	defer n.Close()
	m := scene.New(addr, scene.Auto{On: true, Start: true})
	for _, c := range m.Begin() {
		n.Exec(c)
	}
	drive(t, m, n, scene.Playing)
	code := m.Code

	kill() // kill -9 of the lobby: its connections reset, the game plays on at its host
	deadline := time.After(time.Minute)
	for !m.Resuming {
		select {
		case ne := <-n.events:
			n.Accept(ne)
			for _, c := range m.Handle(ne.Ev) {
				n.Exec(c)
			}
		case <-deadline:
			t.Fatal("the client did not notice its lobby was gone")
		}
	}

	ln2, err := net.Listen("tcp", addr) // the lobby started again on the same address
	if err != nil {
		t.Skipf("the lobby's port was taken meanwhile: %v", err)
	}
	first.mu.Lock()
	spec := first.spec
	first.mu.Unlock()
	again := &fakeGame{done: make(chan struct{})}
	serveLobby(t, ln2, again, &spec, again)
	for m.Resuming {
		select {
		case ne := <-n.events:
			n.Accept(ne)
			for _, c := range m.Handle(ne.Ev) {
				n.Exec(c)
			}
		case <-deadline:
			t.Fatalf("no resume within a minute (scene %v, error %q, detail %q)", m.Scene, m.Error, m.Detail)
		}
	}
	if m.Scene != scene.Playing || m.Error != "" {
		t.Fatalf("after the resume: scene %v, error %q", m.Scene, m.Error)
	}
	for end := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if c, names := n.Members(); c == code && len(names) == 1 && names[0] == "tester" {
			break
		}
		if time.Now().After(end) {
			c, names := n.Members()
			t.Fatalf("members of the restarted lobby %q %v, want %s [tester]", c, names, code)
		}
	}
}
