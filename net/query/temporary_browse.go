// Temporary: replaced by the query branch at merge (delete this file then: the query branch
// declares the same names). The browse branch needs only Info, Ping and DiscoverLAN, with the
// signatures agreed for issue 33, to compile; here they answer ErrTemporary.

// Package query is the A2S query and LAN discovery (temporary copy of its client side).
package query

import (
	"context"
	"errors"
	"net/netip"
	"time"
)

// Info is what A2S_INFO (or a LAN answer) says of a server.
type Info struct {
	Name       string
	Map        string
	Players    int
	MaxPlayers int
	Version    string
	Protocol   int
	Password   bool
	Addr       string // lobby TCP address host:port
}

// ErrTemporary: this copy does not query (the query branch does).
var ErrTemporary = errors.New("query: not in this build (temporary copy)")

// Ping asks addr for A2S_INFO (with its challenge) and measures the round trip.
func Ping(ctx context.Context, addr netip.AddrPort) (Info, time.Duration, error) {
	return Info{}, 0, ErrTemporary
}

// DiscoverLAN probes the local network on ports and collects the answers until ctx ends.
func DiscoverLAN(ctx context.Context, ports []int) ([]Info, error) {
	<-ctx.Done()
	return nil, ErrTemporary
}
