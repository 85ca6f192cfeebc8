package linksim

import (
	"encoding/binary"
	"errors"
	"math"
	"net"
	"net/netip"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rtype/rtype/net/transport"
)

// Every test must leave no goroutine behind (Link.Close stops its three goroutines).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestParse(t *testing.T) {
	for _, c := range []struct {
		spec string
		want Config
	}{
		{"", Config{}},
		{"   ", Config{}},
		{"lat=75ms,jitter=10ms,loss=5%,dup=1%", Config{Latency: 75 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05, Dup: 0.01}},
		{"latency=1s,reorder=2%,bw=1mbps,seed=7", Config{Latency: time.Second, Reorder: 0.02, Bandwidth: 1_000_000, Seed: 7}},
		{"loss=0.25,dup=0,reorder=100%", Config{Loss: 0.25, Reorder: 1}},
		{"loss=0%,dup=1", Config{Dup: 1}},
		{"bw=64kbps", Config{Bandwidth: 64_000}},
		{"bandwidth=64KBPS", Config{Bandwidth: 64_000}},
		{"bw=1.5mbps", Config{Bandwidth: 1_500_000}},
		{"bw=9600bps", Config{Bandwidth: 9600}},
		{"bw=500000", Config{Bandwidth: 500_000}},
		{" lat=20ms , loss=10% ", Config{Latency: 20 * time.Millisecond, Loss: 0.1}},
		{"jitter=500us", Config{Jitter: 500 * time.Microsecond}},
		{"seed=18446744073709551615", Config{Seed: math.MaxUint64}},
	} {
		got, err := Parse(c.spec)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.spec, err)
			continue
		}
		if !near(got, c.want) {
			t.Errorf("Parse(%q) = %+v, want %+v", c.spec, got, c.want)
		}
	}
	for _, spec := range []string{
		"lat",            // not key=value
		"lat=75",         // no unit
		"lat=abc",        //
		"lat=-5ms",       // negative
		"jitter=-1ms",    //
		"loss=150%",      // not a probability
		"loss=-1%",       //
		"loss=1.5",       //
		"loss=NaN",       //
		"dup=abc%",       //
		"reorder=2x",     //
		"bw=-1kbps",      // negative
		"bw=fast",        //
		"bw=NaN",         //
		"bw=Inf",         //
		"bw=1e300mbps",   // overflows int
		"seed=-1",        //
		"seed=1.5",       //
		"speed=10ms",     // unknown key
		"lat=10ms,,",     // empty item
		"lat=10ms,lossy", //
	} {
		if c, err := Parse(spec); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", spec, c)
		}
	}
}

func near(a, b Config) bool {
	eq := func(x, y float64) bool { return math.Abs(x-y) < 1e-12 }
	return a.Latency == b.Latency && a.Jitter == b.Jitter && eq(a.Loss, b.Loss) && eq(a.Dup, b.Dup) &&
		eq(a.Reorder, b.Reorder) && a.Bandwidth == b.Bandwidth && a.Seed == b.Seed
}

func TestIsZero(t *testing.T) {
	if !(Config{}).IsZero() || !(Config{Seed: 9}).IsZero() {
		t.Fatal("a config without impairment is not zero")
	}
	for _, c := range []Config{{Latency: 1}, {Jitter: 1}, {Loss: 0.1}, {Dup: 0.1}, {Reorder: 0.1}, {Bandwidth: 1}} {
		if c.IsZero() {
			t.Errorf("%+v reported zero", c)
		}
	}
}

// --- helpers over real loopback sockets ---

