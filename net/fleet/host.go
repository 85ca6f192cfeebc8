package fleet

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/replay"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/metrics/logsample"
)

// DefaultCapacity is a host's games at once unless configured (-capacity): well within what
// one core holds (docs/BENCHMARKS.md: 150–300 four-player games).
const DefaultCapacity = 64

// The control port's limits on connections in their handshake (docs/CONTROL.md §2): a stranger
// needs no secret to open one, so each is bounded in time (HostHandshakeTimeout), per address
// (MaxHandshakesPerAddr: more from one address are refused at once) and in all (MaxHandshakes:
// when they are all taken, a connection from an address holding fewer than the most takes the
// oldest of the address holding the most; one from an address holding as many is refused). A
// lobby, from its own address, holds at most one: strangers cannot keep it out.
const (
	MaxHandshakes        = 64
	MaxHandshakesPerAddr = 4
	// HostHandshakeTimeout bounds the host's side of a handshake (TLS included): a lobby
	// answers within a round trip or two.
	HostHandshakeTimeout = 2 * time.Second
	// RefusedLogEvery is the window of the refused connections' log lines: one per reason and
	// address per window, then a count of the others (net/metrics/logsample).
	RefusedLogEvery = 10 * time.Second
)

// HostConfig configures a Host.
type HostConfig struct {
	// Secret is the control secret (RTYPE_CONTROL_SECRET) a lobby must prove.
	Secret []byte
	// TLS, when set, makes the control port mutual TLS (LoadTLS with server true): a lobby
	// must present a certificate of its CA, and the handshake proves the TLS session's exported
	// keys (with Secret, when set, too).
	TLS *tls.Config
	// Starter runs the games (net/instance.Manager).
	Starter handoff.Starter
	// Stages are the host's own stage files (-stage): a start naming one of their hashes plays
	// it; the lobby sends the others (docs/CONTROL.md §4.2). nil: none.
	Stages *stagefile.Catalogue
	// Capacity is the number of games the host takes at once (0: DefaultCapacity).
	Capacity int
	// PublicHost is the host players send UDP to, sent in every start reply; "" lets the lobby
	// use the host of the control address it dialled.
	PublicHost string
	Logger     *slog.Logger
	// OnLoad, when set, is called after each change of the load (the Agones counter).
	OnLoad func(Load)
	// StageCacheBytes bounds the bytes of the stage files the host keeps for one lobby
	// connection (0: DefaultStageCacheBytes; docs/CONTROL.md §4.2).
	StageCacheBytes int
	// Ping is the heartbeat interval (0: PingInterval; tests shorten it), and the lobby is
	// dead after 5 of them without a message.
	Ping time.Duration
	// Report, when set, gives an ended game's record and replay file (nil: none), sent to
	// its lobby before the game's ended (docs/CONTROL.md §4.1; net/server: GameRecord and
	// instance.Instance.Replay). spec is the game's start as the host got it.
	Report func(spec handoff.GameSpec, g handoff.Game) (*Record, []byte)
}

// Host is a game host's control endpoint (-role host, -control): it serves authenticated
// lobbies the games of its Starter (docs/CONTROL.md). A stranger who reaches the port without
// the secret gets the host's nonce and nothing else: it cannot start, end or list games.
type Host struct {
	cfg HostConfig
	log *slog.Logger
	hs  handshakes

	mu       sync.Mutex
	games    int
	draining bool
	sessions map[*hostSession]struct{}
	wg       sync.WaitGroup
}

