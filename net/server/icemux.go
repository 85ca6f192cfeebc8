package server

import (
	"net"
	"net/netip"
	"os"
	"sync"
	"time"
)

// The game socket's datagrams that belong to WebRTC (RFC 7983's demultiplexing by first byte):
// STUN's first byte is 0..3, DTLS's 20..63. The game protocol's datagrams start with its magic,
// queries and discovery with 0xFF (instance.Config.Connectionless).
const (
	stunFirstMax = 3
	dtlsFirstMin = 20
	dtlsFirstMax = 63
)

// IsWebRTC reports whether a datagram on the game socket is WebRTC's (STUN or DTLS, by its first
// byte), for the ICE mux.
func IsWebRTC(b []byte) bool {
	return len(b) > 0 && (b[0] <= stunFirstMax || (b[0] >= dtlsFirstMin && b[0] <= dtlsFirstMax))
}

// ICEQueue bounds the WebRTC datagrams waiting for the ICE mux's reader; more are dropped (a
// stranger's flood costs at most ICEQueue datagrams of memory).
const ICEQueue = 256

// icePacketConn is the game socket as WebRTC's ICE mux sees it (a net.PacketConn): Offer gives it
// the socket's STUN and DTLS datagrams (from Config.Connectionless, after the per-address rate
// limit), which ReadFrom returns in order from a bounded queue; WriteTo sends through the game
// socket (instance.Manager.WriteTo). It is safe for one reader and concurrent writers.
type icePacketConn struct {
	write func(b []byte, to netip.AddrPort) error
	local net.Addr

	mu       sync.Mutex
	q        []iceDatagram // FIFO, at most ICEQueue
	dropped  uint64        // datagrams dropped because the queue was full
	closed   bool
	deadline time.Time
	wake     chan struct{} // capacity 1: something was queued, closed or the deadline moved
}

type iceDatagram struct {
	b    []byte
	from netip.AddrPort
}

func newICEPacketConn(local net.Addr, write func(b []byte, to netip.AddrPort) error) *icePacketConn {
	return &icePacketConn{write: write, local: local, wake: make(chan struct{}, 1)}
}

// Offer queues a copy of b from from when it is WebRTC's (IsWebRTC) and reports whether it took
// it (a full queue drops it, taken all the same). It never blocks.
func (c *icePacketConn) Offer(b []byte, from netip.AddrPort) bool {
	if !IsWebRTC(b) {
		return false
	}
	c.mu.Lock()
	switch {
	case c.closed:
	case len(c.q) >= ICEQueue:
		c.dropped++
	default:
		c.q = append(c.q, iceDatagram{b: append([]byte(nil), b...), from: from})
	}
	c.mu.Unlock()
	c.signal()
	return true
}

func (c *icePacketConn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// ReadFrom returns the oldest queued datagram; it blocks until one comes, the read deadline
// passes (os.ErrDeadlineExceeded) or the conn is closed (net.ErrClosed).
func (c *icePacketConn) ReadFrom(p []byte) (int, net.Addr, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return 0, nil, net.ErrClosed
		}
		if len(c.q) > 0 {
			d := c.q[0]
			c.q[0] = iceDatagram{}
			c.q = c.q[1:]
			c.mu.Unlock()
			return copy(p, d.b), net.UDPAddrFromAddrPort(d.from), nil
		}
		dl := c.deadline
		c.mu.Unlock()
		if dl.IsZero() {
			<-c.wake
			continue
		}
		wait := time.Until(dl)
		if wait <= 0 {
			return 0, nil, os.ErrDeadlineExceeded
		}
		t := time.NewTimer(wait)
		select {
		case <-c.wake:
			t.Stop()
		case <-t.C:
			return 0, nil, os.ErrDeadlineExceeded
		}
	}
}

// WriteTo sends p to addr (a *net.UDPAddr) through the game socket.
func (c *icePacketConn) WriteTo(p []byte, addr net.Addr) (int, error) {
	ua, ok := addr.(*net.UDPAddr)
	if !ok {
		return 0, &net.OpError{Op: "write", Net: "udp", Addr: addr, Err: net.UnknownNetworkError(addr.Network())}
	}
	ap := ua.AddrPort()
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	if err := c.write(p, ap); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close makes ReadFrom return net.ErrClosed and drops what is queued.
func (c *icePacketConn) Close() error {
	c.mu.Lock()
	c.closed, c.q = true, nil
	c.mu.Unlock()
	c.signal()
	return nil
}

func (c *icePacketConn) LocalAddr() net.Addr { return c.local }

func (c *icePacketConn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

func (c *icePacketConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	c.signal()
	return nil
}

// SetWriteDeadline is a no-op: writes go to the game socket, which never blocks for long.
func (c *icePacketConn) SetWriteDeadline(time.Time) error { return nil }
