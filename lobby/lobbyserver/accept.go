package lobbyserver

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"time"
)

// accept is Serve's accept loop: each connection goes to the Core (Open: the connection
// limits), then gets its reader and writer goroutines; one over a limit gets the Core's 500
// line and is closed. It returns when ctx is done (nil) or ln is closed by someone else.
func (s *Server) accept(ctx context.Context, ln net.Listener) error {
	const minBackoff = 5 * time.Millisecond
	backoff := minBackoff
	var failures uint64 // accept errors in the current burst
	for {
		nc, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return err // closed by someone else: nothing more will come
			}
			s.core.stats.acceptErrors.Add(1)
			if failures == 0 {
				s.log.Warn("lobby accept failed; retrying with backoff", "err", err)
			}
			failures++
			t := time.NewTimer(backoff)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		if failures > 0 {
			s.log.Info("lobby accepting again", "failed_accepts", failures)
			failures = 0
		}
		backoff = minBackoff
		c, refuse := s.admit(nc, remoteIP(nc), false)
		if refuse != nil {
			continue
		}
		go s.serveConn(c)
	}
}

// admit hands the connection nc from ip to the Core (Open: the connection limits). Over a
// limit, nc gets the Core's 500 line (best effort, without blocking) and is closed, and admit
// returns the line; otherwise the connection is registered and the caller must run
// s.serveConn on it. ws marks a WebSocket connection (ServeConn), which is closed and gets a
// nil conn when Serve does not run or shuts down (Serve's accept loop is its own guard).
func (s *Server) admit(nc net.Conn, ip netip.Addr, ws bool) (c *conn, refuse []byte) {
	s.mu.Lock()
	if ws && (s.ctx == nil || s.closing || s.ctx.Err() != nil) {
		s.mu.Unlock()
		nc.Close()
		return nil, nil
	}
	s.nextID++
	c = &conn{id: s.nextID, nc: nc, wake: make(chan struct{}, 1)}
	refuse = s.core.Open(s.now(), c.id, ip)
	if refuse == nil {
		s.conns[c.id] = c
		s.wg.Add(1)
	}
	s.dispatch()
	s.mu.Unlock()
	if refuse != nil {
		nc.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
		nc.Write(refuse)
		nc.Close()
	}
	return c, refuse
}

// ErrNotServing is ServeConn's answer before Serve runs or once it shuts down.
var ErrNotServing = errors.New("lobby: not serving")

// ServeConn serves nc, a connection accepted elsewhere (the web address's WebSocket, docs/
// PROTOCOL.md §2.1), as if Serve had accepted it from IP address ip: the same Core, the same
// limits (ip counts for the per-address ones), the same lines. It blocks until the connection
// is closed (by either side, or by Serve's shutdown, which flushes what is queued first); a
// connection over a limit gets its 500 line and is closed at once. Before Serve runs or once it
// shuts down, nc is closed and ServeConn returns ErrNotServing.
func (s *Server) ServeConn(nc net.Conn, ip netip.Addr) error {
	c, refuse := s.admit(nc, ip, true)
	if c == nil {
		return ErrNotServing
	}
	if refuse != nil {
		return nil
	}
	s.serveConn(c)
	return nil
}
