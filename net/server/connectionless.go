package server

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/serverlist"
)

// Answerer answers one kind of connectionless datagram (the FF FF FF FF ones: the server list's
// token, server queries, LAN discovery): it returns false for a datagram that is not its own,
// and replies, never more than it got before the sender is proven, through reply. It runs on a
// socket's reader: it must not block, and b is valid only during the call.
type Answerer func(b []byte, from netip.AddrPort, reply func([]byte, netip.AddrPort) error) bool

// querySource is what the answerers know of the server: the list registration's secret and the
// server's entry now (the same facts the lists get).
type querySource struct {
	secret string // "": not listed, the token is not answered
	entry  atomic.Pointer[func() serverlist.Entry]
}

// Entry is the server's entry now (zero until the lobby runs).
func (q *querySource) Entry() serverlist.Entry {
	if f := q.entry.Load(); f != nil {
		return (*f)()
	}
	return serverlist.Entry{}
}

func (q *querySource) setEntry(f func() serverlist.Entry) { q.entry.Store(&f) }

// answerers are the connectionless answerers of the game socket and of a split lobby's query
// socket, in the order they are asked.
func answerers(q *querySource) []Answerer {
	var as []Answerer
	if q.secret != "" {
		as = append(as, serverlist.AnswerToken(q.secret)) // docs/PROTOCOL.md §11.3
	}
	return as
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

// serveQuery is a split lobby's UDP query socket (it has no game socket): one reader that gives
// every connectionless datagram within its source's rate (rate per second, bursts of twice as
// many; instance.DefaultRateLimit when 0, none when negative) to the answerers, until ctx ends.
func serveQuery(ctx context.Context, conn *net.UDPConn, as []Answerer, rate int) {
	reply := func(b []byte, to netip.AddrPort) error {
		_, err := conn.WriteToUDPAddrPort(b, to)
		return err
	}
	handle := compose(as, reply)
	if rate == 0 {
		rate = instance.DefaultRateLimit
	}
	var lim *instance.RateLimiter
	if rate > 0 {
		lim = instance.NewRateLimiter(rate, 0)
	}
	stop := context.AfterFunc(ctx, func() { conn.SetReadDeadline(time.Now()) })
	defer stop()
	start := time.Now()
	buf := make([]byte, 2048)
	for {
		n, from, err := conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			var ne net.Error
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) || (errors.As(err, &ne) && ne.Timeout()) {
				return
			}
			continue
		}
		if lim != nil && !lim.Allow(time.Since(start), from) {
			continue
		}
		if handle != nil {
			handle(buf[:n], netip.AddrPortFrom(from.Addr().Unmap(), from.Port()))
		}
	}
}
