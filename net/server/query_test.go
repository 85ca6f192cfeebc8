package server

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/query"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/wire"
)

// The game socket answers A2S_INFO (through its challenge) with the server's name, default stage,
// lobby port and players, and A2S_PLAYER with the names of the players of a running game; a LAN
// probe to it gets the same info. Real sockets, real time: the one end-to-end path (the
// answers themselves are tested in net/query).
func TestQueryGameSocket(t *testing.T) {
	t.Parallel()
	addr, mgr, stop := startServer(t, Config{Stage: "short", Name: "Query Test", Password: ""})
	defer stop()
	udp := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(mgr.Port()))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	in, rtt, err := query.Ping(ctx, udp)
	if err != nil {
		t.Fatal(err)
	}
	_, lobbyPort, _ := net.SplitHostPort(addr)
	if in.Name != "Query Test" || in.Map != "short" || in.Protocol != wire.Version || in.Addr != net.JoinHostPort("127.0.0.1", lobbyPort) ||
		in.Players != 0 || in.MaxPlayers == 0 || in.Folder != query.Folder || rtt <= 0 {
		t.Fatalf("info %+v rtt %v", in, rtt)
	}
	found, err := query.DiscoverLANTo(withTimeout(t, 2*time.Second), []query.LANTarget{{Addr: udp}})
	if err != nil || len(found) != 1 || found[0].Name != "Query Test" || found[0].Addr != in.Addr {
		t.Fatalf("LAN discovery: %+v, %v", found, err)
	}

	// two bots in a game: A2S_PLAYER names them
	var players []query.Player
	var perr error
	inGame(t, ctx, addr, 2, "qb", func() bool {
		players, perr = query.Players(ctx, udp)
		return perr != nil || len(players) == 2
	})
	if perr != nil {
		t.Fatal(perr)
	}
	names := []string{players[0].Name, players[1].Name}
	slices.Sort(names)
	if names[0] != "qb1" || names[1] != "qb2" {
		t.Fatalf("players %+v, want qb1 and qb2", players)
	}
	in, _, err = query.Ping(ctx, udp)
	if err != nil || in.Players < 0 || in.Lobbies < 0 {
		t.Fatalf("info during the game %+v: %v", in, err)
	}
}

// inGame runs n bots (names prefix1..prefixN) into a game on the server at addr and calls until
// once they play, again until it returns true (or ctx ends: the test fails), then stops them.
func inGame(t *testing.T, ctx context.Context, addr string, n int, prefix string, until func() bool) {
	t.Helper()
	bctx, stopBots := context.WithCancel(ctx)
	var once sync.Once
	done, botsDone := make(chan struct{}), make(chan struct{})
	defer func() { stopBots(); <-botsDone }()
	go func() {
		defer close(botsDone)
		bot.Run(bctx, bot.Config{Server: addr, Players: n, Name: prefix, OnSession: func(int, *session.Session) {
			once.Do(func() {
				go func() {
					defer close(done)
					for ctx.Err() == nil && !until() {
					}
				}()
			})
		}}, nil)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("no game with %d players was seen", n)
	}
}

func withTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
