package lobbyserver

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/lobby/scores"
)

// writeTimeout bounds one write to a client; a client that does not read for that long is
// disconnected.
const writeTimeout = 10 * time.Second

// maxOutbox bounds the bytes queued for one client; a client that lets more pile up (it does
// not read) is disconnected.
const maxOutbox = 64 << 10

// ServerConfig configures a Server (and its Core). Zero values get defaults: a random
// ServerUUID, the Default* values of limits.go (a negative IdleTimeout
// disables the idle check), slog.Default(). Stages is required (NewCore panics
// without it). A nil Starter makes START fail with 500.
type ServerConfig struct {
	ServerUUID  uuid.UUID
	MaxLobbies  int
	IdleTimeout time.Duration
	// Limits against one client taking the server (docs/PROTOCOL.md §2.3).
	MaxConns          int // connections at once
	MaxConnsPerAddr   int // connections at once from one IP address
	MaxLobbiesPerAddr int // lobbies whose owner connects from one IP address
	// MaxSpectatorsPerAddr bounds the spectators from one IP address, in all lobbies (0:
	// DefaultMaxSpectatorsPerAddr).
	MaxSpectatorsPerAddr int
	CommandRate          float64       // lines per second per connection, in bursts of CommandBurstAt(CommandRate)
	AuthTimeout          time.Duration // time to AUTHENTICATE after connecting (negative: none)
	Starter              handoff.Starter
	Logger               *slog.Logger
	// Stages are the stages lobbies may play (GET_STAGES, GET_STAGE); a new lobby plays
	// Stages.Default() unless its creator names another. The lobby serves the files and reads
	// their practice sections (stagefile.Script); the catalogue's Parser checked them
	// (net/server loads it with game.ParseScript).
	Stages *stagefile.Catalogue
	// AsyncStart makes the runtime call Starter.StartGame on a goroutine of its own, off the
	// lock, for each START (Out.Start, starting.go): for a Starter that waits on the network
	// (net/fleet.Remote), so that a slow game host delays its lobby's START only. Unset (the
	// all-in-one server, net/instance.Manager), the Core calls the Starter itself. It covers
	// the calls of a running game that wait on it too: REJOIN's Rejoin and a spectator's
	// Spectate (Out.Call, calling.go).
	AsyncStart bool
	// Password, when set, makes the server private: AUTHENTICATE must carry it (private.go).
	Password string
	// Hall, when set, is the hall of fame GET_SCORES, GET_GAMES and GET_REPLAY read, and the
	// server keeps every finished game (it pushes GAME_ID before END); nil: those commands get
	// 500 (-db off).
	Hall Hall
	// RTC, when set, answers RTC_OFFER: the browsers' WebRTC offers for the game's data channel
	// (rtc.go; net/server sets it with -web); nil: RTC_OFFER gets 500 (lobby.RTCOff).
	RTC RTCAnswerer
}