func listen(t *testing.T) *transport.UDPSocket {
	t.Helper()
	s, err := transport.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// wrapLoopback wraps a fresh loopback socket; the link is closed at cleanup.
func wrapLoopback(t *testing.T, out, in Config) *Link {
	t.Helper()
	l := Wrap(listen(t), out, in)
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// rawLoopback is an unimpaired loopback socket, closed at cleanup.
func rawLoopback(t *testing.T) *transport.UDPSocket {
	t.Helper()
	s := listen(t)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

type arrival struct {
	k  uint32
	n  int
	at time.Time
}

// collect reads from s in a goroutine until nothing arrives for idle (or max elapses) and hands
// back what arrived. Start it before sending.
func collect(t *testing.T, s transport.Socket, idle, max time.Duration) func() []arrival {
	t.Helper()
	var got []arrival
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for time.Since(start) < max {
			dl := time.Now().Add(idle)
			if end := start.Add(max); end.Before(dl) {
				dl = end
			}
			_ = s.SetReadDeadline(dl)
			n, _, err := s.ReadFrom(buf)
			if err != nil {
				if errors.Is(err, os.ErrDeadlineExceeded) && len(got) == 0 && time.Since(start) < max/2 {
					continue // nothing yet: keep waiting for the first one
				}
				return
			}
			if n < 4 {
				t.Errorf("short datagram: %d bytes", n)
				continue
			}
			got = append(got, arrival{k: binary.LittleEndian.Uint32(buf), n: n, at: time.Now()})
		}
	}()
	return func() []arrival { <-done; return got }
}

// collectUntil reads from s in a goroutine until enough(arrivals so far) holds, or max elapses
// (a bound for a link that delivers nothing more, not a speed), and hands back what arrived.
func collectUntil(t *testing.T, s transport.Socket, max time.Duration, enough func(n int) bool) func() []arrival {
	t.Helper()
	var got []arrival
	done := make(chan struct{})
	end := time.Now().Add(max)
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for !enough(len(got)) {
			_ = s.SetReadDeadline(end)
			n, _, err := s.ReadFrom(buf)
			if err != nil {
				return
			}
			if n >= 4 {
				got = append(got, arrival{k: binary.LittleEndian.Uint32(buf), n: n, at: time.Now()})
			}
		}
	}()
	return func() []arrival { <-done; return got }
}

func msg(k uint32, size int) []byte {
	b := make([]byte, max(size, 4))
	binary.LittleEndian.PutUint32(b, k)
	return b
}

// send writes count numbered datagrams of size bytes from s to `to` and records when each left.
func send(t *testing.T, s transport.Socket, to netip.AddrPort, count, size int) []time.Time {
	t.Helper()
	at := make([]time.Time, count)
	for k := range count {
		at[k] = time.Now()
		if n, err := s.WriteTo(msg(uint32(k), size), to); err != nil || n != max(size, 4) {
			t.Fatalf("WriteTo #%d: %d, %v", k, n, err)
		}
		if k%25 == 24 {
			time.Sleep(time.Millisecond) // let the receiver keep up: no drops in the kernel
		}
	}
	return at
}

func counts(as []arrival, n int) []int {
	c := make([]int, n)
	for _, a := range as {
		if int(a.k) >= n {
			continue
		}
		c[a.k]++
	}
	return c
}

// --- impairments ---

// Loss ≈ the configured rate, counted by Dropped, decided by the seed (the same seed drops the
// same datagrams); SetConfig makes the link clean again.
func TestLoss(t *testing.T) {
	const n = 1000
	run := func() (lost []uint32, dropped uint64) {
		l := wrapLoopback(t, Config{Loss: 0.2, Seed: 7}, Config{})
		peer := rawLoopback(t)
		wait := collectUntil(t, peer, 30*time.Second, func(got int) bool { out, _ := l.Dropped(); return got+int(out) >= n })
		for k := range n {
			_, _ = l.WriteTo(msg(uint32(k), 16), peer.LocalAddr())
			if k%25 == 24 {
				time.Sleep(time.Millisecond) // let the receiver keep up: no kernel drops
			}
		}
		c := counts(wait(), n)
		for k, v := range c {
			if v > 1 {
				t.Fatalf("datagram %d arrived %d times without dup configured", k, v)
			}
			if v == 0 {
				lost = append(lost, uint32(k))
			}
		}
		out, in := l.Dropped()
		if in != 0 {
			t.Fatalf("Dropped in = %d on an unimpaired incoming direction", in)
		}
		if int(out) != len(lost) {
			t.Fatalf("Dropped out = %d but %d datagrams missing", out, len(lost))
		}
		// Clean again: everything arrives.
		l.SetConfig(Config{}, Config{})
		wait = collectUntil(t, peer, 30*time.Second, func(got int) bool { return got == 50 })
		send(t, l, peer.LocalAddr(), 50, 16)
		if got := len(wait()); got != 50 {
			t.Fatalf("after SetConfig(clean): %d of 50 arrived", got)
		}
		return lost, out
	}
	lost1, d1 := run()
	rate := float64(len(lost1)) / n
	t.Logf("loss=20%%: %d of %d lost (%.1f%%)", len(lost1), n, 100*rate)
	if rate < 0.14 || rate > 0.26 {
		t.Fatalf("loss %.3f, want 0.2 ± 0.06", rate)
	}
	lost2, d2 := run()
	if d1 != d2 || !slices.Equal(lost1, lost2) {
		t.Fatalf("same seed, different decisions: %d vs %d lost", d1, d2)
	}
}

// At dup=50% about half the datagrams arrive twice, none more, none lost.
func TestDuplication(t *testing.T) {
	const n = 400
	l := wrapLoopback(t, Config{Dup: 0.5, Seed: 3}, Config{})
	peer := rawLoopback(t)
	wait := collect(t, peer, time.Second, 30*time.Second) // until a second without a datagram: the late duplicates too
	send(t, l, peer.LocalAddr(), n, 16)
	c := counts(wait(), n)
	twice := 0
	for k, v := range c {
		switch v {
		case 1:
		case 2:
			twice++
		default:
			t.Fatalf("datagram %d arrived %d times, want 1 or 2", k, v)
		}
	}
	t.Logf("dup=50%%: %d of %d arrived twice", twice, n)
	if twice < n*35/100 || twice > n*65/100 {
		t.Fatalf("%d of %d duplicated, want ≈ 50%%", twice, n)
	}
}

// Over real sockets, both ways, a Link delivers every datagram, and none before its latency
// (less jitter).
func TestLatency(t *testing.T) {
	check := func(t *testing.T, from, to transport.Socket, lat, jitter time.Duration) {
		const n = 30
		wait := collectUntil(t, to, 30*time.Second, func(got int) bool { return got == n })
		sent := make([]time.Time, n)
		for k := range n {
			sent[k] = time.Now()
			if _, err := from.WriteTo(msg(uint32(k), 16), to.LocalAddr()); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Millisecond)
		}
		got := wait()
		if len(got) != n {
			t.Fatalf("%d of %d arrived", len(got), n)
		}
		lo, hi := time.Hour, time.Duration(0)
		for _, a := range got {
			d := a.at.Sub(sent[a.k])
			lo, hi = min(lo, d), max(hi, d)
		}
		t.Logf("lat=%v jitter=%v: delays %v .. %v", lat, jitter, lo, hi)
		if lo < lat-jitter {
			t.Fatalf("a datagram took %v, less than latency-jitter %v", lo, lat-jitter)
		}
		// Late is the machine's (a busy one delivers late); the delays drawn are the Pipe's
		// (TestPipeDelays, in virtual time). Only a link that holds datagrams for good fails.
		if hi > lat+jitter+10*time.Second {
			t.Fatalf("a datagram took %v, far more than %v+%v", hi, lat, jitter)
		}
	}
	t.Run("out", func(t *testing.T) {
		l := wrapLoopback(t, Config{Latency: 80 * time.Millisecond}, Config{})
		check(t, l, rawLoopback(t), 80*time.Millisecond, 0)
	})
	t.Run("in", func(t *testing.T) {
		l := wrapLoopback(t, Config{}, Config{Latency: 60 * time.Millisecond})
		check(t, rawLoopback(t), l, 60*time.Millisecond, 0)
	})
	t.Run("jitter", func(t *testing.T) {
		l := wrapLoopback(t, Config{Latency: 60 * time.Millisecond, Jitter: 20 * time.Millisecond, Seed: 5}, Config{})
		check(t, l, rawLoopback(t), 60*time.Millisecond, 20*time.Millisecond)
	})
}

