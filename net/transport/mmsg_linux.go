package transport

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

func newBatchIO(s *UDPSocket) batchIO {
	if m, err := newMmsgBatch(s); err == nil {
		return m
	}
	return newXnetBatch(s)
}

// mmsgBatch is the Linux batchIO: recvmmsg and sendmmsg as raw system calls (see BatchConn) with
// MSG_DONTWAIT, inside the socket's syscall.RawConn so that waiting for it goes through the
// runtime's poller. The message headers, I/O vectors and addresses are allocated once.
type mmsgBatch struct {
	rc    syscall.RawConn
	six   bool // the socket is AF_INET6 (IPv4 peers are v4-mapped)
	hdrs  []unix.Mmsghdr
	iovs  []unix.Iovec
	names []unix.RawSockaddrInet6 // large enough for either family
	loc   *localTable             // the socket's reply addresses (nil: bound to one address)
	ctrl  []byte                  // oobSize bytes of control messages per header (when loc is set)

	// the system call in progress (fn is made once, so that a call allocates nothing)
	trap  uintptr
	k, n  int
	errno syscall.Errno
	fn    func(fd uintptr) bool
}

func newMmsgBatch(s *UDPSocket) (*mmsgBatch, error) {
	rc, err := s.c.SyscallConn()
	if err != nil {
		return nil, err
	}
	return newMmsgHeaders(rc, s.six, s.loc), nil
}

func newMmsgHeaders(rc syscall.RawConn, six bool, loc *localTable) *mmsgBatch {
	m := &mmsgBatch{rc: rc, six: six, hdrs: make([]unix.Mmsghdr, BatchSize), iovs: make([]unix.Iovec, BatchSize), names: make([]unix.RawSockaddrInet6, BatchSize), loc: loc}
	if loc != nil {
		m.ctrl = make([]byte, BatchSize*oobSize)
	}
	for i := range m.hdrs {
		m.hdrs[i].Hdr.Iov = &m.iovs[i]
		m.hdrs[i].Hdr.SetIovlen(1)
		m.hdrs[i].Hdr.Name = (*byte)(unsafe.Pointer(&m.names[i]))
	}
	m.fn = m.syscall
	return m
}

// syscall is the RawConn callback: false asks the poller to wait for the socket.
func (m *mmsgBatch) syscall(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall6(m.trap, fd, uintptr(unsafe.Pointer(&m.hdrs[0])), uintptr(m.k), unix.MSG_DONTWAIT, 0, 0)
		switch e {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false
		}
		m.n, m.errno = int(r), e
		return true
	}
}

// call makes the raw system call trap (SYS_RECVMMSG or SYS_SENDMMSG) over the first k headers,
// waiting through the poller while the socket would block.
func (m *mmsgBatch) call(trap uintptr, k int, write bool) (int, error) {
	m.trap, m.k, m.n, m.errno = trap, k, 0, 0
	var err error
	if write {
		err = m.rc.Write(m.fn)
	} else {
		err = m.rc.Read(m.fn)
	}
	if err != nil {
		return 0, err
	}
	if m.errno != 0 {
		return 0, m.errno
	}
	return m.n, nil
}

func (m *mmsgBatch) readBatch(bufs [][]byte, n []int, from []netip.AddrPort) (int, error) {
	k := min(len(bufs), len(m.hdrs))
	for i := range k {
		m.iovs[i].Base = unsafe.SliceData(bufs[i])
		m.iovs[i].SetLen(len(bufs[i]))
		m.hdrs[i].Hdr.Namelen = unix.SizeofSockaddrInet6
		m.hdrs[i].Hdr.Flags = 0
		m.hdrs[i].Len = 0
		if m.loc != nil {
			m.hdrs[i].Hdr.Control = &m.ctrl[i*oobSize]
			m.hdrs[i].Hdr.SetControllen(oobSize)
		}
	}
	got, err := m.call(unix.SYS_RECVMMSG, k, false)
	for i := range got {
		n[i] = min(int(m.hdrs[i].Len), len(bufs[i])) // a longer datagram was cut (MSG_TRUNC)
		from[i] = sockaddrToAddrPort(&m.names[i])
		if m.loc != nil {
			c := min(int(m.hdrs[i].Hdr.Controllen), oobSize)
			m.loc.note(from[i], parseDst(m.ctrl[i*oobSize:i*oobSize+c]))
		}
	}
	clear(m.iovs[:k]) // do not keep the buffers reachable from here
	return got, err
}