// NewHost returns a Host for cfg.
func NewHost(cfg HostConfig) *Host {
	if cfg.Capacity <= 0 {
		cfg.Capacity = DefaultCapacity
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Ping <= 0 {
		cfg.Ping = PingInterval
	}
	h := &Host{cfg: cfg, log: cfg.Logger, sessions: map[*hostSession]struct{}{}}
	h.hs = handshakes{log: cfg.Logger, epoch: time.Now(), byAddr: map[string][]*handshake{},
		refused: logsample.New[refusal, string](RefusedLogEvery)}
	return h
}

// Load is the host's load now.
func (h *Host) Load() Load {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.loadLocked()
}

func (h *Host) loadLocked() Load {
	return Load{Games: h.games, Capacity: h.cfg.Capacity, Draining: h.draining}
}

// Drain stops taking games (SIGTERM on Agones): running ones go on; every lobby is told.
func (h *Host) Drain() {
	h.mu.Lock()
	h.draining = true
	ss := h.sessionsLocked()
	l := h.loadLocked()
	h.mu.Unlock()
	for _, s := range ss {
		s.send(&Msg{Type: TypeLoad, Load: &l})
	}
	h.notify(l)
}

func (h *Host) sessionsLocked() []*hostSession {
	out := make([]*hostSession, 0, len(h.sessions))
	for s := range h.sessions {
		out = append(out, s)
	}
	return out
}

func (h *Host) notify(l Load) {
	if h.cfg.OnLoad != nil {
		h.cfg.OnLoad(l)
	}
}

// Serve accepts lobby connections on ln until ctx is cancelled, then closes them (their games
// are aborted: see hostSession.run) and returns once every goroutine it started has ended.
func (h *Host) Serve(ctx context.Context, ln net.Listener) error {
	if h.cfg.TLS != nil {
		ln = tls.NewListener(ln, h.cfg.TLS)
	}
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	flushed, quit := make(chan struct{}), make(chan struct{})
	go func() { // the refused connections' counts, when a flood ends
		defer close(flushed)
		t := time.NewTicker(RefusedLogEvery)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				h.hs.flush()
			}
		}
	}()
	h.log.Info("control address listening", "addr", ln.Addr().String(), "capacity", h.cfg.Capacity, "mtls", h.cfg.TLS != nil)
	var err error
	for {
		var nc net.Conn
		nc, err = ln.Accept()
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
				// EMFILE and the like: wait a little rather than spin, then accept again.
				h.log.Warn("control accept failed", "err", err)
				select {
				case <-time.After(50 * time.Millisecond):
					continue
				case <-ctx.Done():
				}
			}
			break
		}
		hs := h.hs.admit(nc)
		if hs == nil {
			nc.Close()
			continue
		}
		h.wg.Add(1)
		go h.serveConn(ctx, nc, hs)
	}
	close(quit)
	<-flushed
	h.mu.Lock()
	ss := h.sessionsLocked()
	h.mu.Unlock()
	for _, s := range ss {
		s.c.Close()
	}
	h.wg.Wait()
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func (h *Host) serveConn(ctx context.Context, nc net.Conn, hs *handshake) {
	defer h.wg.Done()
	deadline := time.Now().Add(HostHandshakeTimeout)
	nc.SetDeadline(deadline)
	secret, err := channelSecret(nc, h.cfg.Secret)
	var c *Conn
	if err == nil {
		c, err = serverHandshake(nc, secret, nil, deadline)
	}
	evicted := h.hs.done(hs) // nc was closed under it: the connection is gone
	if err != nil || evicted {
		why := reasonFailed
		switch {
		case evicted:
			why = reasonEvicted
		case errors.Is(err, os.ErrDeadlineExceeded):
			why = reasonTimeout
		}
		detail := ""
		if err != nil {
			detail = err.Error()
		}
		h.hs.refuse(why, hs.addr, detail)
		nc.Close()
		return
	}
	s := &hostSession{h: h, c: c, games: map[uint64]handoff.Game{}, stages: newStageCache(h.cfg.StageCacheBytes),
		log: h.log.With("lobby", nc.RemoteAddr().String())}
	h.mu.Lock()
	h.sessions[s] = struct{}{}
	h.mu.Unlock()
	s.log.Info("lobby connected")
	s.run(ctx)
	h.mu.Lock()
	delete(h.sessions, s)
	h.mu.Unlock()
}

// hostSession is one authenticated lobby's connection and the games it started.
type hostSession struct {
	h   *Host
	c   *Conn
	log *slog.Logger

	mu    sync.Mutex
	games map[uint64]handoff.Game
	// stages are the stage files the lobby sent on this connection (stages.go).
	stages *stageCache
	wg     sync.WaitGroup // watch goroutines
	// endMu keeps each game's replay parts and ended together on the connection: the lobby
	// holds one replay at a time (replayParts).
	endMu sync.Mutex
}

// aborter is a game that can be ended on the host's behalf (net/instance.Instance.Abort).
type aborter interface{ Abort() }

func (s *hostSession) send(m *Msg) {
	if err := s.c.Write(encode(m)); err != nil {
		s.c.Close() // the reader sees it and ends the session
	}
}

// run serves the session's requests until the connection fails or the lobby falls silent;
// then its games are aborted (their lobby is gone: nobody could learn their end or rejoin).
func (s *hostSession) run(ctx context.Context) {
	pingDone, quit := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(pingDone)
		t := time.NewTicker(s.h.cfg.Ping)
		defer t.Stop()
		// The first load says which stage files the host has (the lobby sends the others).
		s.send(&Msg{Type: TypeLoad, Load: ptr(s.h.Load()), Stages: s.h.stageHashes()})
		for {
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			case <-quit:
				return
			}
			s.send(&Msg{Type: TypeLoad, Load: ptr(s.h.Load())})
		}
	}()
	for {
		b, err := s.c.Read(time.Now().Add(5 * s.h.cfg.Ping))
		if err != nil {
			if ctx.Err() == nil {
				s.log.Info("lobby disconnected", "err", err)
			}
			break
		}
		m, err := decode(b)
		if err != nil {
			s.log.Warn("bad control message from the lobby", "err", err)
			break
		}
		s.handle(m)
	}
	s.c.Close()
	close(quit)
	s.mu.Lock()
	games := make([]handoff.Game, 0, len(s.games))
	for _, g := range s.games {
		games = append(games, g)
	}
	s.mu.Unlock()
	for _, g := range games {
		if a, ok := g.(aborter); ok {
			a.Abort()
		}
	}
	s.wg.Wait()
	<-pingDone
}

func ptr[T any](v T) *T { return &v }