func inversions(as []arrival) int {
	inv := 0
	var newest uint32
	for i, a := range as {
		if i > 0 && a.k < newest {
			inv++
		}
		newest = max(newest, a.k)
	}
	return inv
}

// reorder>0 makes datagrams arrive after later ones; a zero config (both ends wrapped) keeps
// the order and loses nothing.
func TestReorder(t *testing.T) {
	const n = 300
	t.Run("reorder", func(t *testing.T) {
		l := wrapLoopback(t, Config{Latency: 20 * time.Millisecond, Reorder: 0.3, Seed: 11}, Config{})
		peer := rawLoopback(t)
		wait := collectUntil(t, peer, 30*time.Second, func(got int) bool { return got == n })
		send(t, l, peer.LocalAddr(), n, 16)
		got := wait()
		inv := inversions(got)
		t.Logf("reorder=30%%: %d of %d arrived behind a later one", inv, len(got))
		if len(got) != n {
			t.Fatalf("%d of %d arrived (no loss configured)", len(got), n)
		}
		if inv < n/10 {
			t.Fatalf("only %d out-of-order arrivals at reorder=30%%", inv)
		}
	})
	t.Run("zero", func(t *testing.T) {
		a := wrapLoopback(t, Config{}, Config{})
		b := wrapLoopback(t, Config{}, Config{})
		wait := collectUntil(t, b, 30*time.Second, func(got int) bool { return got == n })
		for k := range n {
			_, _ = a.WriteTo(msg(uint32(k), 16), b.LocalAddr())
			if k%25 == 24 {
				time.Sleep(time.Millisecond)
			}
		}
		got := wait()
		if len(got) != n || inversions(got) != 0 {
			t.Fatalf("zero config: %d of %d arrived, %d out of order", len(got), n, inversions(got))
		}
		for i, a := range got {
			if a.k != uint32(i) {
				t.Fatalf("arrival %d is datagram %d", i, a.k)
			}
		}
	})
}

