package session

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/linksim"
	"github.com/rtype/rtype/net/transport"
)

// Session is one client's connection to a game instance: the Client core run over a UDP socket
// in real time by two goroutines (a 60 Hz tick and a receive loop) plus one that delivers events.
type Session struct {
	sock   transport.Socket
	server netip.AddrPort
	epoch  time.Time

	mu      sync.Mutex
	c       *Client
	sendErr error // the first failed write (guarded by mu)

	events    chan Event
	notify    chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
	rbuf      [2048]byte
}

// Dial binds a UDP socket, says HERE until WELCOME (or ctx ends) and starts the session's
// goroutines: a 60 Hz input/send loop and a receive loop.
func Dial(ctx context.Context, cfg Config) (*Session, error) {
	ap, err := netip.ParseAddrPort(cfg.Addr)
	if err != nil {
		ua, rerr := net.ResolveUDPAddr("udp", cfg.Addr)
		if rerr != nil {
			return nil, fmt.Errorf("session: server address %q: %w", cfg.Addr, rerr)
		}
		ap = ua.AddrPort()
	}
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	if cfg.Socket != nil {
		return DialSocket(ctx, cfg, cfg.Socket, ap)
	}
	us, err := transport.ListenUDP(bindFor(ap))
	if err != nil {
		return nil, err
	}
	var sock transport.Socket = us
	if cfg.NetSim != "" {
		nc, err := linksim.Parse(cfg.NetSim)
		if err != nil {
			us.Close()
			return nil, err
		}
		sock = linksim.Wrap(us, nc, nc)
	}
	return DialSocket(ctx, cfg, sock, ap)
}

// DialSocket is Dial over a given socket (tests use the link simulator); the session owns sock.
func DialSocket(ctx context.Context, cfg Config, sock transport.Socket, server netip.AddrPort) (*Session, error) {
	s := &Session{sock: sock, server: server, epoch: time.Now(),
		events: make(chan Event, 1024), notify: make(chan struct{}, 1), done: make(chan struct{})}
	s.c = NewClient(ClientConfig{Server: server, UUID: cfg.UUID, Token: cfg.Token, Key: cfg.Key, Terrain: cfg.Terrain, Run: cfg.Run}, 0)
	s.wg.Add(3)
	go func() { defer s.wg.Done(); s.receiveLoop() }()
	go func() { defer s.wg.Done(); s.sendLoop() }()
	go func() { defer s.wg.Done(); s.eventLoop() }()
	deadline := time.NewTimer(WelcomeTimeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ok := s.c.Welcomed()
		s.mu.Unlock()
		if ok {
			return s, nil
		}
		select {
		case <-ctx.Done():
			s.shutdown(false, "")
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				// the caller's deadline ran out waiting for WELCOME: say so (which UDP port did
				// not answer), not only "deadline exceeded"
				return nil, errors.Join(s.noWelcome(), ctx.Err())
			}
			return nil, ctx.Err()
		case <-deadline.C:
			s.shutdown(false, "")
			return nil, s.noWelcome()
		case <-s.done:
			return nil, s.noWelcome()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (s *Session) now() time.Duration { return time.Since(s.epoch) }

// flush sends the core's outbox and wakes the event loop when events are queued (s.mu held).
func (s *Session) flush() {
	s.c.out.Flush(s.send)
	if s.c.PendingEvents() > 0 {
		select {
		case s.notify <- struct{}{}:
		default:
		}
	}
}

// send writes one datagram (s.mu held); the first error is kept for Dial's NoWelcomeError.
func (s *Session) send(b []byte, to netip.AddrPort) {
	if _, err := s.sock.WriteTo(b, to); err != nil && s.sendErr == nil {
		s.sendErr = err
	}
}

func (s *Session) noWelcome() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &NoWelcomeError{Server: s.server, SendErr: s.sendErr}
}

// SetInput sets the buttons held now (Client.SetInput); it never blocks and may be called from
// inside View's callback.
func (s *Session) SetInput(b game.Buttons) { s.c.SetInput(b) }

// View calls fn with the mirror world under the session lock; fn must not retain v, and must not
// call View, Stats or Close (SetInput is fine).
func (s *Session) View(fn func(v *View)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.c.View(s.now(), fn)
	s.flush()
}

// Events delivers reliable server events in order; it is closed when the session ends.
func (s *Session) Events() <-chan Event { return s.events }

// Done is closed when the session has ended (GAME_END, BYE, timeout or Close).
func (s *Session) Done() <-chan struct{} { return s.done }

// Close says BYE and releases the socket and goroutines.
func (s *Session) Close() error {
	s.shutdown(true, "closed")
	return nil
}

func (s *Session) shutdown(bye bool, reason string) {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.c.Close(s.now(), bye, reason)
		s.flush()
		s.mu.Unlock()
		close(s.done)
		go func() {
			// let the event loop flush, then release the socket
			s.sock.Close()
		}()
	})
}

// LobbyLost tells the session that the lobby connection to its server ended without the client
// closing it (Client.LobbyLost): a silence of InterruptedAfter then ends the session.
func (s *Session) LobbyLost() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.c.LobbyLost(s.now())
}

// WatchLobby calls LobbyLost when done is closed (a lobby.Client's Done) and lost, called then,
// reports true (the connection was not closed by the client itself); it returns when the session
// ends.
func (s *Session) WatchLobby(done <-chan struct{}, lost func() bool) {
	go func() {
		select {
		case <-done:
			if lost() {
				s.LobbyLost()
			}
		case <-s.done:
		}
	}()
}

// Wait blocks until every goroutine of the session has ended (after Done).
func (s *Session) Wait() { s.wg.Wait() }

// Stats returns the link-quality figures now.
func (s *Session) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c.Stats()
}

// sendLoop ticks the core at 60 Hz.
func (s *Session) sendLoop() {
	t := time.NewTicker(game.TickPeriod)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
		}
		s.mu.Lock()
		s.c.Tick(s.now())
		s.flush()
		end, why := s.c.CloseRequested()
		s.mu.Unlock()
		if end {
			s.shutdown(false, why)
			return
		}
	}
}

// receiveLoop reads the server's datagrams into the core; others are dropped and counted.
func (s *Session) receiveLoop() {
	transport.ReadLoop(s.sock, s.rbuf[:], s.done, func(b []byte, from netip.AddrPort) {
		s.mu.Lock()
		if from != s.server {
			s.c.stats.Dropped++
			s.mu.Unlock()
			return
		}
		s.c.Receive(s.now(), b)
		s.flush()
		end, why := s.c.CloseRequested()
		s.mu.Unlock()
		if end {
			go s.shutdown(false, why)
		}
	})
}

// eventLoop moves queued events to the Events channel in order, then closes it.
func (s *Session) eventLoop() {
	defer close(s.events)
	var q []Event
	for {
		s.mu.Lock()
		q = s.c.TakeEvents(q[:0])
		s.mu.Unlock()
		for _, ev := range q {
			s.events <- ev // a reader that never reads blocks only this goroutine
		}
		select {
		case <-s.notify:
		case <-s.done:
			s.mu.Lock()
			q = s.c.TakeEvents(q[:0])
			s.mu.Unlock()
			for _, ev := range q {
				select {
				case s.events <- ev:
				default:
				}
			}
			return
		}
	}
}
