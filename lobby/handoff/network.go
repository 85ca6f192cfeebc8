package handoff

import "net/netip"

// IPv6PrefixLen is the prefix length under which IPv6 addresses count as one source network
// for the per-address limits of the lobby (docs/PROTOCOL.md §2.3) and of the game runtime
// (CHALLENGE, §6 rule 8): a /64 is what one subscriber usually gets.
const IPv6PrefixLen = 64

// SourceNetwork is the network a peer at ip counts as for the per-address limits, the lobby's
// and the game runtime's alike: an IPv4 address (also IPv4-mapped) as a /32, an IPv6 address's
// /64 (zone dropped); the zero Prefix for an invalid ip.
func SourceNetwork(ip netip.Addr) netip.Prefix {
	ip = ip.Unmap().WithZone("")
	switch {
	case !ip.IsValid():
		return netip.Prefix{}
	case ip.Is4():
		return netip.PrefixFrom(ip, 32)
	}
	p, _ := ip.Prefix(IPv6PrefixLen) // a valid IPv6 address and length: no error
	return p
}
