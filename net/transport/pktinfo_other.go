//go:build !linux

package transport

import (
	"net"
	"net/netip"

	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

// oobSize is the control buffer of one datagram.
const oobSize = 128

// parseDst returns the destination address of a datagram's IP_PKTINFO or IPV6_PKTINFO control
// message (golang.org/x/net), or the zero Addr.
func parseDst(oob []byte) netip.Addr {
	var c6 ipv6.ControlMessage
	if c6.Parse(oob) == nil && c6.Dst != nil {
		if a, ok := netip.AddrFromSlice(c6.Dst); ok {
			return a.Unmap()
		}
	}
	var c4 ipv4.ControlMessage
	if c4.Parse(oob) == nil && c4.Dst != nil {
		if a, ok := netip.AddrFromSlice(c4.Dst); ok {
			return a.Unmap()
		}
	}
	return netip.Addr{}
}

// putSrc writes into oob the control message that sends a datagram from src and returns its
// length (0 where it does not fit).
func putSrc(oob []byte, src netip.Addr, six bool) int {
	var b []byte
	if six { // IPv4 peers of an AF_INET6 socket: a v4-mapped source
		b = (&ipv6.ControlMessage{Src: net.IP(netip.AddrFrom16(src.As16()).AsSlice())}).Marshal()
	} else {
		b = (&ipv4.ControlMessage{Src: net.IP(src.AsSlice())}).Marshal()
	}
	if len(b) > len(oob) {
		return 0
	}
	return copy(oob, b)
}
