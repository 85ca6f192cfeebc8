package server

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/session"
)

// welcomeAll runs n bots against the lobby at addr until every one is in the game (WELCOME
// received, the first snapshot data in), then stops them; it fails the test when one is not.
func welcomeAll(t *testing.T, addr string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var in atomic.Int32
	res, _ := bot.Run(ctx, bot.Config{Server: addr, Players: n, Stage: "short", OnSession: func(i int, s *session.Session) {
		if in.Add(1) == int32(n) {
			cancel() // every bot is in: enough
		}
	}}, nil)
	if int(in.Load()) != n {
		t.Fatalf("%d of %d bots got WELCOME; results %+v", in.Load(), n, res)
	}
}

// With the game socket bound to every interface (the default -addr :4242), players who reach the
// server at its second address (127.0.0.2, as a floating IP or a second IPv6 address would be)
// get its replies from that address, so they are welcomed and play: replies from the kernel's
// preferred address (127.0.0.1) are dropped by the client.
func TestGameOnSecondAddressOfAllInterfaces(t *testing.T) {
	t.Parallel()
	addr, _, stop := startServer(t, Config{Addr: "127.0.0.2:0", UDPHost: "0.0.0.0"})
	defer stop()
	welcomeAll(t, addr, 2)
}

// A server on ::1 (lobby and game socket) welcomes bots that reach it over IPv6: the client binds
// a socket of the server's address family.
func TestGameOverIPv6(t *testing.T) {
	t.Parallel()
	if ln, err := net.Listen("tcp", "[::1]:0"); err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	} else {
		ln.Close()
	}
	addr, _, stop := startServer(t, Config{Addr: "[::1]:0", UDPHost: "::1"})
	defer stop()
	welcomeAll(t, addr, 2)
}

// A client that cannot get a WELCOME (nothing answers on the game port) gets an error that names
// the UDP address and port and a likely firewall, within WelcomeTimeout.
func TestNoWelcomeNamesUDPPort(t *testing.T) {
	t.Parallel()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0") // reads HERE, never answers
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	// The caller's deadline (the desktop client's 10 s) runs out before WelcomeTimeout: the error
	// still names the UDP port (it said only "deadline exceeded", shown as "did not answer in time").
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = session.Dial(ctx, session.Config{Addr: pc.LocalAddr().String(), Token: 7})
	var nw *session.NoWelcomeError
	if !errors.Is(err, session.ErrNoWelcome) || !errors.As(err, &nw) {
		t.Fatalf("Dial = %v, want a NoWelcomeError", err)
	}
	port := netip.MustParseAddrPort(pc.LocalAddr().String()).Port()
	if nw.Server.Port() != port {
		t.Fatalf("error names %v, want port %d", nw.Server, port)
	}
	for _, want := range []string{"UDP port", "firewall"} {
		if !contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// -public-udp: behind a port forward (Docker's -p 5001:4242/udp, a NAT), START hands out the
// public port, the players send there, and the forward carries the game both ways.
func TestPublicUDPPortInStart(t *testing.T) {
	t.Parallel()
	fw := newForward(t)
	addr, mgr, stop := startServer(t, Config{PublicUDP: net.JoinHostPort("", fw.port()), UDPPort: 0})
	defer stop()
	fw.to.Store(&net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: mgr.Port()})
	if mgr.PublicPort() == mgr.Port() {
		t.Fatalf("public port %d equals the bound one", mgr.PublicPort())
	}
	welcomeAll(t, addr, 2)
	if in, out := fw.in.Load(), fw.out.Load(); in == 0 || out == 0 {
		t.Fatalf("the forward carried %d datagrams in and %d out: START did not hand out the public port", in, out)
	}
}

func TestParsePublicUDP(t *testing.T) {
	for s, want := range map[string]int{"": 0, "5001": 5001, ":5001": 5001, "[]:5001": 5001} {
		if got, err := ParsePublicUDP(s); err != nil || got != want {
			t.Errorf("ParsePublicUDP(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"0", "70000", "x", "203.0.113.1:5001", ":"} {
		if _, err := ParsePublicUDP(s); err == nil {
			t.Errorf("ParsePublicUDP(%q) accepted", s)
		}
	}
}

// forward is a UDP port forward on 127.0.0.1 (what Docker's -p or a NAT does): datagrams to its
// port go to `to` from one upstream socket per client, and the answers come back.
type forward struct {
	pc      net.PacketConn
	to      atomic.Pointer[net.UDPAddr]
	in, out atomic.Int64
	mu      sync.Mutex
	up      map[string]net.PacketConn
	wg      sync.WaitGroup
}

func newForward(t *testing.T) *forward {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &forward{pc: pc, up: map[string]net.PacketConn{}}
	f.wg.Add(1)
	go f.run()
	t.Cleanup(func() {
		pc.Close()
		f.mu.Lock()
		for _, u := range f.up {
			u.Close()
		}
		f.mu.Unlock()
		f.wg.Wait()
	})
	return f
}

func (f *forward) port() string {
	_, p, _ := net.SplitHostPort(f.pc.LocalAddr().String())
	return p
}

func (f *forward) run() {
	defer f.wg.Done()
	buf := make([]byte, 2048)
	for {
		n, from, err := f.pc.ReadFrom(buf)
		if err != nil {
			return
		}
		to := f.to.Load()
		if to == nil {
			continue
		}
		f.mu.Lock()
		u, ok := f.up[from.String()]
		if !ok {
			if u, err = net.ListenPacket("udp", "127.0.0.1:0"); err != nil {
				f.mu.Unlock()
				continue
			}
			f.up[from.String()] = u
			f.wg.Add(1)
			go func() { // answers from the server go back to the client
				defer f.wg.Done()
				b := make([]byte, 2048)
				for {
					n, _, err := u.ReadFrom(b)
					if err != nil {
						return
					}
					f.out.Add(1)
					_, _ = f.pc.WriteTo(b[:n], from)
				}
			}()
		}
		f.mu.Unlock()
		f.in.Add(1)
		_, _ = u.WriteTo(buf[:n], to)
	}
}
