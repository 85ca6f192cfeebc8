package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/fleet"
)

// slowRejoinGame is a game on a host slow to answer rejoins: each Rejoin tells entered, then
// waits until gate is closed.
type slowRejoinGame struct {
	entered chan uuid.UUID
	gate    chan struct{}
	done    chan struct{}
}

func (g *slowRejoinGame) Port() int                     { return 40000 }
func (g *slowRejoinGame) Done() <-chan struct{}         { return g.done }
func (g *slowRejoinGame) Result() uint8                 { return 2 }
func (g *slowRejoinGame) Drop(uuid.UUID, bool)          {}
func (g *slowRejoinGame) Spectate(handoff.Member) error { return errors.New("no spectators") }
func (g *slowRejoinGame) Rejoin(m handoff.Member) error {
	g.entered <- m.UUID
	<-g.gate
	return nil
}

type slowRejoinStarter struct{ g *slowRejoinGame }

func (s slowRejoinStarter) StartGame(handoff.GameSpec) (handoff.Game, error) { return s.g, nil }

// TestSplitSlowRejoin: a -role lobby does not wait for a host's answer to a REJOIN under its
// lock: while one player's rejoin waits for a host slow to answer (no timeout to fall back on),
// another lobby is created and listed and the rejoining lobby's owner chats; once the host
// answers, the rejoiner gets its START.
func TestSplitSlowRejoin(t *testing.T) {
	t.Parallel()
	g := &slowRejoinGame{entered: make(chan uuid.UUID, 1), gate: make(chan struct{}), done: make(chan struct{})}
	var once sync.Once
	open := func() { once.Do(func() { close(g.gate) }) }
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := fleet.NewHost(fleet.HostConfig{Secret: testControlSecret, Starter: slowRejoinStarter{g}, Capacity: 4, Logger: quietLog()})
	hctx, hcancel := context.WithCancel(context.Background())
	hdone := make(chan struct{})
	go func() { defer close(hdone); h.Serve(hctx, ln) }()
	t.Cleanup(func() { close(g.done); hcancel(); <-hdone })
	t.Cleanup(open) // before the host stops
	var remote *fleet.Remote
	addr, _, stop := startServerTB(t, Config{Stage: "short", Logger: quietLog(),
		Fleet: FleetConfig{Role: RoleLobby, Secret: testControlSecret, Hosts: []string{ln.Addr().String()}, StartTimeout: time.Hour,
			OnRemote: func(r *fleet.Remote) { remote = r }}})
	defer stop()
	defer open() // before the lobby stops: it waits for the call in progress
	if !waitFor(10*time.Second, func() bool {
		hs := remote.Hosts()
		return len(hs) == 1 && hs[0].Up && hs[0].Load.Capacity > 0
	}) {
		t.Fatal("host not up")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dial := func(name string) *lobby.Client {
		c, _ := dialLobby(t, ctx, addr, name)
		t.Cleanup(func() { c.Close() })
		return c
	}
	a0, a1 := dial("a0"), dial("a1")
	code, err := a0.Create("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a1.Join(code); err != nil {
		t.Fatal(err)
	}
	if err := a0.Start(); err != nil {
		t.Fatal(err)
	}
	si, err := a1.WaitStart(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a1.Close() // its game session is lost: slot 1 waits for a rejoin
	if !waitFor(10*time.Second, func() bool {
		_, names := a0.Members()
		return len(names) == 1
	}) {
		t.Fatal("the lobby did not see a1 go")
	}

	back := dial("a1")
	rejoined := make(chan error, 1)
	go func() { rejoined <- back.Rejoin(code, 1, si.Key) }()
	select {
	case <-g.entered:
	case err := <-rejoined:
		t.Fatalf("REJOIN answered before the host got it: %v", err)
	}

	// The other commands, bounded so that a lobby waiting under its lock fails the test
	// rather than hanging it.
	others := make(chan error, 1)
	go func() {
		b0, err := lobby.Dial(ctx, addr)
		if err != nil {
			others <- err
			return
		}
		t.Cleanup(func() { b0.Close() })
		if _, err := b0.Authenticate("b0"); err != nil {
			others <- err
			return
		}
		if _, err := b0.Create(""); err != nil {
			others <- fmt.Errorf("another lobby while a rejoin waits for its host: %w", err)
			return
		}
		if ls, err := b0.Lobbies(); err != nil || len(ls) != 2 {
			others <- fmt.Errorf("GET_LOBBIES while a rejoin waits: %+v, %v (want 2 lobbies)", ls, err)
			return
		}
		if err := a0.Chat("come back"); err != nil {
			others <- fmt.Errorf("CHAT in the rejoining lobby: %w", err)
			return
		}
		others <- nil
	}()
	select {
	case err := <-others:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the lobby's other commands waited for the host's answer to a REJOIN")
	}
	select {
	case err := <-rejoined:
		t.Fatalf("the REJOIN was answered while its host still held it: %v", err)
	default:
	}

	open()
	if err := <-rejoined; err != nil {
		t.Fatalf("REJOIN once the host answered: %v", err)
	}
	rs, err := back.WaitStart(ctx)
	if err != nil || rs.Port != 40000 || rs.Key == si.Key {
		t.Fatalf("START after the rejoin: %+v, %v", rs, err)
	}
}