func (cfg ServerConfig) withDefaults() ServerConfig {
	if cfg.ServerUUID == uuid.Nil {
		cfg.ServerUUID = uuid.New()
	}
	if cfg.MaxLobbies <= 0 {
		cfg.MaxLobbies = DefaultMaxLobbies
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.MaxConnsPerAddr <= 0 {
		cfg.MaxConnsPerAddr = DefaultMaxConnsPerAddr
	}
	if cfg.MaxLobbiesPerAddr <= 0 {
		cfg.MaxLobbiesPerAddr = DefaultMaxLobbiesPerAddr
	}
	if cfg.MaxSpectatorsPerAddr <= 0 {
		cfg.MaxSpectatorsPerAddr = DefaultMaxSpectatorsPerAddr
	}
	if cfg.CommandRate <= 0 {
		cfg.CommandRate = DefaultCommandRate
	}
	if cfg.AuthTimeout == 0 {
		cfg.AuthTimeout = DefaultAuthTimeout
	}
	return cfg
}

// Server is the TCP lobby server (docs/PROTOCOL.md §2): the runtime of a Core. Each connection
// has one goroutine that reads lines and hands them to the Core, and one writer goroutine that
// sends the lines the Core queued for it; one timer goroutine calls Core.Tick at its
// deadlines, and one goroutine per running game tells the Core when it ends (and, with
// AsyncStart, one per start, rejoin or spectator in progress carries it out). The Core is
// guarded by one mutex, held while it handles an event and while its outbox is queued to the
// connections (which never blocks on the network), so lines keep the Core's order.
type Server struct {
	cfg   ServerConfig
	log   *slog.Logger
	epoch time.Time

	mu      sync.Mutex // guards everything below
	core    *Core
	conns   map[ConnID]*conn
	nextID  ConnID
	ctx     context.Context // Serve's (nil before)
	closing bool            // Serve is shutting down: no new watch goroutine
	armed   time.Duration   // the deadline the timer goroutine sleeps until
	kick    chan struct{}   // capacity 1: the Core's next deadline moved earlier
	// adopting are the games AdoptGame got before Serve: adopted when it begins.
	adopting []adoption

	wg      sync.WaitGroup // connection goroutines
	watchWG sync.WaitGroup // watch goroutines
	askWG   sync.WaitGroup // hall-of-fame requests (ask)
	startWG sync.WaitGroup // asynchronous starts (startGame)
	callWG  sync.WaitGroup // asynchronous rejoins and spectators (callGame)
}

// adoption is an AdoptGame call held until Serve.
type adoption struct {
	spec handoff.GameSpec
	g    handoff.Game
}

// AdoptGame hands the Core a running game of an earlier run of this lobby (Core.AdoptGame: its
// lobby is recreated, its players may RESUME). Before Serve the game is held, and adopted when
// Serve begins (its lobby then exists before the first connection is accepted). Safe for
// concurrent use; it does not block on the network.
func (s *Server) AdoptGame(spec handoff.GameSpec, g handoff.Game) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil {
		s.adopting = append(s.adopting, adoption{spec, g})
		return
	}
	s.adoptLocked(spec, g)
}

// adoptLocked is AdoptGame once served (s.mu held).
func (s *Server) adoptLocked(spec handoff.GameSpec, g handoff.Game) {
	if err := s.core.AdoptGame(s.now(), spec, g); err != nil {
		s.log.Warn("running game of an earlier run not taken back into a lobby: its end is still kept", "code", spec.Code, "game", spec.ID.String(), "err", err)
	}
	s.dispatch()
}

// conn is one client connection's I/O.
type conn struct {
	id   ConnID
	nc   net.Conn
	wake chan struct{} // capacity 1: tells the writer there is work

	wmu       sync.Mutex // guards out, finishing, dead
	out       []byte     // complete lines waiting for the writer
	finishing bool       // flush out, then close
	dead      bool       // writing failed or the client is too slow: drop lines
}

// NewServer returns a Server for cfg (see ServerConfig for defaults).
func NewServer(cfg ServerConfig) *Server {
	cfg = cfg.withDefaults()
	if n, ok := fileLimit(); ok {
		if m, over := capConns(cfg.MaxConns, n); over {
			// Past the file limit, accept fails (EMFILE) and so does everything else that opens a
			// descriptor, /metrics included: the operator should raise the limit (ulimit -n) or
			// lower -max-conns.
			cfg.Logger.Warn("lobby -max-conns exceeds what the process file limit allows; raise ulimit -n or lower -max-conns",
				"maxConns", cfg.MaxConns, "fileLimit", n, "reserve", FileReserve, "max_conns_that_fit", m)
		}
	}
	return &Server{cfg: cfg, log: cfg.Logger, epoch: time.Now(), core: NewCore(cfg, 0),
		conns: make(map[ConnID]*conn), kick: make(chan struct{}, 1)}
}

// now is the Core's time: monotonic, from the Server's creation.
func (s *Server) now() time.Duration { return time.Since(s.epoch) }

