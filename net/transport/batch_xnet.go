package transport

import (
	"net"
	"net/netip"

	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

// xnetBatch is the portable batchIO: golang.org/x/net's PacketConn (recvmmsg/sendmmsg as plain
// system calls on Linux, a datagram per call elsewhere). Linux uses mmsgBatch instead; the tests
// run both.
type xnetBatch struct {
	s  *UDPSocket
	pc interface {
		ReadBatch(ms []ipv4.Message, flags int) (int, error)
		WriteBatch(ms []ipv4.Message, flags int) (int, error)
	}
	msgs []ipv4.Message
}

func newXnetBatch(s *UDPSocket) *xnetBatch {
	x := &xnetBatch{s: s, msgs: make([]ipv4.Message, BatchSize)}
	if s.LocalAddr().Addr().Is4() {
		x.pc = ipv4.NewPacketConn(s.c)
	} else {
		x.pc = ipv6.NewPacketConn(s.c)
	}
	for i := range x.msgs {
		x.msgs[i].Buffers = make([][]byte, 1)
		if s.loc != nil {
			x.msgs[i].OOB = make([]byte, oobSize)
		}
	}
	return x
}

func (x *xnetBatch) readBatch(bufs [][]byte, n []int, from []netip.AddrPort) (int, error) {
	ms := x.msgs[:min(len(bufs), len(x.msgs))]
	for i := range ms {
		ms[i].Buffers[0] = bufs[i]
		if x.s.loc != nil {
			ms[i].OOB = ms[i].OOB[:oobSize]
		}
	}
	k, err := x.pc.ReadBatch(ms, 0)
	got := 0
	for i := range k {
		ua, ok := ms[i].Addr.(*net.UDPAddr)
		if !ok {
			continue
		}
		ap := ua.AddrPort()
		if got != i {
			copy(bufs[got], bufs[i][:ms[i].N])
		}
		n[got], from[got] = ms[i].N, netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
		if x.s.loc != nil {
			x.s.loc.note(from[got], parseDst(ms[i].OOB[:ms[i].NN]))
		}
		got++
	}
	return got, err
}

func (x *xnetBatch) newWriter() batchSender {
	w := &xnetWriter{x: x, msgs: make([]ipv4.Message, BatchSize), addrs: make([]net.UDPAddr, BatchSize), bufs: make([][][]byte, BatchSize)}
	for i := range w.bufs {
		w.bufs[i] = make([][]byte, 1)
		w.addrs[i].IP = make(net.IP, 0, 16)
	}
	if x.s.loc != nil {
		w.oob = make([]byte, BatchSize*oobSize)
	}
	return w
}

type xnetWriter struct {
	x     *xnetBatch
	msgs  []ipv4.Message
	addrs []net.UDPAddr
	bufs  [][][]byte
	oob   []byte // oobSize bytes of control message per datagram (replies from the arrival address)
}

func (w *xnetWriter) writeBatch(bufs [][]byte, to []netip.AddrPort) (int, error) {
	six := w.x.s.LocalAddr().Addr().Is6()
	for i, b := range bufs {
		a := &w.addrs[i]
		ip := to[i].Addr()
		if six && ip.Is4() {
			ip = netip.AddrFrom16(ip.As16()) // an IPv6 socket sends to IPv4 peers as mapped addresses
		}
		a.IP = append(a.IP[:0], ip.AsSlice()...)
		a.Port = int(to[i].Port())
		w.bufs[i][0] = b
		w.msgs[i] = ipv4.Message{Buffers: w.bufs[i], Addr: a}
		if w.oob != nil {
			if src, ok := w.x.s.loc.lookup(to[i]); ok {
				c := w.oob[i*oobSize : (i+1)*oobSize]
				w.msgs[i].OOB = c[:putSrc(c, src, six)]
			}
		}
	}
	return w.x.pc.WriteBatch(w.msgs[:len(bufs)], 0)
}
