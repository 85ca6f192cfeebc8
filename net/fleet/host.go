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
	// OnLoad, when set, is called after each change of the load (the Agones counter) and of
	// Held (a game's end held for its away lobby, or handed back), outside the host's lock.
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
	// lobbies are the games of the lobbies that named themselves (hello), by name, kept
	// across their connections (docs/CONTROL.md §4.3).
	lobbies map[string]*lobbyGames
	// handing are the held ends a lobby that came back has taken and is being sent (hello):
	// still counted by Held until they are written.
	handing int
	wg      sync.WaitGroup // connections and the games' watchers
}

// A lobby that named itself (hello) keeps its games on the host when its connection fails:
// they go on, and the ends of those that end meanwhile are held, at most MaxHeldEnds games
// and MaxHeldBytes of their replays per lobby (past them the oldest is dropped, logged), until
// a connection with the same name comes (the restarted lobby) or the host stops.
const (
	MaxHeldEnds  = 256
	MaxHeldBytes = 64 << 20
)

// lobbyGames are the games one lobby started on this host. A lobby that named itself has one
// across its connections; an anonymous lobby's (no hello: an older lobby) are its connection's
// alone and are aborted with it.
type lobbyGames struct {
	name  string       // its hello ("": anonymous)
	s     *hostSession // its connection now; nil while it is away
	games map[uint64]*hostGame
	held  []heldEnd // ends not delivered, oldest first
	bytes int       // of held's messages' replay parts
}

// hostGame is one game the host runs for a lobby.
type hostGame struct {
	spec handoff.GameSpec
	g    handoff.Game
}

// heldEnd is a game's end its lobby has not heard: its replay parts and ended.
type heldEnd struct {
	msgs  []*Msg
	bytes int
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
	h := &Host{cfg: cfg, log: cfg.Logger, sessions: map[*hostSession]struct{}{}, lobbies: map[string]*lobbyGames{}}
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

// Held is the number of game ends the host holds for its away lobbies (all of them; those a
// returning lobby is being sent included): games that are over but whose result and replay
// its lobby has not heard. A host holding any is still busy (net/server: an Agones host
// stays Allocated).
func (h *Host) Held() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.handing
	for _, lg := range h.lobbies {
		n += len(lg.held)
	}
	return n
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

// Serve accepts lobby connections on ln until ctx is cancelled, then closes them and ends the
// games still running (a lobby's connection that fails leaves its games running when the
// lobby named itself, docs/CONTROL.md §4.3; see hostSession.run) and returns once every
// goroutine it started has ended.
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
	h.abortAll() // the host stops: the games its lobbies left to it end now
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
	s := &hostSession{h: h, c: c, lg: &lobbyGames{games: map[uint64]*hostGame{}}, stages: newStageCache(h.cfg.StageCacheBytes),
		log: h.log.With("lobby", nc.RemoteAddr().String())}
	s.lg.s = s
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

	// lg are the games of this connection's lobby (under h.mu): its own until a hello names
	// the lobby, then that name's. bye: the lobby said it leaves for good.
	lg  *lobbyGames
	bye bool
	// stages are the stage files the lobby sent on this connection (stages.go).
	stages *stageCache
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

// sendAll sends ms in a row (a game's replay parts and ended), failing at the first error.
func (s *hostSession) sendAll(ms []*Msg) error {
	s.endMu.Lock()
	defer s.endMu.Unlock()
	for _, m := range ms {
		if err := s.c.Write(encode(m)); err != nil {
			s.c.Close()
			return err
		}
	}
	return nil
}

// run serves the session's requests until the connection fails or the lobby falls silent;
// then the games of an anonymous lobby (or one that said bye) are aborted (nobody could learn
// their end or rejoin), and those of a lobby that named itself go on, their ends held for its
// return (docs/CONTROL.md §4.3).
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
	h := s.h
	h.mu.Lock()
	lg := s.lg
	var abort []*hostGame
	dropped := 0 // held ends of a lobby that left for good
	switch {
	case lg.name == "" || s.bye:
		// An anonymous lobby's games, or those of a lobby that left for good: nobody could
		// learn their end nor rejoin them.
		for _, g := range lg.games {
			abort = append(abort, g)
		}
		if lg.name != "" && lg.s == s {
			delete(h.lobbies, lg.name)
			dropped = len(lg.held)
		}
		lg.s = nil
	case lg.s == s:
		lg.s = nil // away: its games go on, their ends are held for its return
		if n := len(lg.games); n > 0 && ctx.Err() == nil {
			s.log.Warn("lobby away: its games go on; their ends are kept for its return", "lobby_name", lg.name, "games", n)
		}
	}
	h.mu.Unlock()
	if dropped > 0 {
		h.notify(h.Load())
	}
	for _, g := range abort {
		if a, ok := g.g.(aborter); ok {
			a.Abort()
		}
	}
	<-pingDone
}