// A 64 kbps cap: a 100 KB burst delivers no more than the cap allows in a second (plus the
// 300 ms queue), spaced by the serialisation time, and drops the rest; once the queue has
// drained the link carries datagrams again.
func TestBandwidth(t *testing.T) {
	const bw, size, n = 64_000, 1000, 100
	l := wrapLoopback(t, Config{Bandwidth: bw}, Config{})
	peer := rawLoopback(t)
	start := time.Now()
	wait := collectUntil(t, peer, 30*time.Second, func(got int) bool { out, _ := l.Dropped(); return got > 0 && got+int(out) >= n })
	send(t, l, peer.LocalAddr(), n, size)
	got := wait()
	out, _ := l.Dropped()
	var bits int
	for _, a := range got {
		if a.at.Sub(start) <= time.Second {
			bits += 8 * a.n
		}
	}
	t.Logf("64 kbps, %d KB burst: %d datagrams (%d bit) delivered within 1 s, %d dropped", n*size/1000, len(got), bits, out)
	if len(got) == 0 {
		t.Fatal("nothing delivered")
	}
	if bits > bw { // each datagram (+28 bytes of UDP/IP header) takes its serialisation time
		t.Fatalf("%d bit delivered in 1 s through a %d bit/s cap", bits, bw)
	}
	if int(out)+len(got) != n || out < n*9/10 {
		t.Fatalf("%d delivered + %d dropped, want %d in all, most dropped", len(got), out, n)
	}
	perDatagram := time.Duration(float64((size+28)*8) / bw * float64(time.Second)) // 128.5 ms
	if first := got[0].at.Sub(start); first < perDatagram*8/10 {
		t.Fatalf("first datagram after %v, want ≥ its serialisation time %v", first, perDatagram)
	}
	// none before its place in the queue (the exact spacing is the Pipe's: TestPipeBandwidth)
	for i := range got {
		if at := got[i].at.Sub(start); at < time.Duration(i+1)*perDatagram*8/10 {
			t.Fatalf("datagram %d after %v, want ≥ %v (%d serialisation times) at %d bit/s", i, at, time.Duration(i+1)*perDatagram, i+1, bw)
		}
	}
	// The queue has drained: a new datagram goes through.
	wait = collectUntil(t, peer, 30*time.Second, func(got int) bool { return got == 1 })
	send(t, l, peer.LocalAddr(), 1, size)
	if got := wait(); len(got) != 1 {
		t.Fatalf("after the burst drained: %d of 1 delivered", len(got))
	}
}

// The two directions draw separate random streams even when no seed is given.
func TestDirectionsIndependent(t *testing.T) {
	const n = 200
	l := wrapLoopback(t, Config{Loss: 0.5}, Config{Loss: 0.5})
	peer := rawLoopback(t)
	waitOut := collectUntil(t, peer, 30*time.Second, func(got int) bool { out, _ := l.Dropped(); return got+int(out) >= n })
	send(t, l, peer.LocalAddr(), n, 16)
	cOut := counts(waitOut(), n)
	waitIn := collectUntil(t, l, 30*time.Second, func(got int) bool { _, in := l.Dropped(); return got+int(in) >= n })
	send(t, peer, l.LocalAddr(), n, 16)
	cIn := counts(waitIn(), n)
	if slices.Equal(cOut, cIn) {
		t.Fatal("both directions dropped exactly the same datagrams: same random stream")
	}
	out, in := l.Dropped()
	if out < n/4 || in < n/4 || out > n*3/4 || in > n*3/4 {
		t.Fatalf("dropped out %d in %d of %d at loss=50%%", out, in, n)
	}
}

