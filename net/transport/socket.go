// Package transport carries datagrams between a game instance and its clients (docs/PROTOCOL.md §3
// and §5): the Socket interface (a real UDP socket or the net/linksim link simulator), and the
// per-peer Endpoint that numbers datagrams, tracks acks (seq/ack/ackBits), measures RTT and runs
// the reliable-ordered channel (REL ids and relAck). It never allocates on the hot path.
package transport

import (
	"errors"
	"net"
	"net/netip"
	"time"
)

// Socket is a datagram socket. *UDPSocket implements it over the operating system; the link
// simulator (net/linksim) wraps any Socket to add latency, jitter, loss, duplication, reordering
// and a bandwidth cap. Implementations are safe for one reader and concurrent writers.
type Socket interface {
	// ReadFrom reads one datagram into p; it returns os.ErrDeadlineExceeded after the read
	// deadline and net.ErrClosed once closed.
	ReadFrom(p []byte) (n int, from netip.AddrPort, err error)
	// WriteTo sends p as one datagram.
	WriteTo(p []byte, to netip.AddrPort) (int, error)
	SetReadDeadline(t time.Time) error
	LocalAddr() netip.AddrPort
	Close() error
}

// UDPSocket is a Socket over a *net.UDPConn (allocation-free reads and writes).
type UDPSocket struct{ c *net.UDPConn }

// ListenUDP opens a UDP socket on addr ("host:port", port 0 = chosen by the OS).
func ListenUDP(addr string) (*UDPSocket, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	c, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, err
	}
	_ = c.SetReadBuffer(1 << 20)
	_ = c.SetWriteBuffer(1 << 20)
	return &UDPSocket{c: c}, nil
}

// ReadFrom implements Socket.
func (s *UDPSocket) ReadFrom(p []byte) (int, netip.AddrPort, error) {
	n, a, err := s.c.ReadFromUDPAddrPort(p)
	return n, netip.AddrPortFrom(a.Addr().Unmap(), a.Port()), err
}

// WriteTo implements Socket.
func (s *UDPSocket) WriteTo(p []byte, to netip.AddrPort) (int, error) {
	return s.c.WriteToUDPAddrPort(p, to)
}

// SetReadDeadline implements Socket.
func (s *UDPSocket) SetReadDeadline(t time.Time) error { return s.c.SetReadDeadline(t) }

// LocalAddr implements Socket.
func (s *UDPSocket) LocalAddr() netip.AddrPort {
	a := s.c.LocalAddr().(*net.UDPAddr).AddrPort()
	return netip.AddrPortFrom(a.Addr().Unmap(), a.Port())
}

// Conn is the underlying connection (batched I/O, socket options).
func (s *UDPSocket) Conn() *net.UDPConn { return s.c }

// Close implements Socket.
func (s *UDPSocket) Close() error { return s.c.Close() }

// ReadLoop reads datagrams from sock into buf and calls handle with each, until quit is closed or
// the socket is closed. It wakes every 100 ms to notice quit; other read errors are retried.
// handle must not keep b.
func ReadLoop(sock Socket, buf []byte, quit <-chan struct{}, handle func(b []byte, from netip.AddrPort)) {
	for {
		select {
		case <-quit:
			return
		default:
		}
		_ = sock.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		n, from, err := sock.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue // deadline (look at quit again) or a transient error
		}
		handle(buf[:n], from)
	}
}