// abortAll ends every game the host still runs for its lobbies (the host stops).
func (h *Host) abortAll() {
	h.mu.Lock()
	var gs []*hostGame
	held := 0
	for _, lg := range h.lobbies {
		for _, g := range lg.games {
			gs = append(gs, g)
		}
		held += len(lg.held)
	}
	h.mu.Unlock()
	if held > 0 {
		h.log.Warn("host stopping with game ends its lobbies have not heard: they are lost", "games", held)
	}
	for _, g := range gs {
		if a, ok := g.g.(aborter); ok {
			a.Abort()
		}
	}
}

// hello names the session's lobby: the games kept under that name become the session's, it
// is told of those still running (running) and gets the ends it missed (docs/CONTROL.md §4.3).
// An older connection of the same lobby (not yet seen dead) no longer gets them.
func (s *hostSession) hello(name string) {
	if name == "" || len(name) > 128 {
		s.log.Warn("hello with a bad lobby name ignored", "len", len(name))
		return
	}
	h := s.h
	s.endMu.Lock() // before h.mu: no end is sent on s before the running games are
	defer s.endMu.Unlock()
	h.mu.Lock()
	lg := h.lobbies[name]
	if lg == nil {
		lg = &lobbyGames{name: name, games: map[uint64]*hostGame{}}
		h.lobbies[name] = lg
	}
	old := lg.s
	if s.lg != lg {
		for id, g := range s.lg.games { // started before the hello (none from a lobby that says it first)
			lg.games[id] = g
		}
		s.lg = lg
	}
	lg.s = s
	var running []*Msg
	for id, g := range lg.games {
		running = append(running, &Msg{Type: TypeRunning, Game: id, Spec: specOf(g.spec), Port: g.g.Port(), Host: h.cfg.PublicHost})
	}
	held := lg.held
	lg.held, lg.bytes = nil, 0
	h.handing += len(held)
	h.mu.Unlock()
	if old != nil && old != s {
		// Not closed: a lobby that reaches the host by two addresses must not have its two
		// connections close each other; the older one, if dead, ends with its heartbeat.
		old.log.Info("lobby connected again: its games' ends go to the newer connection", "lobby_name", name)
	}
	if len(running) > 0 || len(held) > 0 {
		s.log.Info("lobby back: its games are handed back", "lobby_name", name, "running", len(running), "ended", len(held))
	}
	for _, m := range running {
		if err := s.c.Write(encode(m)); err != nil {
			s.c.Close()
			break
		}
	}
	sent := len(held)
send:
	for i, e := range held {
		for _, m := range e.msgs {
			if err := s.c.Write(encode(m)); err != nil {
				s.c.Close()
				sent = i
				break send
			}
		}
	}
	if len(held) > 0 {
		h.mu.Lock()
		h.handing -= len(held)
		for _, e := range held[sent:] { // kept for the next connection
			lg.hold(e, s.log)
		}
		h.mu.Unlock()
		h.notify(h.Load()) // Held changed
	}
	if sent < len(held) {
		return
	}
	// The games not named above are not running here: a lobby that kept them through a
	// broken connection ends them now rather than at its grace's end (§4.4).
	if err := s.c.Write(encode(&Msg{Type: TypeAttached})); err != nil {
		s.c.Close()
	}
}

