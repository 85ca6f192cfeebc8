package transport

import (
	"net/netip"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The control messages of IP_PKTINFO and IPV6_PKTINFO, read and written without allocating (the
// hot path; golang.org/x/net's ControlMessage.Parse and Marshal allocate per datagram). Other
// systems use x/net's (pktinfo_other.go).

// oobSize is the control buffer of one datagram: room for one in6_pktinfo (the larger) and slack.
const oobSize = 64

var cmsgHdrLen = unix.CmsgLen(0)

// parseDst returns the destination address in the IP_PKTINFO or IPV6_PKTINFO message of oob
// (v4-mapped addresses unmapped), or the zero Addr when it has none.
func parseDst(oob []byte) netip.Addr {
	for len(oob) >= cmsgHdrLen {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		l := int(h.Len)
		if l < cmsgHdrLen || l > len(oob) {
			return netip.Addr{}
		}
		data := oob[cmsgHdrLen:l]
		switch {
		case h.Level == unix.IPPROTO_IP && h.Type == unix.IP_PKTINFO && len(data) >= unix.SizeofInet4Pktinfo:
			pi := (*unix.Inet4Pktinfo)(unsafe.Pointer(&data[0]))
			return netip.AddrFrom4(pi.Addr)
		case h.Level == unix.IPPROTO_IPV6 && h.Type == unix.IPV6_PKTINFO && len(data) >= unix.SizeofInet6Pktinfo:
			pi := (*unix.Inet6Pktinfo)(unsafe.Pointer(&data[0]))
			return netip.AddrFrom16(pi.Addr).Unmap()
		}
		next := unix.CmsgSpace(l - cmsgHdrLen)
		if next > len(oob) {
			return netip.Addr{}
		}
		oob = oob[next:]
	}
	return netip.Addr{}
}

// putSrc writes into oob (oobSize bytes) the control message that sends a datagram from src over
// a socket of the given family (six: AF_INET6, where IPv4 peers are v4-mapped and Linux takes an
// IPV6_PKTINFO with a v4-mapped source for them) and returns its length. The interface index is
// left 0: the route to the peer picks it.
func putSrc(oob []byte, src netip.Addr, six bool) int {
	clear(oob[:oobSize])
	h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
	data := oob[cmsgHdrLen:]
	if !six {
		h.Level, h.Type = unix.IPPROTO_IP, unix.IP_PKTINFO
		h.SetLen(unix.CmsgLen(unix.SizeofInet4Pktinfo))
		pi := (*unix.Inet4Pktinfo)(unsafe.Pointer(&data[0]))
		pi.Spec_dst = src.Unmap().As4()
		return unix.CmsgSpace(unix.SizeofInet4Pktinfo)
	}
	h.Level, h.Type = unix.IPPROTO_IPV6, unix.IPV6_PKTINFO
	h.SetLen(unix.CmsgLen(unix.SizeofInet6Pktinfo))
	pi := (*unix.Inet6Pktinfo)(unsafe.Pointer(&data[0]))
	pi.Addr = src.As16()
	return unix.CmsgSpace(unix.SizeofInet6Pktinfo)
}
