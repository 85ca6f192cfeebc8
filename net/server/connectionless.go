package server

import (
	"net"
	"net/netip"
	"sync/atomic"

	"github.com/rtype/rtype/net/instance"
)

// Answerer answers one kind of connectionless datagram (the FF FF FF FF ones: server queries,
// LAN discovery, the server list's token): it returns false for a datagram that is not its own,
// and replies, never more than it got before the sender is proven, through reply. It runs on a
// socket's reader: it must not block, and b is valid only during the call.
type Answerer func(b []byte, from netip.AddrPort, reply func([]byte, netip.AddrPort) error) bool

// answerers are the connectionless answerers of the game socket, in the order they are asked.
func answerers(q *queryState) []Answerer {
	return []Answerer{q.answerer.Answer} // A2S and LAN discovery, docs/PROTOCOL.md §12, §13
}

// compose is instance.Config.Connectionless from answerers that reply through reply.
func compose(as []Answerer, reply func([]byte, netip.AddrPort) error) func(b []byte, from netip.AddrPort) bool {
	if len(as) == 0 {
		return nil
	}
	return func(b []byte, from netip.AddrPort) bool {
		for _, a := range as {
			if a(b, from, reply) {
				return true
			}
		}
		return false
	}
}

// managerReply replies from the game socket of the Manager m will hold (datagrams may come
// before NewManager returns: they are not answered).
func managerReply(m *atomic.Pointer[instance.Manager]) func([]byte, netip.AddrPort) error {
	return func(b []byte, to netip.AddrPort) error {
		if mgr := m.Load(); mgr != nil {
			return mgr.WriteTo(b, to)
		}
		return net.ErrClosed
	}
}