// do runs fn on the Core with the time now, under s.mu, then carries out its outbox.
func (s *Server) do(fn func(now time.Duration)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.now())
	s.dispatch()
}

// dispatch carries out the Core's outbox (called with s.mu held).
func (s *Server) dispatch() {
	var refused, refusedStarts, refusedCalls []Out
	for _, o := range s.core.Outbox() {
		switch {
		case o.Start != nil:
			switch {
			case s.ctx == nil: // not served: the Core's deadline answers
			case s.closing:
				refusedStarts = append(refusedStarts, o)
			default:
				s.startWG.Add(1) // Serve waits for them before the watchers
				go s.startGame(*o.Start)
			}
		case o.Call != nil:
			switch {
			case s.ctx == nil: // not served: the Core's deadline answers
			case s.closing:
				refusedCalls = append(refusedCalls, o)
			default:
				s.callWG.Add(1) // Serve waits for them with the starts
				go s.callGame(*o.Call)
			}
		case o.Game != nil:
			if s.ctx != nil && !s.closing {
				s.watchWG.Add(1) // never once Serve waits for the watchers
				go s.watch(s.ctx, o.Game)
			}
		case o.Request != nil:
			switch {
			case s.ctx == nil || (s.cfg.Hall == nil && o.Request.RTC == nil): // not served: the Core's deadline answers
			case s.closing:
				refused = append(refused, o) // Serve waits for the asks already: none may start
			default:
				s.askWG.Add(1) // Serve waits for them after the watchers (their ctx is cancelled)
				go s.ask(s.ctx, o.Conn, *o.Request)
			}
		default:
			c := s.conns[o.Conn]
			if c == nil {
				continue
			}
			if o.Line != nil {
				c.send(o.Line)
			}
			if o.Close {
				c.finish()
			}
		}
	}
	s.core.ResetOutbox()
	for _, o := range refused {
		s.core.Answered(s.now(), o.Conn, o.Request.ID, Answer{Err: errors.New("the server is shutting down")})
	}
	for _, o := range refusedStarts {
		s.core.Started(s.now(), o.Start.ID, nil, errors.New("the server is shutting down"))
	}
	for _, o := range refusedCalls {
		s.core.Called(s.now(), o.Call.ID, errors.New("the server is shutting down"))
	}
	if len(refused)+len(refusedStarts)+len(refusedCalls) > 0 {
		s.dispatch()
		return
	}
	if s.core.NextDeadline() < s.armed {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
}

// Serve accepts lobby connections on ln until ctx is cancelled or ln is closed. Accept errors
// (e.g. EMFILE: too many open files) do not stop it: it retries with a backoff (5 ms doubling
// to 1 s) and logs once per burst of errors. On cancellation it closes ln, pushes END for the
// games that are over, lets every connection flush what is queued for it (at most
// shutdownFlush), closes them and returns once every goroutine it started has ended: nil after
// cancellation, the error of a closed listener otherwise. Serve may be called only once per
// Server.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	if s.ctx != nil {
		s.mu.Unlock()
		return errors.New("lobby: Serve called twice")
	}
	s.ctx = ctx
	for _, a := range s.adopting {
		s.adoptLocked(a.spec, a.g)
	}
	s.adopting = nil
	s.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()

	s.log.Info("lobby server listening", "addr", ln.Addr().String(), "server", s.core.srv,
		"maxLobbies", s.cfg.MaxLobbies, "idleTimeout", s.cfg.IdleTimeout, "maxConns", s.cfg.MaxConns,
		"maxConnsPerAddr", s.cfg.MaxConnsPerAddr, "maxLobbiesPerAddr", s.cfg.MaxLobbiesPerAddr,
		"commandRate", s.cfg.CommandRate, "authTimeout", s.cfg.AuthTimeout)
	timersDone := make(chan struct{})
	go func() { defer close(timersDone); s.runTimers(ctx) }()
	defer func() { cancel(); <-timersDone }()
	err := s.accept(ctx, ln)
	cancel()
	ln.Close()
	// Games that are over get their END push before the connections close.
	s.mu.Lock()
	s.closing = true
	s.core.Stop()
	s.mu.Unlock()
	s.startWG.Wait() // a game started now is not watched: its runtime shuts down after the lobby
	s.callWG.Wait()
	s.watchWG.Wait()
	s.askWG.Wait()
	s.mu.Lock()
	for _, c := range s.conns {
		// The writer flushes what is queued (CLOSING, END), then closes the connection, which
		// stops the reader. Not a read deadline first: on a WebSocket (coder/websocket's
		// NetConn) a deadline that cuts a pending read closes the whole connection, and the
		// queued lines with it.
		c.finish()
	}
	s.mu.Unlock()
	flushed := make(chan struct{})
	go func() { s.wg.Wait(); close(flushed) }()
	t := time.NewTimer(shutdownFlush)
	select {
	case <-flushed:
	case <-t.C:
		s.mu.Lock()
		for _, c := range s.conns {
			c.nc.Close() // a client that does not read: no more waiting
		}
		s.mu.Unlock()
		<-flushed
	}
	t.Stop()
	s.log.Info("lobby server stopped", "server", s.core.srv)
	return err
}

