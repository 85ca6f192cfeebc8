package lobbyserver

import (
	"context"
	"errors"
	"net"
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
		s.mu.Lock()
		s.nextID++
		c := &conn{id: s.nextID, nc: nc, wake: make(chan struct{}, 1)}
		refuse := s.core.Open(s.now(), c.id, remoteIP(nc))
		if refuse == nil {
			s.conns[c.id] = c
			s.wg.Add(1)
		}
		s.dispatch()
		s.mu.Unlock()
		if refuse != nil {
			// Best effort, without blocking the accept loop.
			nc.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
			nc.Write(refuse)
			nc.Close()
			continue
		}
		go s.serveConn(c)
	}
}