// --- deadlines and close ---

func TestLinkReadDeadline(t *testing.T) {
	l := wrapLoopback(t, Config{}, Config{Latency: 10 * time.Millisecond})
	buf := make([]byte, 64)
	start := time.Now()
	_ = l.SetReadDeadline(start.Add(60 * time.Millisecond))
	_, _, err := l.ReadFrom(buf)
	el := time.Since(start)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("ReadFrom past the deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	if el < 55*time.Millisecond || el > 2*time.Second {
		t.Fatalf("deadline of 60ms fired after %v", el)
	}
	_ = l.SetReadDeadline(time.Now().Add(-time.Millisecond))
	if _, _, err := l.ReadFrom(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("past deadline: %v", err)
	}
	// A datagram arriving before the deadline is returned, with its sender.
	peer := rawLoopback(t)
	_ = l.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := peer.WriteTo(msg(42, 8), l.LocalAddr()); err != nil {
		t.Fatal(err)
	}
	n, from, err := l.ReadFrom(buf)
	if err != nil || n != 8 || binary.LittleEndian.Uint32(buf) != 42 || from != peer.LocalAddr() {
		t.Fatalf("ReadFrom: %d bytes from %v, %v", n, from, err)
	}
	// Cleared deadline, then a deadline set while a ReadFrom is blocked applies to it (as on a
	// net.Conn): the usual way to wake a reader.
	_ = l.SetReadDeadline(time.Time{})
	errc := make(chan error, 1)
	go func() {
		_, _, err := l.ReadFrom(make([]byte, 64))
		errc <- err
	}()
	time.Sleep(30 * time.Millisecond)
	select {
	case err := <-errc:
		t.Fatalf("ReadFrom without deadline returned %v", err)
	default:
	}
	_ = l.SetReadDeadline(time.Now())
	select {
	case err := <-errc:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("woken ReadFrom: %v, want os.ErrDeadlineExceeded", err)
		}
	case <-time.After(time.Second):
		_ = l.Close() // unblock it before failing, for goleak
		<-errc
		t.Fatal("SetReadDeadline(now) did not wake a blocked ReadFrom")
	}
}

// Close stops every goroutine, even with datagrams queued in both directions; afterwards
// ReadFrom (even with datagrams buffered) and WriteTo fail with net.ErrClosed; a blocked ReadFrom
// is released; Close is idempotent and closes the wrapped socket.
func TestClose(t *testing.T) {
	before := goleak.IgnoreCurrent()
	inner := listen(t)
	l := Wrap(inner, Config{Latency: time.Second}, Config{})
	peer := rawLoopback(t)
	// Buffered incoming datagrams, never read.
	for k := range 20 {
		_, _ = peer.WriteTo(msg(uint32(k), 8), l.LocalAddr())
	}
	// Queued outgoing ones (1 s latency).
	send(t, l, peer.LocalAddr(), 20, 8)
	deadline := time.Now().Add(2 * time.Second)
	for len(l.incoming) < 20 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if len(l.incoming) != 20 {
		t.Fatalf("%d of 20 incoming datagrams buffered", len(l.incoming))
	}
	var wg sync.WaitGroup
	errc := make(chan error, 1)
	l2 := wrapLoopback(t, Config{}, Config{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _, err := l2.ReadFrom(make([]byte, 64))
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond)

	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	buf := make([]byte, 64)
	for i := range 50 {
		if _, _, err := l.ReadFrom(buf); !errors.Is(err, net.ErrClosed) {
			t.Fatalf("ReadFrom #%d after Close (datagrams buffered): %v, want net.ErrClosed", i, err)
		}
	}
	_ = l.SetReadDeadline(time.Now().Add(-time.Second))
	if _, _, err := l.ReadFrom(buf); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("ReadFrom after Close with a past deadline: %v, want net.ErrClosed", err)
	}
	if _, err := l.WriteTo(msg(1, 8), peer.LocalAddr()); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("WriteTo after Close: %v, want net.ErrClosed", err)
	}
	if _, _, err := inner.ReadFrom(buf); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("the wrapped socket is still open after Close: %v", err)
	}

	if err := l2.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err := <-errc; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("blocked ReadFrom released by Close with %v, want net.ErrClosed", err)
	}
	goleak.VerifyNone(t, before)
}