// hold keeps e for the lobby's return (under h.mu), within MaxHeldEnds and MaxHeldBytes.
func (lg *lobbyGames) hold(e heldEnd, log *slog.Logger) {
	lg.held = append(lg.held, e)
	lg.bytes += e.bytes
	for len(lg.held) > MaxHeldEnds || (lg.bytes > MaxHeldBytes && len(lg.held) > 1) {
		log.Warn("too many game ends kept for an away lobby: the oldest is dropped", "lobby_name", lg.name, "max_games", MaxHeldEnds, "max_bytes", MaxHeldBytes)
		lg.bytes -= lg.held[0].bytes
		lg.held = lg.held[1:]
	}
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
	case TypeHello:
		s.hello(m.Lobby)
	case TypeBye:
		s.h.mu.Lock()
		s.bye = true
		s.h.mu.Unlock()
	case TypePing:
	default:
		s.log.Debug("unknown control message ignored", "type", m.Type)
	}
}

func (s *hostSession) game(id uint64) handoff.Game {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	if g := s.lg.games[id]; g != nil {
		return g.g
	}
	return nil
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
	h.mu.Lock()
	lg := s.lg
	lg.games[m.ID] = &hostGame{spec: spec, g: g}
	h.wg.Add(1)
	h.mu.Unlock()
	l := h.Load()
	h.notify(l)
	s.send(&Msg{Type: TypeReply, ID: m.ID, Port: g.Port(), Host: h.cfg.PublicHost, Load: &l})
	s.log.Info("game handed over", "code", spec.Code, "game", m.ID, "players", len(spec.Members), "games", l.Games)
	go s.watch(lg, m.ID, spec, g)
}

// watch reports the spectators g drops and, once it is over, its end, to its lobby's
// connection of the moment (lg.s): held while the lobby is away.
func (s *hostSession) watch(lg *lobbyGames, id uint64, spec handoff.GameSpec, g handoff.Game) {
	h := s.h
	defer h.wg.Done()
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
			h.mu.Lock()
			to := lg.s
			h.mu.Unlock()
			if to != nil {
				to.send(&Msg{Type: TypeGone, Game: id, Members: ms})
			}
		}
	}
	var rec *Record
	var rp []byte
	if h.cfg.Report != nil {
		rec, rp = h.cfg.Report(spec, g)
	}
	if len(rp) > replay.MaxBytes {
		s.log.Warn("replay larger than the largest kept: the lobby gets the game without it", "game", id, "bytes", len(rp), "max", replay.MaxBytes)
		rp = nil
	}
	var e heldEnd
	parts := splitReplay(rp)
	for i, b := range parts {
		e.msgs = append(e.msgs, &Msg{Type: TypeReplay, Game: id, Part: i, Parts: len(parts), Data: b})
		e.bytes += len(b)
	}
	h.mu.Lock()
	h.games--
	l := h.loadLocked()
	delete(lg.games, id)
	// The spec goes with the end: a restarted lobby learns the game from it (§4.3).
	e.msgs = append(e.msgs, &Msg{Type: TypeEnded, Game: id, Result: g.Result(), Record: rec, Load: &l, Spec: specOf(spec)})
	away := lg.s == nil
	if away && lg.name != "" && h.lobbies[lg.name] == lg {
		// Held under the same lock as the game leaves lg.games: a hello sees the game either
		// running or held, never neither (its attached would end it as lost).
		lg.hold(e, s.log)
	}
	h.mu.Unlock()
	h.notify(l) // after the hold: Held counts it
	if !away {
		h.deliver(lg, e, s.log)
	}
}

// deliver sends e to lg's connection of the moment, or holds it while the lobby is away (an
// anonymous lobby's, gone, is dropped: its games were aborted with it).
func (h *Host) deliver(lg *lobbyGames, e heldEnd, log *slog.Logger) {
	for tries := 0; ; tries++ {
		h.mu.Lock()
		to := lg.s
		if to == nil || tries == 3 {
			held := lg.name != "" && h.lobbies[lg.name] == lg
			if held {
				lg.hold(e, log)
			}
			h.mu.Unlock()
			if held {
				h.notify(h.Load()) // Held changed
			}
			return
		}
		h.mu.Unlock()
		if to.sendAll(e.msgs) == nil {
			return
		}
		// The connection failed under it: the lobby's next one (or its return) gets it.
		h.mu.Lock()
		if lg.s == to {
			lg.s = nil
		}
		h.mu.Unlock()
	}
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
