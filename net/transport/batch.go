package transport

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"runtime"
	"time"
)

// BatchSize is how many datagrams one batched system call reads or writes at most.
const BatchSize = 64

// maxDatagram is the receive buffer of each datagram a batch reads (larger datagrams are cut).
const maxDatagram = 2048

// batchIO is the system-call layer under a BatchConn: on Linux recvmmsg/sendmmsg made as raw
// system calls on the non-blocking socket (mmsg_linux.go), elsewhere golang.org/x/net's
// ipv4/ipv6 PacketConn (batch_xnet.go, which itself falls back to a datagram per call).
type batchIO interface {
	// readBatch reads up to len(bufs) datagrams that are waiting (blocking, through the runtime's
	// poller and the socket's read deadline, until one is): datagram i is bufs[i][:n[i]] from
	// from[i].
	readBatch(bufs [][]byte, n []int, from []netip.AddrPort) (int, error)
	// newWriter returns a sender for one goroutine.
	newWriter() batchSender
}

// batchSender sends up to BatchSize datagrams per call: datagram i is bufs[i] to to[i]. It
// returns how many of the first datagrams went out; when fewer than len(bufs) and err is not nil,
// the next datagram was refused.
type batchSender interface {
	writeBatch(bufs [][]byte, to []netip.AddrPort) (int, error)
}

// BatchConn reads and writes many datagrams per system call over a UDPSocket. Reads are for one
// goroutine; each writing goroutine needs its own BatchWriter.
//
// On Linux the calls are recvmmsg and sendmmsg made as raw system calls: the socket is
// non-blocking, so they never block, and a raw call does not hand the goroutine's P to another
// thread when it lasts more than a scheduler tick (20 µs), as a plain system call does. On a
// server with one core such a hand-off puts two threads on the core, which the kernel then
// time-slices in milliseconds: game ticks started up to 12 ms late (docs/BENCHMARKS.md, "Server
// capacity"). Waiting for the socket still goes through the runtime's poller.
type BatchConn struct {
	s  *UDPSocket
	io batchIO
	// Coalesce, when not 0, is the least time between the starts of two reads when the first
	// did not fill the batch: ReadLoop sleeps the rest instead of waking for every datagram, and
	// its next read takes what arrived meanwhile (a busy server trades up to Coalesce of latency
	// for far fewer wakeups). Set it before ReadLoop.
	Coalesce time.Duration
}

// NewBatchConn wraps s (which stays usable as a plain Socket).
func NewBatchConn(s *UDPSocket) *BatchConn {
	return &BatchConn{s: s, io: newBatchIO(s)}
}

// ReadLoop reads batches of datagrams and calls handle with each, until quit is closed or the
// socket is closed (as ReadLoop does for one datagram at a time). handle must not keep b. After
// a full batch it yields to the other goroutines before it reads again, so that a backlog of
// datagrams does not hold a busy server's only core for milliseconds.
func (b *BatchConn) ReadLoop(quit <-chan struct{}, handle func(b []byte, from netip.AddrPort)) {
	bufs := make([][]byte, BatchSize)
	for i := range bufs {
		bufs[i] = make([]byte, maxDatagram)
	}
	ns := make([]int, BatchSize)
	from := make([]netip.AddrPort, BatchSize)
	for {
		select {
		case <-quit:
			return
		default:
		}
		start := time.Now()
		_ = b.s.SetReadDeadline(start.Add(100 * time.Millisecond))
		n, err := b.io.readBatch(bufs, ns, from)
		if err != nil {
			if errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrClosed) {
				return
			}
			continue // deadline (look at quit again) or a transient error
		}
		for i := range n {
			handle(bufs[i][:ns[i]], from[i])
		}
		if n == len(bufs) {
			runtime.Gosched()
		} else if b.Coalesce > 0 {
			if d := b.Coalesce - time.Since(start); d > 0 {
				time.Sleep(d)
			}
		}
	}
}

// BatchWriter sends an Outbox in batches. Not safe for concurrent use.
type BatchWriter struct {
	w    batchSender
	bufs [][]byte
	to   []netip.AddrPort
}

// NewWriter returns a writer over b.
func (b *BatchConn) NewWriter() *BatchWriter {
	return &BatchWriter{w: b.io.newWriter(), bufs: make([][]byte, BatchSize), to: make([]netip.AddrPort, BatchSize)}
}

// Flush sends every datagram of o, then resets it. A datagram the system refuses is dropped (as
// a failed WriteTo would be); it reports how many were sent.
func (w *BatchWriter) Flush(o *Outbox) (sent int) {
	total := o.Len()
	for start := 0; start < total; {
		n := min(total-start, BatchSize)
		for i := range n {
			w.bufs[i], w.to[i] = o.At(start + i)
		}
		k, err := w.w.writeBatch(w.bufs[:n], w.to[:n])
		if k > 0 {
			sent += k
			start += k
		}
		if err != nil || k <= 0 {
			start++ // skip the datagram that failed
		}
	}
	clear(w.bufs)
	o.Reset()
	return sent
}
