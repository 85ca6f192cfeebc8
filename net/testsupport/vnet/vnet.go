// Package vnet is test support: a datagram network in virtual time for deterministic netcode
// tests, each host's links impaired by the link simulator (net/linksim's Pipe, the same one a
// real socket's -netsim runs), used by net/testsupport/simgame.
package vnet

import (
	"net/netip"
	"time"

	"github.com/rtype/rtype/net/linksim"
)

// Network is a datagram network in virtual time for deterministic tests: hosts attached at
// addresses, each with an impaired uplink (what it sends) and downlink (what it receives). It owns
// no goroutine and no clock: the test's loop asks Next for the moment the next datagram arrives,
// advances its own clock, and calls Deliver. With the same seeds and the same calls, every run
// delivers the same datagrams at the same virtual times. Not safe for concurrent use.
type Network struct {
	hosts map[netip.AddrPort]*host
	order []*host // attach order: deterministic scans
}

type host struct {
	addr     netip.AddrPort
	up, down *linksim.Pipe
	recv     func(now time.Duration, from netip.AddrPort, b []byte)
}

// New returns an empty network.
func New() *Network { return &Network{hosts: map[netip.AddrPort]*host{}} }

// Attach adds a host at addr whose sent datagrams go through up and received ones through down;
// recv is called with each datagram delivered to it (b is valid only during the call).
func (n *Network) Attach(addr netip.AddrPort, up, down linksim.Config, recv func(now time.Duration, from netip.AddrPort, b []byte)) {
	// both directions draw different streams; seed 0 means 1, so compare effective seeds
	if up.Seed == 0 {
		up.Seed = 1
	}
	if down.Seed == 0 {
		down.Seed = 1
	}
	if down.Seed == up.Seed {
		down.Seed = up.Seed + 1
	}
	h := &host{addr: addr, up: linksim.NewPipe(up), down: linksim.NewPipe(down), recv: recv}
	n.hosts[addr] = h
	n.order = append(n.order, h)
}

// Detach removes the host at addr: datagrams still on its uplink are delivered, those sent to it
// from now on are lost (a NAT mapping that expired).
func (n *Network) Detach(addr netip.AddrPort) {
	h := n.hosts[addr]
	if h == nil {
		return
	}
	delete(n.hosts, addr)
	h.recv = nil
	// keep h in order until its uplink is empty: its datagrams in flight still leave
}

// SetConfig changes the impairment of addr's links for datagrams sent from now on.
func (n *Network) SetConfig(addr netip.AddrPort, up, down linksim.Config) {
	if h := n.hosts[addr]; h != nil {
		h.up.SetConfig(up)
		h.down.SetConfig(down)
	}
}

// Dropped returns how many datagrams addr's uplink and downlink dropped.
func (n *Network) Dropped(addr netip.AddrPort) (up, down uint64) {
	if h := n.hosts[addr]; h != nil {
		return h.up.Dropped(), h.down.Dropped()
	}
	return 0, 0
}

// Send submits b (copied) from → to at now. A datagram from an unattached address, or to one,
// is lost once it leaves the uplink.
func (n *Network) Send(now time.Duration, from, to netip.AddrPort, b []byte) {
	if h := n.hosts[from]; h != nil {
		h.up.Send(now, b, from, to)
	}
}

// Next returns the virtual time at which the next datagram moves (leaves an uplink or arrives);
// ok is false when nothing is in flight.
func (n *Network) Next() (at time.Duration, ok bool) {
	for _, h := range n.order {
		for _, p := range [2]*linksim.Pipe{h.up, h.down} {
			if d, has := p.Next(); has && (!ok || d < at) {
				at, ok = d, true
			}
		}
	}
	return at, ok
}

// Deliver moves every datagram due at or before now, in time order: off its uplink onto the
// destination's downlink, and off downlinks to their host's recv. Datagrams recv sends at now
// with no delay are delivered in the same call.
func (n *Network) Deliver(now time.Duration) {
	for {
		var best *linksim.Pipe
		var bestAt time.Duration
		var bestUp bool
		for _, h := range n.order {
			if d, ok := h.up.Next(); ok && d <= now && (best == nil || d < bestAt) {
				best, bestAt, bestUp = h.up, d, true
			}
			if d, ok := h.down.Next(); ok && d <= now && (best == nil || d < bestAt) {
				best, bestAt, bestUp = h.down, d, false
			}
		}
		if best == nil {
			return
		}
		best.Pop(now, func(b []byte, from, to netip.AddrPort) {
			dst := n.hosts[to]
			if dst == nil {
				return
			}
			if bestUp {
				dst.down.Send(bestAt, b, from, to)
			} else if dst.recv != nil {
				dst.recv(bestAt, from, b)
			}
		})
	}
}
