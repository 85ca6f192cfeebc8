package instance

import (
	"log/slog"
	"net/netip"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/transport"
	"github.com/rtype/rtype/net/wire"
)

// recordSocket is a game socket that keeps the destinations of what it sends.
type recordSocket struct {
	discardSocket
	to *[]netip.AddrPort
}

func (s recordSocket) WriteTo(p []byte, to netip.AddrPort) (int, error) {
	*s.to = append(*s.to, to)
	return len(p), nil
}

// A datagram handed to Manager.Receive takes the socket's path (rate limit, token, HERE) as if
// it came from its address; what the game sends to an address Config.Divert takes goes to Divert
// and never to the socket, while the other players' datagrams still go to the socket; the rate
// limit counts the diverted address like any other.
func TestReceiveAndDivert(t *testing.T) {
	stage, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	peer := netip.MustParseAddrPort("0.0.0.1:1")
	var diverted, socket []netip.AddrPort
	m := newManager(Config{Stage: stage, Logger: slog.New(slog.DiscardHandler), RateLimit: 240, RateBurst: 20,
		Divert: func(b []byte, to netip.AddrPort) bool {
			if to != peer {
				return false
			}
			var h wire.Header
			if _, err := wire.Open(b, &h); err != nil {
				t.Errorf("diverted datagram % x: %v", b, err)
			}
			diverted = append(diverted, to)
			return true
		}})
	m.clock = func() time.Duration { return time.Second }
	m.sock = recordSocket{to: &socket}
	ms := members(2)
	if _, err := m.StartGame(handoff.GameSpec{Code: "DIVRT", Members: ms}); err != nil {
		t.Fatal(err)
	}
	m.Receive(hereDatagram(ms[0]), peer)
	if len(diverted) == 0 || len(socket) != 0 {
		t.Fatalf("the answer to a HERE from %s: %d diverted, %d to the socket (%v)", peer, len(diverted), len(socket), socket)
	}
	udp := netip.MustParseAddrPort("127.0.0.1:5000")
	m.Receive(hereDatagram(ms[1]), udp)
	if len(socket) == 0 {
		t.Fatal("the answer to a HERE from a UDP address did not go to the socket")
	}
	for _, to := range socket {
		if to == peer {
			t.Fatalf("a datagram to the diverted address went to the socket")
		}
	}
	var o transport.Outbox
	o.Put(hereDatagram(ms[0]), peer)
	o.Put([]byte("b"), udp)
	m.divert(&o)
	if b, to := o.At(0); o.Len() != 1 || to != udp || string(b) != "b" {
		t.Fatalf("divert left %d datagrams", o.Len())
	}
	before := m.Drops()[DropRate]
	for range 30 {
		m.Receive([]byte("junk"), peer)
	}
	if got := m.Drops()[DropRate] - before; got != 30-(20-1) {
		t.Fatalf("%d of 30 datagrams over the rate from the diverted address dropped, want %d", got, 30-19)
	}
}