func (s *hostSession) handle(m *Msg) {
	switch m.Type {
	case TypeStage:
		s.stagePart(m)
	case TypeStart:
		s.start(m)
	case TypeRejoin, TypeSpectate:
		s.member(m)
	case TypeDrop:
		if g := s.game(m.Game); g != nil {
			if id, err := uuid.Parse(m.User); err == nil {
				g.Drop(id, m.Left)
			}
		}
	case TypePing:
	default:
		s.log.Debug("unknown control message ignored", "type", m.Type)
	}
}

func (s *hostSession) game(id uint64) handoff.Game {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.games[id]
}

func (s *hostSession) refuse(id uint64, why string) {
	s.send(&Msg{Type: TypeReply, ID: id, Error: why, Load: ptr(s.h.Load())})
}

func (s *hostSession) start(m *Msg) {
	h := s.h
	spec, err := m.Spec.gameSpec()
	if err != nil {
		s.refuse(m.ID, "bad start: "+err.Error())
		return
	}
	if spec.Files, err = s.files(m.Spec); err != nil {
		s.refuse(m.ID, err.Error())
		return
	}
	if s.game(m.ID) != nil {
		s.refuse(m.ID, "game id "+strconv.FormatUint(m.ID, 10)+" in use")
		return
	}
	h.mu.Lock()
	switch {
	case h.draining:
		h.mu.Unlock()
		s.refuse(m.ID, "host draining")
		return
	case h.games >= h.cfg.Capacity:
		h.mu.Unlock()
		s.refuse(m.ID, "host full ("+strconv.Itoa(h.cfg.Capacity)+" games)")
		return
	}
	h.games++ // reserved before starting: two lobbies cannot both take the last place
	h.mu.Unlock()
	g, err := h.cfg.Starter.StartGame(spec)
	if err == nil && g == nil {
		err = errors.New("starter returned no game")
	}
	if err != nil {
		h.mu.Lock()
		h.games--
		l := h.loadLocked()
		h.mu.Unlock()
		s.send(&Msg{Type: TypeReply, ID: m.ID, Error: err.Error(), Load: &l})
		return
	}
	s.mu.Lock()
	s.games[m.ID] = g
	s.wg.Add(1)
	s.mu.Unlock()
	l := h.Load()
	h.notify(l)
	s.send(&Msg{Type: TypeReply, ID: m.ID, Port: g.Port(), Host: h.cfg.PublicHost, Load: &l})
	s.log.Info("game handed over", "code", spec.Code, "game", m.ID, "players", len(spec.Members), "games", l.Games)
	go s.watch(m.ID, spec, g)
}

// watch reports the spectators g drops and, once it is over, its end.
func (s *hostSession) watch(id uint64, spec handoff.GameSpec, g handoff.Game) {
	defer s.wg.Done()
	var gone <-chan struct{}
	rep, _ := g.(handoff.SpectatorReporter)
	if rep != nil {
		gone = rep.SpectatorsGone()
	}
	for done := false; !done; {
		select {
		case <-g.Done():
			done = true
		case <-gone:
			var ms []Member
			for _, lm := range rep.TakeSpectatorsGone() {
				ms = append(ms, memberOf(lm))
			}
			s.send(&Msg{Type: TypeGone, Game: id, Members: ms})
		}
	}
	h := s.h
	h.mu.Lock()
	h.games--
	l := h.loadLocked()
	h.mu.Unlock()
	s.mu.Lock()
	delete(s.games, id)
	s.mu.Unlock()
	h.notify(l)
	var rec *Record
	var rp []byte
	if h.cfg.Report != nil {
		rec, rp = h.cfg.Report(spec, g)
	}
	if len(rp) > replay.MaxBytes {
		s.log.Warn("replay larger than the largest kept: the lobby gets the game without it", "game", id, "bytes", len(rp), "max", replay.MaxBytes)
		rp = nil
	}
	s.endMu.Lock()
	defer s.endMu.Unlock()
	parts := splitReplay(rp)
	for i, b := range parts {
		s.send(&Msg{Type: TypeReplay, Game: id, Part: i, Parts: len(parts), Data: b})
	}
	s.send(&Msg{Type: TypeEnded, Game: id, Result: g.Result(), Record: rec, Load: &l})
}

func (s *hostSession) member(m *Msg) {
	g := s.game(m.Game)
	if g == nil {
		s.refuse(m.ID, "no game "+strconv.FormatUint(m.Game, 10))
		return
	}
	if m.Member == nil {
		s.refuse(m.ID, "no member")
		return
	}
	lm, err := m.Member.lobbyMember()
	if err != nil {
		s.refuse(m.ID, err.Error())
		return
	}
	err = errors.New("the game does not take " + m.Type + "s")
	switch m.Type {
	case TypeRejoin:
		if rj, ok := g.(handoff.Rejoiner); ok {
			err = rj.Rejoin(lm)
		}
	case TypeSpectate:
		if sp, ok := g.(handoff.Spectatable); ok {
			err = sp.Spectate(lm)
		}
	}
	if err != nil {
		s.refuse(m.ID, err.Error())
		return
	}
	s.send(&Msg{Type: TypeReply, ID: m.ID, Load: ptr(s.h.Load())})
}
