// Package transport carries datagrams between a game instance and its clients (docs/PROTOCOL.md §3
// and §5): the Socket interface (a real UDP socket or the net/linksim link simulator), and the
// per-peer Endpoint that numbers datagrams, tracks acks (seq/ack/ackBits), measures RTT and runs
// the reliable-ordered channel (REL ids and relAck). It never allocates on the hot path.
package transport

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
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

// UDPSocket is a Socket over a *net.UDPConn (allocation-free reads and writes). Bound to every
// interface, it replies to each peer from the address the peer's datagrams arrived at
// (replyfrom.go), in its batched I/O (BatchConn) too.
type UDPSocket struct {
	c   *net.UDPConn
	six bool        // AF_INET6 (IPv4 peers are v4-mapped)
	loc *localTable // nil: bound to one address (or the system gives no destination address)
	oob []byte      // ReadFrom's control buffer (one reader)
	wob sync.Pool   // *[oobSize]byte: WriteTo's control buffers (concurrent writers)
}

// ListenUDP opens a UDP socket on addr ("host:port", port 0 = chosen by the OS). When addr names
// no host or an unspecified one (0.0.0.0, ::), the socket asks for each datagram's destination
// address and sends its replies from it.
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
	s := &UDPSocket{c: c}
	local := s.LocalAddr().Addr()
	s.six = local.Is6()
	if local.IsUnspecified() {
		var err error
		if s.six {
			err = ipv6.NewPacketConn(c).SetControlMessage(ipv6.FlagDst, true)
		} else {
			err = ipv4.NewPacketConn(c).SetControlMessage(ipv4.FlagDst, true)
		}
		if err == nil { // where the system cannot, the kernel picks the source as before
			s.loc = newLocalTable()
			s.oob = make([]byte, oobSize)
			s.wob.New = func() any { return new([oobSize]byte) }
		}
	}
	return s, nil
}

// RepliesFromArrival reports whether the socket sends to each peer from the local address the
// peer's datagrams arrived at (bound to every interface, on a system with IP_PKTINFO).
func (s *UDPSocket) RepliesFromArrival() bool { return s.loc != nil }

// ReadFrom implements Socket.
func (s *UDPSocket) ReadFrom(p []byte) (int, netip.AddrPort, error) {
	if s.loc == nil {
		n, a, err := s.c.ReadFromUDPAddrPort(p)
		return n, netip.AddrPortFrom(a.Addr().Unmap(), a.Port()), err
	}
	n, oobn, _, a, err := s.c.ReadMsgUDPAddrPort(p, s.oob)
	from := netip.AddrPortFrom(a.Addr().Unmap(), a.Port())
	if err == nil {
		s.loc.note(from, parseDst(s.oob[:oobn]))
	}
	return n, from, err
}

// WriteTo implements Socket.
func (s *UDPSocket) WriteTo(p []byte, to netip.AddrPort) (int, error) {
	if s.loc != nil {
		if src, ok := s.loc.lookup(netip.AddrPortFrom(to.Addr().Unmap(), to.Port())); ok {
			b := s.wob.Get().(*[oobSize]byte)
			n, _, err := s.c.WriteMsgUDPAddrPort(p, b[:putSrc(b[:], src, s.six)], to)
			s.wob.Put(b)
			return n, err
		}
	}
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
