package load

import (
	"context"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/rtype/rtype/net/fleet"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/server"
)

// The lobby-capacity mode against a real -role lobby fronting three fake hosts, all on
// loopback: every connection is held to the end, from two source addresses, past the lobby's
// default per-address limit; the keep-alives are answered at their rate; the lobbies start
// game after game on the fake hosts; the lobby's CPU and RSS are read.
func TestRunIdleAgainstLobby(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time")
	}
	secret := []byte("idle-test-control-secret")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hostsc := make(chan []string, 1)
	hostsDone := make(chan error, 1)
	go func() {
		hostsDone <- FakeHosts(ctx, FakeHostsConfig{Hosts: 3, Secret: secret, GameLength: 500 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)},
			func(h []string) { hostsc <- h })
	}()
	hosts := <-hostsc
	addr := make(chan string, 1)
	remote := make(chan *fleet.Remote, 1)
	done := make(chan error, 1)
	go func() {
		done <- server.Run(ctx, server.Config{Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), DB: "off",
			MaxConnsPerAddr: 100, MaxLobbiesPerAddr: 10,
			Fleet: server.FleetConfig{Role: server.RoleLobby, Secret: secret, Hosts: hosts, OnRemote: func(r *fleet.Remote) { remote <- r }},
			Ready: func(a net.Addr, _ *instance.Manager) { addr <- a.String() }})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("lobby: %v", err)
		}
		if err := <-hostsDone; err != nil {
			t.Errorf("fake hosts: %v", err)
		}
	}()
	r := <-remote
	lobbyAddr := <-addr
	for deadline := time.Now().Add(10 * time.Second); r.Up() < 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the lobby did not connect its fake hosts")
		}
	}
	const conns = 60 // over two addresses: 30 each, past the default 16 per address
	rep, err := RunIdle(ctx, IdleConfig{Server: lobbyAddr, Conns: conns, Source: netip.MustParseAddr("127.0.0.1"), Addrs: 2,
		KeepAlive: 200 * time.Millisecond, Window: 3 * time.Second, Settle: -1, Lobbies: 3, Players: 2, ServerPID: os.Getpid(),
		Logger: slog.New(slog.DiscardHandler)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Held != conns || rep.Dropped != 0 || rep.StartFailures != 0 {
		t.Fatalf("held %d of %d, dropped %d, start failures %d (%v)", rep.Held, conns, rep.Dropped, rep.StartFailures, rep.Errors)
	}
	idle := float64(conns - 3*2)
	// a rate on the wall clock: at most the nominal one, at least a tenth of it (a busy machine
	// answers fewer); the window (3 s) holds several games of 0.5 s even then (shorter games would
	// cycle past the lobby's command rate)
	if want := idle / 0.2; rep.KeepAlivesPerSec < want/10 || rep.KeepAlivesPerSec > want*1.3 {
		t.Errorf("%.0f keep-alives answered per second, want at most about %.0f (%v idle connections every 200 ms)", rep.KeepAlivesPerSec, want, idle)
	}
	if rep.Starts < 3 || rep.StartP50 <= 0 || rep.StartP99 < rep.StartP50 {
		t.Errorf("%d starts in the window (p50 %.2f ms, p99 %.2f ms), want the three lobbies cycling", rep.Starts, rep.StartP50, rep.StartP99)
	}
	if rep.RSSBaseMB <= 0 || rep.RSSHeldMB <= 0 {
		t.Errorf("RSS base %.1f MB, held %.1f MB: not read", rep.RSSBaseMB, rep.RSSHeldMB)
	}
}
