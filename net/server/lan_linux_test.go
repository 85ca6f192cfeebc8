package server

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/query"
)

// lanNet is a test network: a server and a client namespace, each with one veth whose other
// end is on a bridge in a third namespace (so the host's own network is never touched).
type lanNet struct {
	srv, cli, br string // namespace names
}

// newLANNet creates the namespaces, or skips the test saying why it cannot. t.Cleanup removes
// them (their links go with them).
func newLANNet(t *testing.T) *lanNet {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("LAN discovery across network namespaces needs root (ip netns add): skipped")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("LAN discovery across network namespaces needs iproute2's ip: skipped")
	}
	tag := fmt.Sprintf("rtq%d", os.Getpid()%100000)
	n := &lanNet{srv: tag + "s", cli: tag + "c", br: tag + "b"}
	ip := func(args ...string) error {
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	for _, ns := range []string{n.srv, n.cli, n.br} {
		if err := ip("netns", "add", ns); err != nil {
			t.Skipf("cannot create network namespaces here (%v): skipped", err)
		}
		t.Cleanup(func() { _ = ip("netns", "del", ns) })
	}
	steps := [][]string{
		{"-n", n.br, "link", "add", "br0", "type", "bridge"},
		{"-n", n.br, "link", "set", "br0", "up"},
	}
	for i, ns := range []string{n.srv, n.cli} {
		addr := fmt.Sprintf("10.77.0.%d/24", i+1)
		steps = append(steps,
			[]string{"-n", n.br, "link", "add", "p" + ns, "type", "veth", "peer", "name", "eth0", "netns", ns},
			[]string{"-n", n.br, "link", "set", "p" + ns, "master", "br0", "up"},
			[]string{"-n", ns, "addr", "add", addr, "brd", "+", "dev", "eth0"},
			[]string{"-n", ns, "link", "set", "eth0", "up"},
			[]string{"-n", ns, "link", "set", "lo", "up"})
	}
	for _, s := range steps {
		if err := ip(s...); err != nil {
			t.Skipf("cannot build the test network (%v): skipped", err)
		}
	}
	return n
}

// runInNS runs fn on an OS thread in network namespace ns and returns once fn has: the sockets
// fn opens belong to ns (and stay there whatever thread uses them later). The thread is never
// reused (its goroutine ends locked, so Go discards it), and it is never the process's main
// thread: /proc/self/net (the UDP tables the kernel-drops metric reads) follows the main thread.
func runInNS(ns string, fn func()) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() == unix.Getpid() {
			// the main thread: keep it (held by this goroutine, so the next one gets another
			// thread) and give it back unchanged
			defer runtime.UnlockOSThread()
			errc <- runInNS(ns, fn)
			return
		}
		// never unlocked from here: the thread dies with the goroutine
		f, err := os.Open("/run/netns/" + ns)
		if err != nil {
			errc <- err
			return
		}
		err = unix.Setns(int(f.Fd()), unix.CLONE_NEWNET)
		f.Close()
		if err != nil {
			errc <- fmt.Errorf("setns %s: %w", ns, err)
			return
		}
		fn()
		errc <- nil
	}()
	return <-errc
}

// inNS runs fn in network namespace ns (runInNS).
func inNS(t *testing.T, ns string, fn func()) {
	t.Helper()
	if err := runInNS(ns, fn); err != nil {
		t.Fatal(err)
	}
}

// A client in another network namespace, on the same bridged link, finds the server by LAN
// discovery (a limited broadcast from its interface, answered from the server's game socket
// bound to every interface), and then pings it with A2S_INFO across the link.
func TestLANDiscoveryAcrossNamespaces(t *testing.T) {
	n := newLANNet(t)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan *instance.Manager, 1)
	errc := make(chan error, 1)
	go func() {
		var err error
		if nerr := runInNS(n.srv, func() {
			err = Run(ctx, Config{Addr: "10.77.0.1:0", UDPHost: "", Stage: "short", Name: "LAN box", Fleet: FleetConfig{DrainTimeout: -1},
				Ready: func(_ net.Addr, m *instance.Manager) { ready <- m }})
		}); nerr != nil {
			err = nerr
		}
		errc <- err
	}()
	var mgr *instance.Manager
	select {
	case mgr = <-ready:
	case err := <-errc:
		cancel()
		t.Fatalf("server: %v", err)
	}
	defer func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("server: %v", err)
		}
	}()
	var found []query.Info
	var derr error
	inNS(t, n.cli, func() {
		dctx, dcancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer dcancel()
		found, derr = query.DiscoverLAN(dctx, []int{mgr.Port()})
	})
	if derr != nil {
		t.Fatal(derr)
	}
	if len(found) != 1 || found[0].Name != "LAN box" || !strings.HasPrefix(found[0].Addr, "10.77.0.1:") {
		t.Fatalf("found %+v, want the server at 10.77.0.1", found)
	}
	var in query.Info
	var perr error
	inNS(t, n.cli, func() {
		pctx, pcancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer pcancel()
		in, _, perr = query.Ping(pctx, netip.AddrPortFrom(netip.MustParseAddr("10.77.0.1"), uint16(mgr.Port())))
	})
	if perr != nil || in.Addr != found[0].Addr {
		t.Fatalf("ping across the link: %+v, %v", in, perr)
	}
}
