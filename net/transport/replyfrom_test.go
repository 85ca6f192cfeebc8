package transport

import (
	"fmt"
	"net/netip"
	"testing"
	"time"
)

// A socket bound to every interface answers each peer from the address the peer sent to, in each
// of its three send paths (WriteTo, and a BatchWriter over the default and the x/net layer,
// reading through the same layer): a client that reached 127.0.0.2 gets its replies from
// 127.0.0.2, one that reached 127.0.0.1 from 127.0.0.1, and over IPv6 one that reached ::1 from
// ::1. Without the control messages the kernel sends them all from 127.0.0.1 (the route's
// preferred source), which a client that knows the server as 127.0.0.2 drops.
func TestRepliesFromArrivalAddress(t *testing.T) {
	cases := []struct{ name, bind, client, server string }{
		{"ipv4 socket, 127.0.0.2", "0.0.0.0:0", "127.0.0.1:0", "127.0.0.2"},
		{"ipv4 socket, 127.0.0.1", "0.0.0.0:0", "127.0.0.1:0", "127.0.0.1"},
		{"dual-stack socket, 127.0.0.2", ":0", "127.0.0.1:0", "127.0.0.2"},
		{"dual-stack socket, 127.0.0.1", ":0", "127.0.0.1:0", "127.0.0.1"},
		{"ipv6 socket, ::1", "[::]:0", "[::1]:0", "::1"},
	}
	for _, c := range cases {
		for _, path := range []string{"WriteTo", "batch default", "batch xnet"} {
			t.Run(c.name+"/"+path, func(t *testing.T) {
				srv, cl := listen(t, c.bind), listen(t, c.client)
				if !srv.RepliesFromArrival() {
					t.Fatal("a socket bound to every interface does not track arrival addresses")
				}
				to := netip.AddrPortFrom(netip.MustParseAddr(c.server), srv.LocalAddr().Port())
				for k := range 3 { // the table keeps following the peer
					msg := fmt.Appendf(nil, "hello %d", k)
					if _, err := cl.WriteTo(msg, to); err != nil {
						t.Skipf("cannot send to %v here: %v", to, err)
					}
					from := serverEcho(t, srv, path, msg)
					if from != cl.LocalAddr() {
						t.Fatalf("the server saw %v, want %v", from, cl.LocalAddr())
					}
					buf := make([]byte, 64)
					_ = cl.SetReadDeadline(time.Now().Add(5 * time.Second))
					n, src, err := cl.ReadFrom(buf)
					if err != nil {
						t.Fatalf("no reply: %v", err)
					}
					if src != to || string(buf[:n]) != string(msg) {
						t.Fatalf("reply %q from %v, want %q from %v (the address the client sent to)", buf[:n], src, msg, to)
					}
				}
			})
		}
	}
}

// serverEcho reads one datagram on srv through path and sends it back to its source through the
// same path; it returns the source.
func serverEcho(t *testing.T, srv *UDPSocket, path string, want []byte) netip.AddrPort {
	t.Helper()
	_ = srv.SetReadDeadline(time.Now().Add(5 * time.Second))
	if path == "WriteTo" {
		buf := make([]byte, 64)
		n, from, err := srv.ReadFrom(buf)
		if err != nil || string(buf[:n]) != string(want) {
			t.Fatalf("server read %q, %v", buf[:n], err)
		}
		if _, err := srv.WriteTo(buf[:n], from); err != nil {
			t.Fatalf("WriteTo: %v", err)
		}
		return from
	}
	bc := batchImpls[path[len("batch "):]](srv)
	bufs := [][]byte{make([]byte, 64)}
	ns, froms := make([]int, 1), make([]netip.AddrPort, 1)
	k, err := bc.io.readBatch(bufs, ns, froms)
	if err != nil || k != 1 || string(bufs[0][:ns[0]]) != string(want) {
		t.Fatalf("server batch read %d %q, %v", k, bufs[0][:ns[0]], err)
	}
	var o Outbox
	o.Put(bufs[0][:ns[0]], froms[0])
	if sent := bc.NewWriter().Flush(&o); sent != 1 {
		t.Fatalf("server batch sent %d", sent)
	}
	return froms[0]
}

// The table of arrival addresses stays within its fixed size however many peers send, keeps the
// latest address of each peer, and forgets the least recently seen peer of a full set first.
func TestLocalTableBounded(t *testing.T) {
	tab := newLocalTable()
	a1, a2 := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.0.2")
	peer := netip.MustParseAddrPort("10.0.0.1:5000")
	tab.note(peer, a1)
	tab.note(peer, a2)
	if got, ok := tab.lookup(peer); !ok || got != a2 {
		t.Fatalf("lookup = %v %v, want the latest address %v", got, ok, a2)
	}
	// a flood of strangers in peer's set: peer, refreshed between them, survives
	set := tab.set(peer)
	for port := uint16(1); port < 60000; port++ {
		p := netip.AddrPortFrom(netip.MustParseAddr("10.9.9.9"), port)
		if tab.set(p) != set {
			continue
		}
		tab.note(p, a1)
		tab.note(peer, a2)
	}
	if got, ok := tab.lookup(peer); !ok || got != a2 {
		t.Fatalf("a peer that keeps sending was evicted by strangers: %v %v", got, ok)
	}
	if _, ok := tab.lookup(netip.MustParseAddrPort("10.0.0.2:1")); ok {
		t.Fatal("lookup of a peer never seen succeeded")
	}
}

// A datagram that came to a multicast group or to the limited broadcast (a LAN discovery probe)
// names no address to reply from: the table keeps what it knew of the peer (the kernel picks the
// source of a reply to a peer it does not know).
func TestLocalTableSkipsBroadcast(t *testing.T) {
	tab := newLocalTable()
	peer := netip.MustParseAddrPort("10.0.0.2:5000")
	for _, a := range []string{"255.255.255.255", "224.0.0.1", "ff02::1"} {
		tab.note(peer, netip.MustParseAddr(a))
		if got, ok := tab.lookup(peer); ok {
			t.Fatalf("after a datagram to %s the peer's replies come from %v", a, got)
		}
	}
	own := netip.MustParseAddr("10.0.0.1")
	tab.note(peer, own)
	tab.note(peer, netip.MustParseAddr("255.255.255.255"))
	if got, ok := tab.lookup(peer); !ok || got != own {
		t.Fatalf("a broadcast replaced the peer's address: %v %v, want %v", got, ok, own)
	}
}

// Noting arrivals and looking up reply addresses allocates nothing (per datagram, on the hot path).
func TestLocalTableDoesNotAllocate(t *testing.T) {
	tab := newLocalTable()
	a := netip.MustParseAddr("127.0.0.2")
	p6 := netip.MustParseAddrPort("[fe80::1%1]:9")
	allocs := testing.AllocsPerRun(1000, func() {
		for port := range uint16(16) {
			p := netip.AddrPortFrom(netip.MustParseAddr("10.0.0.1"), port)
			tab.note(p, a)
			if _, ok := tab.lookup(p); !ok {
				t.Fatal("lost")
			}
		}
		tab.note(p6, a)
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations, want 0", allocs)
	}
}