// shutdownFlush bounds the time Serve waits, once cancelled, for the lines queued to clients
// (END pushes) to be written.
const shutdownFlush = 2 * time.Second

// runTimers calls Core.Tick at the Core's deadlines until ctx is done.
func (s *Server) runTimers(ctx context.Context) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		s.mu.Lock()
		s.armed = s.core.NextDeadline()
		wait := s.armed - s.now()
		s.mu.Unlock()
		t.Reset(max(wait, 0))
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
		case <-t.C:
			s.do(s.core.Tick)
		}
	}
}

// watch tells the Core the spectators g drops on its own (SpectatorReporter) and, once g is
// finished, its end (the Core pushes END).
func (s *Server) watch(ctx context.Context, g handoff.Game) {
	defer s.watchWG.Done()
	var gone <-chan struct{} // nil: never ready
	rep, _ := g.(handoff.SpectatorReporter)
	if rep != nil {
		gone = rep.SpectatorsGone()
	}
wait:
	for {
		select {
		case <-g.Done():
			break wait
		case <-gone:
			ms := rep.TakeSpectatorsGone() // outside s.mu (the Core takes the game's lock under it: Drop)
			s.do(func(now time.Duration) { s.core.SpectatorsGone(now, g, ms) })
		case <-ctx.Done():
			select {
			case <-g.Done(): // over as the server shuts down: END still goes out
				break wait
			default:
				return
			}
		}
	}
	res := g.Result()
	s.do(func(now time.Duration) { s.core.GameEnded(now, g, res) })
}

// startGame carries out start r (ServerConfig.AsyncStart): the Starter, off s.mu, then its
// result to the Core.
func (s *Server) startGame(r StartRequest) {
	defer s.startWG.Done()
	g, err := s.cfg.Starter.StartGame(r.Spec)
	s.do(func(now time.Duration) { s.core.Started(now, r.ID, g, err) })
}

// callGame carries out call r (ServerConfig.AsyncStart): the game's Rejoin or Spectate, off
// s.mu, then its result to the Core.
func (s *Server) callGame(r GameCall) {
	defer s.callWG.Done()
	err := r.Call()
	s.do(func(now time.Duration) { s.core.Called(now, r.ID, err) })
}

// ask puts request r of connection conn to the Hall (at most HallTimeout, less once ctx is
// cancelled) and hands the answer to the Core.
func (s *Server) ask(ctx context.Context, conn ConnID, r Request) {
	defer s.askWG.Done()
	ctx, cancel := context.WithTimeout(ctx, HallTimeout)
	defer cancel()
	var a Answer
	if r.RTC != nil {
		a.RTC, a.Err = s.cfg.RTC.AnswerRTC(ctx, r.RTC.From, r.RTC.Offer)
	} else if r.Games != nil {
		q := *r.Games
		if r.Today {
			q.Since = scores.StartOfDay(time.Now())
		}
		a.Games, a.Err = s.cfg.Hall.Games(ctx, q)
	} else {
		a.Parts, a.Data, a.Err = s.cfg.Hall.ReplayPart(ctx, r.Replay, r.Part)
	}
	s.do(func(now time.Duration) { s.core.Answered(now, conn, r.ID, a) })
}

