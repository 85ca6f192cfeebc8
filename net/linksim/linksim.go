// Package linksim is a link simulator: it wraps a transport.Socket and adds latency, jitter, loss,
// duplication (late duplicates too), reordering and a bandwidth cap to the datagrams going through
// it, from a seeded PRNG so a run's decisions repeat. The impairment itself is a pure state
// machine (Pipe) with no goroutine and no clock; Link runs it in real time around a
// transport.Socket (the server, client and bot accept it through their -netsim flag); the tests'
// virtual network (net/testsupport/vnet) runs it in virtual time.
package linksim

import (
	"container/heap"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rtype/rtype/net/transport"
)

// Config is the impairment of one direction of a link.
type Config struct {
	Latency   time.Duration // one-way base delay
	Jitter    time.Duration // each datagram's delay varies uniformly within ±Jitter
	Loss      float64       // probability 0..1 that a datagram is dropped
	Dup       float64       // probability 0..1 that a datagram is delivered twice (the copy late)
	Reorder   float64       // probability 0..1 that a datagram is held back behind later ones
	Bandwidth int           // bits per second, 0 = unlimited; a queue over 300 ms drops (tail drop)
	Seed      uint64        // PRNG seed (0 = 1)
}

// IsZero reports whether the link adds nothing.
func (c Config) IsZero() bool {
	return c.Latency == 0 && c.Jitter == 0 && c.Loss == 0 && c.Dup == 0 && c.Reorder == 0 && c.Bandwidth == 0
}

// Parse reads a spec such as "lat=75ms,jitter=10ms,loss=5%,dup=1%,reorder=2%,bw=1mbps,seed=7".
// Percentages may be written "5%" or "0.05"; bandwidth takes bps, kbps or mbps.
func Parse(spec string) (Config, error) {
	var c Config
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return c, nil
	}
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return c, fmt.Errorf("netsim %q: %q is not key=value", spec, kv)
		}
		var err error
		switch k {
		case "lat", "latency":
			c.Latency, err = time.ParseDuration(v)
		case "jitter":
			c.Jitter, err = time.ParseDuration(v)
		case "loss":
			c.Loss, err = parseProb(v)
		case "dup":
			c.Dup, err = parseProb(v)
		case "reorder":
			c.Reorder, err = parseProb(v)
		case "bw", "bandwidth":
			c.Bandwidth, err = parseBandwidth(v)
		case "seed":
			c.Seed, err = strconv.ParseUint(v, 10, 64)
		default:
			err = fmt.Errorf("unknown key (want lat, jitter, loss, dup, reorder, bw, seed)")
		}
		if err != nil {
			return c, fmt.Errorf("netsim %q: %s: %w", spec, k, err)
		}
	}
	if c.Latency < 0 || c.Jitter < 0 || c.Bandwidth < 0 {
		return c, fmt.Errorf("netsim %q: negative value", spec)
	}
	return c, nil
}

func parseProb(v string) (float64, error) {
	pct := strings.HasSuffix(v, "%")
	f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if err != nil {
		return 0, err
	}
	if pct {
		f /= 100
	}
	if !(f >= 0 && f <= 1) { // also rejects NaN
		return 0, fmt.Errorf("%s is not a probability in 0..1 (or 0%%..100%%)", v)
	}
	return f, nil
}

func parseBandwidth(v string) (int, error) {
	l := strings.ToLower(v)
	mul := 1.0
	for _, s := range []struct {
		suf string
		m   float64
	}{{"mbps", 1e6}, {"kbps", 1e3}, {"bps", 1}} {
		if strings.HasSuffix(l, s.suf) {
			l, mul = strings.TrimSuffix(l, s.suf), s.m
			break
		}
	}
	f, err := strconv.ParseFloat(l, 64)
	if err != nil {
		return 0, err
	}
	if !(f*mul >= 0 && f*mul <= 1e15) { // NaN, ±Inf or absurd: int() of them is undefined
		return 0, fmt.Errorf("%s is not a bandwidth", v)
	}
	return int(f * mul), nil
}

type item struct {
	due      time.Duration
	ord      uint64
	n        int
	from, to netip.AddrPort
	buf      *[2048]byte
}

type queue []item

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	if q[i].due == q[j].due {
		return q[i].ord < q[j].ord
	}
	return q[i].due < q[j].due
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)   { *q = append(*q, x.(item)) }
func (q *queue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}

var pool = sync.Pool{New: func() any { return new([2048]byte) }}

// Pipe is one impaired direction as a pure state machine: it owns no goroutine and no clock.
// Send decides a datagram's fate at the time given (lost, delayed, duplicated, held back, queued
// behind the bandwidth cap); Next and Pop hand the datagrams back when they are due. Times are
// durations from any fixed origin (virtual time in tests, time since a start for Link). Not safe
// for concurrent use.
type Pipe struct {
	cfg      Config
	rng      *rand.Rand
	q        queue
	ord      uint64
	nextFree time.Duration
	haveFree bool
	dropped  uint64
}

