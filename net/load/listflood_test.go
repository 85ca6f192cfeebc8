package load

import (
	"context"
	"log/slog"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/rtype/rtype/net/serverlist"
)

// TestListFlood: the list flood's fake registrations get the per-address slots and no more, and
// every read it sends is counted as answered (200 or 429).
func TestListFlood(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan net.Addr, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- serverlist.Run(ctx, serverlist.RunConfig{Addr: "127.0.0.1:0", ServerConfig: serverlist.ServerConfig{Logger: slog.New(slog.DiscardHandler)},
			Ready: func(h, _ net.Addr) { ready <- h }})
	}()
	var addr net.Addr
	select {
	case addr = <-ready:
	case err := <-errc:
		t.Fatal(err)
	}
	rep, err := ListFlood(ctx, ListFloodConfig{URL: "http://" + addr.String(), Reads: 200, Fakes: 40, Source: netip.MustParseAddr("127.0.0.1"), Addrs: 1, Duration: 500 * time.Millisecond, Workers: 8})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fakes != 40 || rep.FakesAccepted != serverlist.DefaultMaxPerNetwork {
		t.Errorf("fakes %d, accepted %d, want %d accepted", rep.Fakes, rep.FakesAccepted, serverlist.DefaultMaxPerNetwork)
	}
	if rep.Reads == 0 || rep.Read200+rep.Read429 != rep.Reads || rep.ReadErrors != 0 || rep.Read429 == 0 {
		t.Errorf("reads %+v", rep)
	}
	if rep.Listed != 0 {
		t.Errorf("%d fakes listed", rep.Listed)
	}
}