// serveConn reads c's lines and hands them to the Core until the connection fails or closes.
func (s *Server) serveConn(c *conn) {
	defer s.wg.Done()
	wdone := make(chan struct{})
	go func() {
		defer close(wdone)
		c.writeLoop()
	}()
	lr := lobby.NewLineReader(c.nc)
	for {
		line, err := lr.ReadLine()
		if errors.Is(err, lobby.ErrLineTooLong) {
			s.do(func(now time.Duration) { s.core.LineTooLong(now, c.id) })
		}
		if err != nil {
			break
		}
		s.do(func(now time.Duration) { s.core.Line(now, c.id, line) })
	}
	s.do(func(now time.Duration) { s.core.Closed(now, c.id) })
	c.finish() // flush what is queued (e.g. the 500 before closing)...
	<-wdone
	c.nc.Close() // ...then close
	s.mu.Lock()
	delete(s.conns, c.id) // only now: Serve's shutdown must still be able to close it
	s.mu.Unlock()
}

// Broadcast pushes BROADCAST with text to every open connection (docs/PROTOCOL.md §2.5.6) and
// returns how many connections it was queued for. text must pass CheckText.
func (s *Server) Broadcast(text string) (n int, err error) {
	s.do(func(time.Duration) { n, err = s.core.Broadcast(text) })
	return n, err
}

// Closing tells every connection that the server closes (CLOSING, docs/PROTOCOL.md §2.5.13):
// why (ClosingShutdown, ClosingRestart) and how long the running games have left. The runtime
// calls it when its shutdown starts, before the games end.
func (s *Server) Closing(why string, left time.Duration) (n int, err error) {
	s.do(func(time.Duration) { n, err = s.core.Closing(why, left) })
	return n, err
}

// Stats returns the server's figures (see Stats).
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.core.Stats()
}

// Lobbies returns a snapshot of the live lobbies, the oldest first.
func (s *Server) Lobbies() []lobby.LobbyInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.core.Lobbies()
}

// send queues one complete line for the writer; it never blocks on the network. A client with
// more than maxOutbox bytes pending is disconnected.
func (c *conn) send(line []byte) {
	c.wmu.Lock()
	if c.dead || c.finishing {
		c.wmu.Unlock()
		return
	}
	if len(c.out)+len(line) > maxOutbox {
		c.dead = true
		c.wmu.Unlock()
		c.nc.Close() // the reader sees the error and cleans up
		return
	}
	c.out = append(c.out, line...)
	c.wmu.Unlock()
	c.signal()
}

func (c *conn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// finish makes the writer flush the queue, close the connection and stop.
func (c *conn) finish() {
	c.wmu.Lock()
	c.finishing = true
	c.wmu.Unlock()
	c.signal()
}

// writeLoop writes queued lines in order until finish (queue drained: it closes the
// connection, which stops the reader) or a write error (which closes the connection).
func (c *conn) writeLoop() {
	var buf []byte
	for {
		c.wmu.Lock()
		for len(c.out) == 0 && !c.finishing {
			c.wmu.Unlock()
			<-c.wake
			c.wmu.Lock()
		}
		if len(c.out) == 0 {
			c.dead = true
			c.wmu.Unlock()
			c.nc.Close()
			return
		}
		buf, c.out = c.out, buf[:0]
		c.wmu.Unlock()
		c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := c.nc.Write(buf); err != nil {
			c.wmu.Lock()
			c.dead, c.out = true, nil
			c.wmu.Unlock()
			c.nc.Close()
			return
		}
	}
}
