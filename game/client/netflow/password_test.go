package netflow

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/lobbyserver"
)

// TestPrivateServerAndLobbyAgainstRealLobby (issue 30): a private server (ServerConfig.Password)
// and a private lobby, played through the real Runner and the scene machine: connecting asks
// for the server's password; a wrong one asks again; the right one reaches the lobbies; joining
// the private lobby by its code asks for its password; a wrong one asks again (the connection
// stays); the right one enters the room.
func TestPrivateServerAndLobbyAgainstRealLobby(t *testing.T) {
	const serverPW, lobbyPW = "hunter2", "s3cret"
	addr, _, _ := startLobbyConfig(t, func(c *lobbyserver.ServerConfig) { c.Password = serverPW })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	owner, err := lobby.Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	if _, err := owner.AuthenticatePrivate("owner", serverPW); err != nil {
		t.Fatal(err)
	}
	code, err := owner.CreatePrivate("", lobbyPW)
	if err != nil {
		t.Fatal(err)
	}

	n := NewRunner(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), "alice", "")
	defer n.Close()
	m := scene.New(addr, scene.Auto{})
	m.Handle(scene.Event{Kind: scene.EvPlay})
	step := func(ev scene.Event, done func() bool) { driveLinks(t, n, m, m.Handle(ev), nil, done) }
	step(scene.Event{Kind: scene.EvSubmitAddr, Addr: addr}, func() bool { return m.Ask != lobby.AskNone })
	if m.Scene != scene.Connect || m.Ask != lobby.AskServer {
		t.Fatalf("a private server: scene %v ask %v error %q, want its password asked", m.Scene, m.Ask, m.Error)
	}
	step(scene.Event{Kind: scene.EvSubmitPassword, Password: "guess"}, func() bool { return m.Ask != lobby.AskNone })
	if m.Ask != lobby.AskServerAgain {
		t.Fatalf("a wrong server password: ask %v error %q, want it asked again", m.Ask, m.Error)
	}
	step(scene.Event{Kind: scene.EvSubmitPassword, Password: serverPW}, func() bool { return m.Scene == scene.Browser && m.Busy == "" })
	for _, l := range m.Lobbies {
		if l.Code == code {
			t.Fatalf("the private lobby %s is listed", code)
		}
	}
	step(scene.Event{Kind: scene.EvJoin, Code: code}, func() bool { return m.Ask != lobby.AskNone })
	if m.Ask != lobby.AskLobby {
		t.Fatalf("a private lobby: ask %v error %q", m.Ask, m.Error)
	}
	step(scene.Event{Kind: scene.EvSubmitPassword, Password: "guess"}, func() bool { return m.Ask != lobby.AskNone })
	if m.Ask != lobby.AskLobbyAgain || m.Scene != scene.Browser {
		t.Fatalf("a wrong lobby password: scene %v ask %v error %q, want it asked again", m.Scene, m.Ask, m.Error)
	}
	step(scene.Event{Kind: scene.EvSubmitPassword, Password: lobbyPW}, func() bool { return m.Scene == scene.Room })
	if m.Code != code {
		t.Fatalf("in the room of %q, want %q", m.Code, code)
	}
}
