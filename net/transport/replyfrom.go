package transport

import (
	"hash/maphash"
	"net/netip"
	"sync"
)

// Replying from the address a datagram arrived at.
//
// A socket bound to every interface (0.0.0.0 or ::, the server's default) receives datagrams
// sent to any of the host's addresses, but the kernel picks the source address of what it sends
// from its routing table: a client that reached the host's second address (a floating IP,
// another IPv6 address, 127.0.0.2) would get its replies from the first and drop them. Such a
// socket asks for each datagram's destination address (IP_PKTINFO, IPV6_RECVPKTINFO, through
// golang.org/x/net's ipv4/ipv6 SetControlMessage), remembers it per peer in a localTable, and
// sends to that peer from that address (the same control message on the way out). Sockets bound
// to one address need none of it and do none of it.

// localSets × localWays is how many peers a localTable remembers; a peer it forgot (evicted by
// newer peers in its set) gets its replies from the address the kernel picks until its next
// datagram, which is what a socket without the table does for everyone.
const (
	localSets = 4096
	localWays = 4
)

// localTable remembers, per peer address, the local address its latest datagram arrived at. Its
// memory is fixed (a set-associative cache: a stranger spraying datagrams from many addresses
// evicts the least recently seen peers of a set, never grows it), and it allocates nothing.
// Safe for one goroutine noting and many looking up.
type localTable struct {
	seed maphash.Seed
	sets [localSets]localSet
}

type localSet struct {
	mu   sync.Mutex
	tick uint32
	ways [localWays]localEntry
}

type localEntry struct {
	peer  netip.AddrPort
	local netip.Addr
	used  uint32 // the set's tick when the peer last sent
}

// limitedBroadcast is 255.255.255.255.
var limitedBroadcast = netip.AddrFrom4([4]byte{255, 255, 255, 255})

func newLocalTable() *localTable { return &localTable{seed: maphash.MakeSeed()} }

func (t *localTable) set(peer netip.AddrPort) *localSet {
	return &t.sets[maphash.Comparable(t.seed, peer)%localSets]
}

// note records that a datagram from peer arrived at local. A datagram sent to a multicast
// group or to the IPv4 limited broadcast (a LAN discovery probe, net/query) arrived at no address
// a reply can come from: it is not noted, the kernel picks the reply's source.
func (t *localTable) note(peer netip.AddrPort, local netip.Addr) {
	if !peer.IsValid() || !local.IsValid() || local.IsMulticast() || local == limitedBroadcast {
		return
	}
	s := t.set(peer)
	s.mu.Lock()
	s.tick++
	old, empty := 0, -1
	for i := range s.ways {
		e := &s.ways[i]
		switch {
		case e.peer == peer:
			e.local, e.used = local, s.tick
			s.mu.Unlock()
			return
		case !e.peer.IsValid():
			if empty < 0 {
				empty = i
			}
		case s.tick-e.used > s.tick-s.ways[old].used:
			old = i // the least recently seen (ages counted in the set's ticks, wrapping)
		}
	}
	if empty >= 0 {
		old = empty
	}
	s.ways[old] = localEntry{peer: peer, local: local, used: s.tick}
	s.mu.Unlock()
}

// lookup returns the local address peer's latest datagram arrived at, if the table has it.
func (t *localTable) lookup(peer netip.AddrPort) (netip.Addr, bool) {
	s := t.set(peer)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.ways {
		if s.ways[i].peer == peer {
			return s.ways[i].local, true
		}
	}
	return netip.Addr{}, false
}