// If the wrapped socket is closed under the link, the link's reader goroutine stops instead of
// spinning on the closed socket's errors.
func TestInnerClosed(t *testing.T) {
	before := goleak.IgnoreCurrent()
	inner := listen(t)
	l := Wrap(inner, Config{}, Config{})
	defer l.Close()
	_ = inner.Close()
	err := goleak.Find(before, goleak.IgnoreAnyFunction("github.com/rtype/rtype/net/linksim.(*direction).run"))
	if err != nil {
		t.Fatalf("after the wrapped socket closed: %v", err)
	}
}

// The delays a Pipe draws, in virtual time: exactly the latency without jitter (not a moment
// before), within latency ± jitter and spread over it with jitter.
func TestPipeDelays(t *testing.T) {
	a, b := netip.MustParseAddrPort("192.0.2.1:1"), netip.MustParseAddrPort("192.0.2.2:2")
	p := NewPipe(Config{Latency: 80 * time.Millisecond})
	p.Send(time.Second, msg(1, 16), a, b)
	if due, ok := p.Next(); !ok || due != time.Second+80*time.Millisecond {
		t.Fatalf("due at %v (%v), want 1.08 s", due, ok)
	}
	if p.Pop(time.Second+80*time.Millisecond-1, func([]byte, netip.AddrPort, netip.AddrPort) {}) {
		t.Fatal("delivered before its latency")
	}
	var from, to netip.AddrPort
	if !p.Pop(time.Second+80*time.Millisecond, func(_ []byte, f, tt netip.AddrPort) { from, to = f, tt }) || from != a || to != b {
		t.Fatalf("not delivered at its latency (from %v to %v)", from, to)
	}
	const n, lat, jitter = 1000, 60 * time.Millisecond, 20 * time.Millisecond
	p = NewPipe(Config{Latency: lat, Jitter: jitter, Seed: 5})
	for k := range n {
		p.Send(time.Duration(k)*time.Millisecond, msg(uint32(k), 16), a, b)
	}
	lo, hi := time.Hour, time.Duration(0)
	for {
		due, ok := p.Next()
		if !ok {
			break
		}
		p.Pop(due, func(m []byte, _, _ netip.AddrPort) {
			d := due - time.Duration(binary.LittleEndian.Uint32(m))*time.Millisecond
			lo, hi = min(lo, d), max(hi, d)
		})
	}
	if lo < lat-jitter || hi > lat+jitter || hi-lo < jitter {
		t.Fatalf("delays %v .. %v with %v ± %v, want within it and spread over at least %v", lo, hi, lat, jitter, jitter)
	}
}

// A bandwidth cap in virtual time: each datagram (with its 28 bytes of UDP/IP header) takes its
// serialisation time, back to back; what would wait more than 300 ms in the queue is dropped;
// once the queue has drained a datagram goes through after one serialisation time.
func TestPipeBandwidth(t *testing.T) {
	const bw, size, n = 64_000, 1000, 100
	a, b := netip.MustParseAddrPort("192.0.2.1:1"), netip.MustParseAddrPort("192.0.2.2:2")
	per := time.Duration(float64((size+28)*8) / bw * float64(time.Second)) // 128.5 ms
	p := NewPipe(Config{Bandwidth: bw})
	for k := range n {
		p.Send(0, msg(uint32(k), size), a, b)
	}
	var dues []time.Duration
	for {
		due, ok := p.Next()
		if !ok {
			break
		}
		dues = append(dues, due)
		p.Pop(due, func([]byte, netip.AddrPort, netip.AddrPort) {})
	}
	if want := int(300*time.Millisecond/per) + 1; len(dues) != want || p.Dropped() != uint64(n-want) {
		t.Fatalf("%d delivered, %d dropped; want %d (300 ms of queue) and the rest", len(dues), p.Dropped(), want)
	}
	for i, due := range dues {
		if due != time.Duration(i+1)*per {
			t.Fatalf("datagram %d due at %v, want %v (%d serialisation times)", i, due, time.Duration(i+1)*per, i+1)
		}
	}
	p.Send(time.Second, msg(0, size), a, b)
	if due, _ := p.Next(); due != time.Second+per {
		t.Fatalf("after the queue drained: due at %v, want %v", due, time.Second+per)
	}
}