// NewPipe returns a pipe impairing datagrams with cfg.
func NewPipe(cfg Config) *Pipe {
	seed := cfg.Seed
	if seed == 0 {
		seed = 1
	}
	return &Pipe{cfg: cfg, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// SetConfig changes the impairment of datagrams sent from now on (the PRNG stream goes on).
func (d *Pipe) SetConfig(cfg Config) { d.cfg = cfg }

// Dropped is how many datagrams the pipe dropped (loss and bandwidth).
func (d *Pipe) Dropped() uint64 { return d.dropped }

// Len is the number of datagrams in flight.
func (d *Pipe) Len() int { return len(d.q) }

// Send submits a copy of p, from → to, at now.
func (d *Pipe) Send(now time.Duration, p []byte, from, to netip.AddrPort) {
	c := d.cfg
	if c.Loss > 0 && d.rng.Float64() < c.Loss {
		d.dropped++
		return
	}
	base := now
	if c.Bandwidth > 0 {
		if !d.haveFree || d.nextFree < now {
			d.nextFree, d.haveFree = now, true
		}
		if d.nextFree-now > 300*time.Millisecond {
			d.dropped++
			return
		}
		d.nextFree += time.Duration(float64(len(p)*8+28*8) / float64(c.Bandwidth) * float64(time.Second))
		base = d.nextFree
	}
	copies := 1
	if c.Dup > 0 && d.rng.Float64() < c.Dup {
		copies = 2
	}
	for i := 0; i < copies; i++ {
		delay := c.Latency
		if c.Jitter > 0 {
			delay += time.Duration((d.rng.Float64()*2 - 1) * float64(c.Jitter))
		}
		if c.Reorder > 0 && d.rng.Float64() < c.Reorder {
			delay += 5*time.Millisecond + time.Duration(d.rng.Float64()*float64(c.Latency/2+20*time.Millisecond))
		}
		if i == 1 { // the duplicate arrives late
			delay += time.Duration(d.rng.Float64() * float64(2*c.Latency+50*time.Millisecond))
		}
		delay = max(delay, 0)
		b := pool.Get().(*[2048]byte)
		n := copy(b[:], p)
		d.ord++
		heap.Push(&d.q, item{due: base + delay, ord: d.ord, n: n, from: from, to: to, buf: b})
	}
}

// Next returns when the earliest datagram in flight is due (ok false when none is).
func (d *Pipe) Next() (due time.Duration, ok bool) {
	if len(d.q) == 0 {
		return 0, false
	}
	return d.q[0].due, true
}

// Pop removes the earliest datagram due at or before now and calls fn with it (b is valid only
// during fn); it reports false when none is due.
func (d *Pipe) Pop(now time.Duration, fn func(b []byte, from, to netip.AddrPort)) bool {
	if len(d.q) == 0 || d.q[0].due > now {
		return false
	}
	it := heap.Pop(&d.q).(item)
	fn(it.buf[:it.n], it.from, it.to)
	pool.Put(it.buf)
	return true
}

// direction is one impaired direction of a Link in real time: a Pipe drained by a goroutine.
type direction struct {
	epoch   time.Time
	mu      sync.Mutex
	p       *Pipe
	wake    chan struct{}
	deliver func(b []byte, to netip.AddrPort)
}

func newDirection(cfg Config, deliver func(b []byte, to netip.AddrPort)) *direction {
	return &direction{epoch: time.Now(), p: NewPipe(cfg), wake: make(chan struct{}, 1), deliver: deliver}
}

// submit schedules p (copied) for delivery after the simulated impairments.
func (d *direction) submit(p []byte, addr netip.AddrPort, now time.Time) {
	d.mu.Lock()
	d.p.Send(now.Sub(d.epoch), p, netip.AddrPort{}, addr)
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// run delivers due datagrams until done is closed.
func (d *direction) run(done <-chan struct{}) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	var b [2048]byte
	for {
		d.mu.Lock()
		var wait time.Duration = time.Hour
		for {
			now := time.Since(d.epoch)
			var n int
			var to netip.AddrPort
			if !d.p.Pop(now, func(p []byte, _, dst netip.AddrPort) { n, to = copy(b[:], p), dst }) {
				if due, ok := d.p.Next(); ok {
					wait = due - now
				}
				break
			}
			d.mu.Unlock()
			d.deliver(b[:n], to)
			d.mu.Lock()
		}
		d.mu.Unlock()
		t.Reset(wait)
		select {
		case <-done:
			return
		case <-d.wake:
		case <-t.C:
		}
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
	}
}

// Link is a transport.Socket whose outgoing and incoming datagrams go through impaired
// directions. Close closes the wrapped socket too.
type Link struct {
	inner    transport.Socket
	out, in  *direction
	incoming chan item
	dlChange chan struct{} // SetReadDeadline wakes a blocked ReadFrom (one reader)
	done     chan struct{}
	wg       sync.WaitGroup
	mu       sync.Mutex
	deadline time.Time
	closed   bool
}

var _ transport.Socket = (*Link)(nil)

// Wrap impairs what s sends with out and what it receives with in. A zero Config passes datagrams
// straight through (still via the queue).
func Wrap(s transport.Socket, out, in Config) *Link {
	l := &Link{inner: s, incoming: make(chan item, 4096), dlChange: make(chan struct{}, 1), done: make(chan struct{})}
	l.out = newDirection(out, func(b []byte, to netip.AddrPort) { _, _ = l.inner.WriteTo(b, to) })
	// Both directions must draw different streams; seed 0 means 1, so compare effective seeds.
	if out.Seed == 0 {
		out.Seed = 1
	}
	if in.Seed == 0 {
		in.Seed = 1
	}
	if in.Seed == out.Seed {
		in.Seed = out.Seed + 1
	}
	l.in = newDirection(in, func(b []byte, from netip.AddrPort) {
		buf := pool.Get().(*[2048]byte)
		it := item{n: copy(buf[:], b), from: from, buf: buf}
		select {
		case l.incoming <- it:
		default:
			pool.Put(it.buf) // receive buffer overflow: the datagram is lost, as on a real socket
		}
	})
	l.wg.Add(3)
	go func() { defer l.wg.Done(); l.out.run(l.done) }()
	go func() { defer l.wg.Done(); l.in.run(l.done) }()
	go func() { defer l.wg.Done(); l.readLoop() }()
	return l
}

func (l *Link) readLoop() {
	var buf [2048]byte
	for {
		_ = l.inner.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		n, from, err := l.inner.ReadFrom(buf[:])
		if err != nil {
			select {
			case <-l.done:
				return
			default:
			}
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			if errors.Is(err, net.ErrClosed) { // the inner socket was closed under us: do not spin
				return
			}
			continue
		}
		l.in.submit(buf[:n], from, time.Now())
	}
}

// ReadFrom implements transport.Socket. After Close it always returns net.ErrClosed (even with
// datagrams still buffered); a SetReadDeadline call applies to a ReadFrom already blocked.
func (l *Link) ReadFrom(p []byte) (int, netip.AddrPort, error) {
	for {
		select {
		case <-l.done:
			return 0, netip.AddrPort{}, net.ErrClosed
		default:
		}
		l.mu.Lock()
		dl := l.deadline
		l.mu.Unlock()
		var timer *time.Timer
		var timeout <-chan time.Time
		if !dl.IsZero() {
			d := time.Until(dl)
			if d <= 0 {
				return 0, netip.AddrPort{}, os.ErrDeadlineExceeded
			}
			timer = time.NewTimer(d)
			timeout = timer.C
		}
		select {
		case it := <-l.incoming:
			stopTimer(timer)
			n := copy(p, it.buf[:it.n])
			pool.Put(it.buf)
			return n, it.from, nil
		case <-l.done:
			stopTimer(timer)
			return 0, netip.AddrPort{}, net.ErrClosed
		case <-timeout:
			return 0, netip.AddrPort{}, os.ErrDeadlineExceeded
		case <-l.dlChange:
			stopTimer(timer) // the deadline moved: look again
		}
	}
}

func stopTimer(t *time.Timer) {
	if t != nil {
		t.Stop()
	}
}

// WriteTo implements transport.Socket.
func (l *Link) WriteTo(p []byte, to netip.AddrPort) (int, error) {
	select {
	case <-l.done:
		return 0, net.ErrClosed
	default:
	}
	l.out.submit(p, to, time.Now())
	return len(p), nil
}

// SetReadDeadline implements transport.Socket.
func (l *Link) SetReadDeadline(t time.Time) error {
	l.mu.Lock()
	l.deadline = t
	l.mu.Unlock()
	select {
	case l.dlChange <- struct{}{}:
	default:
	}
	return nil
}

// LocalAddr implements transport.Socket.
func (l *Link) LocalAddr() netip.AddrPort { return l.inner.LocalAddr() }

// SetConfig changes both directions' impairment (e.g. a test that makes the link clean again).
func (l *Link) SetConfig(out, in Config) {
	l.out.mu.Lock()
	l.out.p.SetConfig(out)
	l.out.mu.Unlock()
	l.in.mu.Lock()
	l.in.p.SetConfig(in)
	l.in.mu.Unlock()
}

// Dropped returns how many datagrams each direction dropped (loss and bandwidth).
func (l *Link) Dropped() (out, in uint64) {
	l.out.mu.Lock()
	out = l.out.p.Dropped()
	l.out.mu.Unlock()
	l.in.mu.Lock()
	in = l.in.p.Dropped()
	l.in.mu.Unlock()
	return out, in
}

// Close stops the link's goroutines and closes the wrapped socket.
func (l *Link) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	close(l.done)
	err := l.inner.Close()
	l.wg.Wait()
	return err
}