func (m *mmsgBatch) newWriter() batchSender {
	return newMmsgHeaders(m.rc, m.six, m.loc)
}

// errFamily refuses a datagram to an IPv6 peer over an IPv4 socket.
var errFamily = errors.New("transport: IPv6 destination on an IPv4 socket")

func (m *mmsgBatch) writeBatch(bufs [][]byte, to []netip.AddrPort) (int, error) {
	k := min(len(bufs), len(m.hdrs))
	for i := range k {
		if !m.addrPortToSockaddr(to[i], &m.names[i], &m.hdrs[i].Hdr.Namelen) {
			k = i
			break
		}
		m.iovs[i].Base = unsafe.SliceData(bufs[i])
		m.iovs[i].SetLen(len(bufs[i]))
		m.hdrs[i].Hdr.Control = nil
		m.hdrs[i].Hdr.SetControllen(0)
		if m.loc != nil {
			if src, ok := m.loc.lookup(to[i]); ok { // reply from the address the peer reached
				c := m.ctrl[i*oobSize : (i+1)*oobSize]
				m.hdrs[i].Hdr.Control = &c[0]
				m.hdrs[i].Hdr.SetControllen(putSrc(c, src, m.six))
			}
		}
	}
	if k == 0 {
		return 0, errFamily
	}
	sent, err := m.call(unix.SYS_SENDMMSG, k, true)
	clear(m.iovs[:k])
	return sent, err
}

// sockaddrToAddrPort decodes what recvmmsg wrote into sa (AF_INET or AF_INET6); v4-mapped
// addresses are unmapped, a link-local scope becomes a numeric zone.
func sockaddrToAddrPort(sa *unix.RawSockaddrInet6) netip.AddrPort {
	switch sa.Family {
	case unix.AF_INET:
		sa4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		return netip.AddrPortFrom(netip.AddrFrom4(sa4.Addr), netPort(sa4.Port))
	case unix.AF_INET6:
		a := netip.AddrFrom16(sa.Addr).Unmap()
		if sa.Scope_id != 0 && a.Is6() {
			a = a.WithZone(strconv.FormatUint(uint64(sa.Scope_id), 10))
		}
		return netip.AddrPortFrom(a, netPort(sa.Port))
	}
	return netip.AddrPort{}
}

// addrPortToSockaddr encodes to for the socket's family into sa; false when it cannot be sent
// from this socket (an IPv6 peer on an IPv4 socket).
func (m *mmsgBatch) addrPortToSockaddr(to netip.AddrPort, sa *unix.RawSockaddrInet6, n *uint32) bool {
	a := to.Addr()
	if !m.six {
		if !a.Unmap().Is4() {
			return false
		}
		sa4 := (*unix.RawSockaddrInet4)(unsafe.Pointer(sa))
		*sa4 = unix.RawSockaddrInet4{Family: unix.AF_INET, Port: rawPort(to.Port()), Addr: a.Unmap().As4()}
		*n = unix.SizeofSockaddrInet4
		return true
	}
	*sa = unix.RawSockaddrInet6{Family: unix.AF_INET6, Port: rawPort(to.Port()), Addr: a.As16()}
	if z := a.Zone(); z != "" {
		if id, err := strconv.ParseUint(z, 10, 32); err == nil {
			sa.Scope_id = uint32(id)
		}
	}
	*n = unix.SizeofSockaddrInet6
	return true
}

// netPort reads a sockaddr's port field (network byte order in memory).
func netPort(p uint16) uint16 {
	b := (*[2]byte)(unsafe.Pointer(&p))
	return binary.BigEndian.Uint16(b[:])
}

// rawPort is a port as a sockaddr's port field holds it (network byte order in memory).
func rawPort(port uint16) uint16 {
	var p uint16
	binary.BigEndian.PutUint16((*[2]byte)(unsafe.Pointer(&p))[:], port)
	return p
}
