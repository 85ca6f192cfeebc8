package query

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"testing"
	"time"
)

// serveUDP answers datagrams on a loopback socket with a until the test ends; it returns the
// socket's address.
func serveUDP(t *testing.T, a *Answerer) netip.AddrPort {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { c.Close(); <-done })
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		reply := func(b []byte, to netip.AddrPort) error { _, err := c.WriteToUDPAddrPort(b, to); return err }
		for {
			n, from, err := c.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			a.Answer(buf[:n], from, reply)
		}
	}()
	return c.LocalAddr().(*net.UDPAddr).AddrPort()
}

// Ping, Players and a LAN probe against a real loopback socket: the challenge round trip, the
// lobby address from the queried host and the lobby port, the RTT measured.
func TestClientLoopback(t *testing.T) {
	in := sampleInfo()
	addr := serveUDP(t, NewAnswerer(Source{Info: fixed(in), Players: func() []Player { return goldenPlayers }}, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, rtt, err := Ping(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != in.Name || got.Addr != net.JoinHostPort("127.0.0.1", strconv.Itoa(in.LobbyPort)) || rtt <= 0 {
		t.Fatalf("ping: %+v rtt %v", got, rtt)
	}
	ps, err := Players(ctx, addr)
	if err != nil || len(ps) != 2 || ps[0] != goldenPlayers[0] {
		t.Fatalf("players %+v, %v", ps, err)
	}
	dctx, dcancel := context.WithTimeout(ctx, time.Second)
	defer dcancel()
	found, err := DiscoverLANTo(dctx, []LANTarget{{Addr: addr}, {Addr: addr}})
	if err != nil || len(found) != 1 || found[0].Addr != got.Addr {
		t.Fatalf("LAN: %+v, %v (want the server once)", found, err)
	}
}

// A server that never answers: Ping ends with ErrNoAnswer when its context does.
func TestPingNoAnswer(t *testing.T) {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close() // reads nothing: a silent server
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, _, err := Ping(ctx, c.LocalAddr().(*net.UDPAddr).AddrPort()); !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("err %v, want ErrNoAnswer", err)
	}
}

// A server that answers every request with a new challenge is given up on, not followed forever.
func TestPingEndlessChallenges(t *testing.T) {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer func() { c.Close(); <-done }()
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for v := uint32(1); ; v++ {
			_, from, err := c.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			c.WriteToUDPAddrPort(AppendChallenge(nil, v), from)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, _, err := Ping(ctx, c.LocalAddr().(*net.UDPAddr).AddrPort()); err == nil || errors.Is(err, ErrNoAnswer) || ctx.Err() != nil {
		t.Fatalf("err %v: want Ping to give up on the challenges before its deadline", err)
	}
}
