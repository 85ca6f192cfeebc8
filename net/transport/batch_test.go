package transport

import (
	"encoding/binary"
	"net/netip"
	"sync"
	"testing"
	"time"
)

// batchImpls are the system-call layers a BatchConn can use: the platform's default (raw
// recvmmsg/sendmmsg on Linux) and the portable golang.org/x/net one (used where the default is
// not available), so that both are tested here.
var batchImpls = map[string]func(s *UDPSocket) *BatchConn{
	"default": NewBatchConn,
	"xnet":    func(s *UDPSocket) *BatchConn { return &BatchConn{s: s, io: newXnetBatch(s)} },
}

func listen(t *testing.T, addr string) *UDPSocket {
	t.Helper()
	s, err := ListenUDP(addr)
	if err != nil {
		t.Skipf("cannot listen on %s here: %v", addr, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A BatchWriter sends a whole Outbox (more than one batch) and a BatchConn's ReadLoop reads every
// datagram with its source, in order, over loopback: IPv4, IPv6, and an IPv4 peer of a dual-stack
// socket (its address is seen unmapped, and a reply to it arrives).
func TestBatchRoundTrip(t *testing.T) {
	cases := []struct{ name, from, to string }{
		{"ipv4", "127.0.0.1:0", "127.0.0.1:0"},
		{"ipv6", "[::1]:0", "[::1]:0"},
		{"ipv4 to dual-stack", "127.0.0.1:0", ":0"},
	}
	for impl, newConn := range batchImpls {
		for _, c := range cases {
			t.Run(impl+"/"+c.name, func(t *testing.T) {
				a, b := listen(t, c.from), listen(t, c.to)
				dst := b.LocalAddr()
				if !dst.Addr().IsLoopback() { // the dual-stack socket listens on every address
					dst = netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), dst.Port())
				}
				const n = 3*BatchSize + 5
				roundTrip(t, newConn, a, b, dst, n)
				// and back: the receiver answers the source it saw
				roundTrip(t, newConn, b, a, a.LocalAddr(), 7)
			})
		}
	}
}

// roundTrip sends n numbered datagrams from a to dst (b's address) with a BatchWriter and reads
// them on b with ReadLoop: all arrive, in order, intact, from a's address.
func roundTrip(t *testing.T, newConn func(*UDPSocket) *BatchConn, a, b *UDPSocket, dst netip.AddrPort, n int) {
	t.Helper()
	var o Outbox
	for k := range n {
		p := make([]byte, 8+k%40)
		binary.LittleEndian.PutUint32(p, uint32(k))
		o.Put(p, dst)
	}
	if sent := newConn(a).NewWriter().Flush(&o); sent != n || o.Len() != 0 {
		t.Fatalf("sent %d of %d, outbox left %d", sent, n, o.Len())
	}
	want := a.LocalAddr()
	if !want.Addr().IsLoopback() {
		want = netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), want.Port())
	}
	var got []uint32
	readDatagrams(newConn(b), n, func(p []byte, from netip.AddrPort) {
		if from != want {
			t.Errorf("from %v, want %v", from, want)
		}
		k := binary.LittleEndian.Uint32(p)
		if len(p) != 8+int(k)%40 {
			t.Errorf("datagram %d: %d bytes", k, len(p))
		}
		got = append(got, k)
	})
	if len(got) != n {
		t.Fatalf("read %d of %d datagrams", len(got), n)
	}
	for i, k := range got {
		if k != uint32(i) {
			t.Fatalf("datagram %d is #%d (out of order)", i, k)
		}
	}
}

// A datagram the system refuses (an IPv6 peer of an IPv4 socket) is skipped; the rest go out.
func TestBatchSkipsRefused(t *testing.T) {
	for impl, newConn := range batchImpls {
		t.Run(impl, func(t *testing.T) {
			a, b := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
			var o Outbox
			o.Put([]byte("one"), b.LocalAddr())
			o.Put([]byte("bad"), netip.MustParseAddrPort("[2001:db8::1]:9"))
			o.Put([]byte("two"), b.LocalAddr())
			if sent := newConn(a).NewWriter().Flush(&o); sent != 2 {
				t.Fatalf("sent %d, want 2", sent)
			}
			var buf [16]byte
			for _, want := range []string{"one", "two"} {
				_ = b.SetReadDeadline(time.Now().Add(2 * time.Second))
				n, _, err := b.ReadFrom(buf[:])
				if err != nil || string(buf[:n]) != want {
					t.Fatalf("read %q, %v; want %q", buf[:n], err, want)
				}
			}
		})
	}
}

// A datagram longer than a batch's buffer is read cut to the buffer (the wire's checks then drop
// it), and the datagrams after it are read whole.
func TestBatchReadsOversizedDatagramCut(t *testing.T) {
	for impl, newConn := range batchImpls {
		t.Run(impl, func(t *testing.T) {
			a, b := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
			if _, err := a.WriteTo(make([]byte, maxDatagram+1000), b.LocalAddr()); err != nil {
				t.Fatal(err)
			}
			if _, err := a.WriteTo([]byte("next"), b.LocalAddr()); err != nil {
				t.Fatal(err)
			}
			var lens []int
			readDatagrams(newConn(b), 2, func(p []byte, _ netip.AddrPort) { lens = append(lens, len(p)) })
			if len(lens) != 2 || lens[0] != maxDatagram || lens[1] != 4 {
				t.Fatalf("read lengths %v, want [%d 4]", lens, maxDatagram)
			}
		})
	}
}

// readDatagrams runs c's ReadLoop until handle has seen n datagrams, or for at most 5 s.
func readDatagrams(c *BatchConn, n int, handle func(p []byte, from netip.AddrPort)) {
	quit := make(chan struct{})
	var stop sync.Once
	done := make(chan struct{})
	seen := 0
	go func() {
		defer close(done)
		c.ReadLoop(quit, func(p []byte, from netip.AddrPort) {
			if seen == n {
				return
			}
			handle(p, from)
			if seen++; seen == n {
				stop.Do(func() { close(quit) })
			}
		})
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		stop.Do(func() { close(quit) })
		<-done
	}
}
