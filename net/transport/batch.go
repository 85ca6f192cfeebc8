package transport

import (
	"errors"
	"net"
	"net/netip"
	"time"

	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

// BatchSize is how many datagrams one batched system call reads or writes at most.
const BatchSize = 64

// batchConn is what golang.org/x/net's ipv4.PacketConn and ipv6.PacketConn share.
type batchConn interface {
	ReadBatch(ms []ipv4.Message, flags int) (int, error)
	WriteBatch(ms []ipv4.Message, flags int) (int, error)
}

// BatchConn reads and writes many datagrams per system call over a UDPSocket: recvmmsg and
// sendmmsg on Linux, one datagram per call on platforms without them (golang.org/x/net/ipv4
// falls back by itself). Reads are for one goroutine; each writing goroutine needs its own
// BatchWriter.
type BatchConn struct {
	s  *UDPSocket
	pc batchConn
	// Coalesce, when not 0, is the least time between the starts of two reads when the first
	// did not fill the batch: ReadLoop sleeps the rest instead of waking for every datagram, and
	// its next read takes what arrived meanwhile (a busy server trades up to Coalesce of latency
	// for far fewer wakeups). Set it before ReadLoop.
	Coalesce time.Duration
}

// NewBatchConn wraps s (which stays usable as a plain Socket).
func NewBatchConn(s *UDPSocket) *BatchConn {
	b := &BatchConn{s: s}
	if s.LocalAddr().Addr().Is4() {
		b.pc = ipv4.NewPacketConn(s.c)
	} else {
		b.pc = ipv6.NewPacketConn(s.c)
	}
	return b
}

// ReadLoop reads batches of datagrams and calls handle with each, until quit is closed or the
// socket is closed (as ReadLoop does for one datagram at a time). handle must not keep b.
func (b *BatchConn) ReadLoop(quit <-chan struct{}, handle func(b []byte, from netip.AddrPort)) {
	bufs := make([][2048]byte, BatchSize)
	msgs := make([]ipv4.Message, BatchSize)
	for i := range msgs {
		msgs[i].Buffers = [][]byte{bufs[i][:]}
	}
	for {
		select {
		case <-quit:
			return
		default:
		}
		start := time.Now()
		_ = b.s.SetReadDeadline(start.Add(100 * time.Millisecond))
		n, err := b.pc.ReadBatch(msgs, 0)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // deadline (look at quit again) or a transient error
		}
		for i := 0; i < n; i++ {
			m := &msgs[i]
			ua, ok := m.Addr.(*net.UDPAddr)
			if !ok {
				continue
			}
			ap := ua.AddrPort()
			handle(bufs[i][:m.N], netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()))
		}
		if b.Coalesce > 0 && n < len(msgs) {
			if d := b.Coalesce - time.Since(start); d > 0 {
				time.Sleep(d)
			}
		}
	}
}

// BatchWriter sends an Outbox in batches. Not safe for concurrent use.
type BatchWriter struct {
	b     *BatchConn
	msgs  []ipv4.Message
	addrs []net.UDPAddr
	bufs  [][][]byte
}

// NewWriter returns a writer over b.
func (b *BatchConn) NewWriter() *BatchWriter {
	w := &BatchWriter{b: b, msgs: make([]ipv4.Message, BatchSize), addrs: make([]net.UDPAddr, BatchSize), bufs: make([][][]byte, BatchSize)}
	for i := range w.bufs {
		w.bufs[i] = make([][]byte, 1)
		w.addrs[i].IP = make(net.IP, 0, 16)
	}
	return w
}

// Flush sends every datagram of o, then resets it. A datagram the system refuses is dropped (as
// a failed WriteTo would be); it reports how many were sent.
func (w *BatchWriter) Flush(o *Outbox) (sent int) {
	total := o.Len()
	for start := 0; start < total; {
		n := min(total-start, BatchSize)
		for i := 0; i < n; i++ {
			b, to := o.At(start + i)
			a := &w.addrs[i]
			ip := to.Addr()
			if w.b.s.LocalAddr().Addr().Is6() && ip.Is4() {
				ip = netip.AddrFrom16(ip.As16()) // an IPv6 socket sends to IPv4 peers as mapped addresses
			}
			a.IP = append(a.IP[:0], ip.AsSlice()...)
			a.Port = int(to.Port())
			w.bufs[i][0] = b
			w.msgs[i] = ipv4.Message{Buffers: w.bufs[i], Addr: a}
		}
		k, err := w.b.pc.WriteBatch(w.msgs[:n], 0)
		if k > 0 {
			sent += k
			start += k
		}
		if err != nil || k <= 0 {
			start++ // skip the datagram that failed
		}
	}
	o.Reset()
	return sent
}
