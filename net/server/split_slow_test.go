package server

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/fleet"
)

// slowStarter is the game runtime of a host that takes its time: each start waits until gate
// is closed (after telling entered), then fails.
type slowStarter struct {
	entered chan string
	gate    chan struct{}
}

func (s *slowStarter) StartGame(spec handoff.GameSpec) (handoff.Game, error) {
	s.entered <- spec.Code
	<-s.gate
	return nil, errors.New("this host gave up")
}

// startSlowHost serves a control endpoint (fleet.Host) over a slowStarter on 127.0.0.1.
func startSlowHost(t *testing.T, st *slowStarter) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := fleet.NewHost(fleet.HostConfig{Secret: testControlSecret, Starter: st, Capacity: 4, Logger: quietLog()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); h.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// TestSplitSlowHost: a -role lobby does not wait for a host under its lock. While one lobby's
// game waits for a host slow to start it (no timeout to fall back on), another lobby starts on
// the other host and its owner gets START naming that host; the waiting lobby's player chats.
// When the slow host gives up, the lobby's game goes to the other host.
func TestSplitSlowHost(t *testing.T) {
	t.Parallel()
	st := &slowStarter{entered: make(chan string, 4), gate: make(chan struct{})}
	var once sync.Once
	open := func() { once.Do(func() { close(st.gate) }) }
	slow := startSlowHost(t, st)
	t.Cleanup(open) // before the slow host stops
	fast := startSplitHost(t, "127.0.0.6", 4)
	var remote *fleet.Remote
	addr, _, stop := startServerTB(t, Config{Stage: "short", Logger: quietLog(),
		Fleet: FleetConfig{Role: RoleLobby, Secret: testControlSecret, Hosts: []string{slow, fast.control}, StartTimeout: time.Hour,
			OnRemote: func(r *fleet.Remote) { remote = r }}})
	defer stop()
	defer open() // before the lobby stops: it waits for the start in progress
	if !waitFor(10*time.Second, func() bool {
		hs := remote.Hosts()
		return len(hs) == 2 && hs[0].Up && hs[1].Up && hs[0].Load.Capacity > 0 && hs[1].Load.Capacity > 0
	}) {
		t.Fatal("hosts not up")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dial := func(name string) *lobby.Client {
		c, _ := dialLobby(t, ctx, addr, name)
		t.Cleanup(func() { c.Close() })
		return c
	}
	a0, a1, b0 := dial("a0"), dial("a1"), dial("b0")
	code, err := a0.Create("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a1.Join(code); err != nil {
		t.Fatal(err)
	}
	started := make(chan error, 1)
	go func() { started <- a0.Start() }()
	select {
	case c := <-st.entered:
		if c != code {
			t.Fatalf("the slow host got lobby %s, want %s", c, code)
		}
	case err := <-started:
		t.Fatalf("the first START did not go to the first host: %v", err)
	}

	if _, err := b0.Create(""); err != nil {
		t.Fatal(err)
	}
	if err := b0.Start(); err != nil {
		t.Fatalf("another lobby's START while one waits for its host: %v", err)
	}
	si, err := b0.WaitStart(ctx)
	if err != nil || si.Host != "127.0.0.6" {
		t.Fatalf("the other lobby's START push: %+v, %v; want the other host, 127.0.0.6", si, err)
	}
	if err := a1.Chat("waiting for our host"); err != nil {
		t.Fatalf("CHAT in the starting lobby: %v", err)
	}
	select {
	case err := <-started:
		t.Fatalf("the slow START was answered while its host still held it: %v", err)
	default:
	}

	open()
	if err := <-started; err != nil {
		t.Fatalf("the slow START, once its host gave up: %v", err)
	}
	for _, c := range []*lobby.Client{a0, a1} {
		si, err := c.WaitStart(ctx)
		if err != nil || si.Host != "127.0.0.6" {
			t.Fatalf("START push after the slow host gave up: %+v, %v; want the other host", si, err)
		}
	}
}
