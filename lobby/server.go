package lobby

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"golang.org/x/time/rate"

	"github.com/rtype/rtype/game"
)

// MaxPlayers is the largest number of members of one lobby (decision,
// docs/PROTOCOL.md §2.4.3): the game's player count, declared once in game.
const MaxPlayers = game.MaxPlayers

// Defaults applied by NewServer to zero ServerConfig fields.
const (
	DefaultMaxLobbies  = 64
	DefaultIdleTimeout = 5 * time.Minute
)

// writeTimeout bounds one write to a client; a client that does not read for
// that long is disconnected.
const writeTimeout = 10 * time.Second

// maxOutbox bounds the bytes queued for one client; a client that lets more
// pile up (it does not read) is disconnected.
const maxOutbox = 64 << 10

// Member is one player of a started lobby as handed to Starter.StartGame:
// the user UUID from AUTHENTICATE, the player name, the slot 0..3 (join order),
// the non-zero UDP session token and the 128-bit session key (crypto/rand) sent
// to that player in its START push (docs/PROTOCOL.md §2.5.1; the key answers
// CHALLENGE, §5.9).
type Member struct {
	UUID  uuid.UUID
	Name  string
	Slot  int
	Token uint32
	Key   [16]byte
}

// Game is a running game instance as seen by the lobby.
// Port is the UDP port players send HERE to; Done is closed when the game is
// over; Result is then 0 defeat, 1 victory, 2 aborted (the END push); Drop
// removes a player who left the lobby mid-game: left is true when the player
// chose to (LEAVE, or JOIN_LOBBY elsewhere), false when its connection closed.
// Drop and Port are called without any lobby lock held.
type Game interface {
	Port() int
	Done() <-chan struct{}
	Result() uint8
	Drop(id uuid.UUID, left bool)
}

// Starter starts one game instance for a lobby (implemented by
// net/instance.Manager): stage is the name of the lobby's stage, one of
// ServerConfig.Stages. It is called without any lobby lock held; members are
// in slot order.
type Starter interface {
	StartGame(lobbyCode, stage string, members []Member) (Game, error)
}

// ServerConfig configures a Server. Zero values get defaults: a random
// ServerUUID, DefaultMaxLobbies, DefaultIdleTimeout (a negative IdleTimeout
// disables the idle check), the Default* limits of limits.go, slog.Default(),
// the embedded stages with stage1 as the default
// (game.LoadStageCatalogue("stage1")). A nil Starter makes START fail with 500.
type ServerConfig struct {
	ServerUUID  uuid.UUID
	MaxLobbies  int
	IdleTimeout time.Duration
	// Limits against one client taking the server (docs/PROTOCOL.md §2.3).
	MaxConns          int           // connections at once
	MaxConnsPerAddr   int           // connections at once from one IP address
	MaxLobbiesPerAddr int           // lobbies whose owner connects from one IP address
	CommandRate       float64       // lines per second per connection, bursts of max(CommandBurst, 2 s worth)
	AuthTimeout       time.Duration // time to AUTHENTICATE after connecting (negative: none)
	Starter           Starter
	Logger            *slog.Logger
	// Stages are the stages lobbies may play (GET_STAGES, GET_STAGE); a new
	// lobby plays Stages.Default() unless its creator names another.
	Stages *game.StageCatalogue
}

// Server is the TCP lobby server (docs/PROTOCOL.md §2, seed 004 §2). Each
// connection has one goroutine that reads lines and handles them, and one
// writer goroutine that sends the lines queued for it; the queue is protected
// by a per-connection mutex, so handlers never block on the network while
// holding the lobby lock, and lines keep the order in which they were queued.
type Server struct {
	cfg ServerConfig
	srv string
	log *slog.Logger
	// stageParts holds, per stage hash, the 200 bodies of GET_STAGE part 0, 1, ...
	stageParts map[string][]string

	mu      sync.Mutex // lobby state: lobbies, conn.lobby/id/name/authed
	ctx     context.Context
	lobbies map[string]*lobbyState
	created uint64 // lobbies created so far (lobbyState.created)
	closing bool   // Serve is shutting down: no new watch goroutine

	connsMu   sync.Mutex
	conns     map[*conn]struct{}
	addrConns map[string]int // open connections per remote IP

	wg      sync.WaitGroup // connection goroutines
	watchWG sync.WaitGroup // watch goroutines
	watched chan struct{}  // closed by Serve's shutdown once every watch goroutine has ended

	stats  counters
	bursts burstLog
}

type lobbyPhase int

const (
	phaseWaiting lobbyPhase = iota
	phaseStarting
	phaseRunning
)

type lobbyState struct {
	code    string
	created uint64          // creation order (GET_LOBBIES lists the oldest first)
	stage   *game.StageFile // what START plays; changed by SET_STAGE while waiting
	members []*conn         // join order; members[0] is the owner
	phase   lobbyPhase
	game    Game
	// leftWhileStarting holds members that left while StartGame ran; they
	// are dropped from the game once it exists.
	leftWhileStarting []uuid.UUID
	// slots are the running game's players by slot (token and session key
	// of the latest START or rejoin of each slot): REJOIN checks its proof
	// against them (rejoin.go).
	slots []Member
	// spectators watch the lobby's games without a slot, in join order, at
	// most MaxSpectators (rejoin.go).
	spectators []*conn
	// lost: a player's connection closed while the game (a Rejoiner) runs:
	// the lobby stays, even empty, until END so that it can rejoin.
	lost bool
}

// conn is one client connection.
type conn struct {
	nc   net.Conn
	addr string        // remote IP: the key of the per-address limits
	wake chan struct{} // capacity 1: tells the writer there is work
	// idleUntil is when the connection is closed unless a valid command comes
	// (unix ns); stored by the reader and by watch (END restarts the timer).
	idleUntil atomic.Int64

	// Used by the reader goroutine only.
	cmdRate  *rate.Limiter
	chatRate *rate.Limiter
	refused  int // lines in a row refused by cmdRate
	lastCode int // code of the latest response queued

	wmu       sync.Mutex // guards out, finishing, dead
	out       []byte     // complete lines waiting for the writer
	finishing bool       // the reader is done: flush out, then stop
	dead      bool       // writing failed or the client is too slow: drop lines

	// Guarded by Server.mu; written only by the connection's reader goroutine.
	authed bool
	id     uuid.UUID
	name   string
	lobby  *lobbyState
}

// NewServer returns a Server for cfg (see ServerConfig for defaults).
func NewServer(cfg ServerConfig) *Server {
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
	if cfg.CommandRate <= 0 {
		cfg.CommandRate = DefaultCommandRate
	}
	if cfg.AuthTimeout == 0 {
		cfg.AuthTimeout = DefaultAuthTimeout
	}
	if cfg.Stages == nil {
		cat, err := game.LoadStageCatalogue("stage1")
		if err != nil { // the embedded stages are checked by game's tests
			panic("lobby: the embedded stages do not load: " + err.Error())
		}
		cfg.Stages = cat
	}
	s := &Server{
		cfg:        cfg,
		srv:        cfg.ServerUUID.String(),
		log:        cfg.Logger,
		conns:      make(map[*conn]struct{}),
		addrConns:  make(map[string]int),
		lobbies:    make(map[string]*lobbyState),
		stageParts: make(map[string][]string),
		watched:    make(chan struct{}),
	}
	for _, f := range cfg.Stages.Files() {
		s.stageParts[f.Hash] = stageBodies(f.Data)
	}
	return s
}

// stageBodies gzips data (level 9, no name, mtime 0) and returns the GET_STAGE
// response bodies of its parts (docs/PROTOCOL.md §2.4.8).
func stageBodies(data []byte) []string {
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression) // a valid level: no error
	w.Write(data)                                          // writes to a bytes.Buffer do not fail
	w.Close()
	b := gz.Bytes()
	n := (len(b) + StagePartBytes - 1) / StagePartBytes
	out := make([]string, n)
	for i := range out {
		out[i] = string(AppendStagePart(nil, n, b[i*StagePartBytes:min(len(b), (i+1)*StagePartBytes)]))
	}
	return out
}

// Serve accepts lobby connections on ln until ctx is cancelled or ln is
// closed. Accept errors (e.g. EMFILE: too many open files) do not stop it: it
// retries with a backoff (5 ms doubling to 1 s) and logs once per burst of
// errors. On cancellation it closes ln, pushes END for the games that are over,
// lets every connection flush what is queued for it (at most shutdownFlush),
// closes them and returns once every goroutine it started has ended: nil after
// cancellation, the error of a closed listener otherwise. Serve may be called
// only once per Server.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	if s.ctx != nil {
		s.mu.Unlock()
		return errors.New("lobby: Serve called twice")
	}
	s.ctx = ctx
	s.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()

	s.log.Info("lobby server listening", "addr", ln.Addr().String(), "server", s.srv,
		"maxLobbies", s.cfg.MaxLobbies, "idleTimeout", s.cfg.IdleTimeout, "maxConns", s.cfg.MaxConns,
		"maxConnsPerAddr", s.cfg.MaxConnsPerAddr, "maxLobbiesPerAddr", s.cfg.MaxLobbiesPerAddr,
		"commandRate", s.cfg.CommandRate, "authTimeout", s.cfg.AuthTimeout)
	burstsDone := make(chan struct{})
	go func() { // the limit log reports the end of each burst
		defer close(burstsDone)
		t := time.NewTicker(burstWindow)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				s.bursts.flush(s.log, now)
			}
		}
	}()
	defer func() { cancel(); <-burstsDone }()
	var err error
	const minBackoff = 5 * time.Millisecond
	backoff := minBackoff
	var failures uint64 // accept errors in the current burst
	for {
		nc, aerr := ln.Accept()
		if aerr != nil {
			if ctx.Err() != nil {
				break
			}
			if errors.Is(aerr, net.ErrClosed) {
				err = aerr // closed by someone else: nothing more will come
				break
			}
			s.stats.acceptErrors.Add(1)
			if failures == 0 {
				s.log.Warn("lobby accept failed; retrying with backoff", "err", aerr)
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
		s.stats.accepted.Add(1)
		c := &conn{nc: nc, addr: remoteIP(nc), wake: make(chan struct{}, 1),
			cmdRate:  rate.NewLimiter(rate.Limit(s.cfg.CommandRate), max(CommandBurst, int(2*s.cfg.CommandRate))),
			chatRate: rate.NewLimiter(rate.Every(ChatEvery), ChatBurst)}
		s.connsMu.Lock()
		limit, reason := "", ""
		switch {
		case len(s.conns) >= s.cfg.MaxConns:
			limit, reason = LimitConns, "server full: too many connections (max "+strconv.Itoa(s.cfg.MaxConns)+"), closing connection"
		case s.addrConns[c.addr] >= s.cfg.MaxConnsPerAddr:
			limit, reason = LimitConnsPerAddr, "too many connections from "+c.addr+" (max "+strconv.Itoa(s.cfg.MaxConnsPerAddr)+"), closing connection"
		default:
			s.conns[c] = struct{}{}
			s.addrConns[c.addr]++
			s.wg.Add(1)
		}
		s.connsMu.Unlock()
		if limit != "" {
			s.refuseConn(nc, limit, reason)
			continue
		}
		go s.serveConn(ctx, c)
	}
	cancel()
	ln.Close()
	// Games that are over get their END push before the connections close.
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.watchWG.Wait()
	close(s.watched)
	s.connsMu.Lock()
	for c := range s.conns {
		c.nc.SetReadDeadline(time.Now()) // the reader stops, the writer flushes, then the connection closes
	}
	s.connsMu.Unlock()
	flushed := make(chan struct{})
	go func() { s.wg.Wait(); close(flushed) }()
	t := time.NewTimer(shutdownFlush)
	select {
	case <-flushed:
	case <-t.C:
		s.connsMu.Lock()
		for c := range s.conns {
			c.nc.Close() // a client that does not read: no more waiting
		}
		s.connsMu.Unlock()
		<-flushed
	}
	t.Stop()
	s.log.Info("lobby server stopped", "server", s.srv)
	return err
}

// shutdownFlush bounds the time Serve waits, once cancelled, for the lines
// queued to clients (END pushes) to be written.
const shutdownFlush = 2 * time.Second

// refuseConn answers a connection over a connection limit with one 500 line
// (best effort, without blocking the accept loop) and closes it.
func (s *Server) refuseConn(nc net.Conn, limit, reason string) {
	s.stats.limit(limit)
	addr := remoteIP(nc)
	s.bursts.hit(s.log, limit+" "+addr, "lobby limit hit: connection refused", "limit", limit, "remote", addr)
	line, _ := AppendResponse(nil, Response{Code: CodeWrongRequest, Header: s.srv, Body: reason})
	nc.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	nc.Write(line)
	nc.Close()
}

// Broadcast pushes BROADCAST with text to every open connection
// (docs/PROTOCOL.md §2.5.6) and returns how many connections it was queued
// for. text must pass CheckText.
func (s *Server) Broadcast(text string) (int, error) {
	if err := CheckText(text); err != nil {
		return 0, err
	}
	line, err := AppendCommand(nil, Command{Name: PushBroadcast, Header: s.srv, Args: textArgs(EncodeText(text))})
	if err != nil {
		return 0, err
	}
	s.connsMu.Lock()
	n := 0
	for c := range s.conns {
		c.send(line)
		n++
	}
	s.connsMu.Unlock()
	s.stats.broadcasts.Add(1)
	s.log.Info("lobby broadcast sent", "clients", n, "text", text)
	return n, nil
}

// Stats returns the server's figures (see Stats).
func (s *Server) Stats() Stats {
	st := Stats{
		Replies:       map[int]uint64{CodeOK: s.stats.replies[0].Load(), CodeForbidden: s.stats.replies[1].Load(), CodeWrongRequest: s.stats.replies[2].Load()},
		LimitHits:     make(map[string]uint64, len(Limits)),
		AcceptErrors:  s.stats.acceptErrors.Load(),
		ConnsAccepted: s.stats.accepted.Load(),
		ChatLines:     s.stats.chat.Load(),
		Broadcasts:    s.stats.broadcasts.Load(),
	}
	for i, n := range Limits {
		st.LimitHits[n] = s.stats.limits[i].Load()
	}
	s.connsMu.Lock()
	st.Connections = len(s.conns)
	s.connsMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.connsMu.Lock()
	for c := range s.conns {
		if !c.authed {
			st.Unauthenticated++
		}
	}
	s.connsMu.Unlock()
	st.Lobbies = len(s.lobbies)
	for _, l := range s.lobbies {
		if l.phase == phaseWaiting {
			st.Members += len(l.members)
		} else {
			st.LobbiesRunning++
			st.Playing += len(l.members)
		}
	}
	return st
}

// Lobbies returns a snapshot of the live lobbies, the oldest first.
func (s *Server) Lobbies() []LobbyInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lobbiesLocked()
}

func (s *Server) lobbiesLocked() []LobbyInfo {
	ls := make([]*lobbyState, 0, len(s.lobbies))
	for _, l := range s.lobbies {
		ls = append(ls, l)
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].created < ls[j].created })
	out := make([]LobbyInfo, len(ls))
	for i, l := range ls {
		out[i] = LobbyInfo{Code: l.code, Players: len(l.members), Running: l.phase != phaseWaiting, Stage: l.stage.Name}
	}
	return out
}

func (s *Server) serveConn(ctx context.Context, c *conn) {
	defer s.wg.Done()
	wdone := make(chan struct{})
	go func() {
		defer close(wdone)
		c.writeLoop()
	}()
	defer func() {
		s.dropConn(c)
		c.finish() // flush what is queued (e.g. the 500 before closing)...
		<-wdone
		c.nc.Close() // ...then close
		s.connsMu.Lock()
		delete(s.conns, c) // only now: Serve's shutdown must still be able to close it
		if s.addrConns[c.addr]--; s.addrConns[c.addr] <= 0 {
			delete(s.addrConns, c.addr)
		}
		s.connsMu.Unlock()
	}()
	remote := c.nc.RemoteAddr().String()
	s.log.Debug("lobby connection opened", "remote", remote)
	if s.cfg.AuthTimeout > 0 {
		c.idleUntil.Store(time.Now().Add(s.cfg.AuthTimeout).UnixNano())
	} else if s.cfg.IdleTimeout > 0 {
		c.idleUntil.Store(time.Now().Add(s.cfg.IdleTimeout).UnixNano())
	}
	lr := lineReader{r: c.nc}
	for {
		if u := c.idleUntil.Load(); u != 0 {
			c.nc.SetReadDeadline(time.Unix(0, u))
		} else {
			c.nc.SetReadDeadline(time.Time{})
		}
		// Checked after setting the deadline: Serve cancels ctx before it sets every deadline to
		// now, so a shutdown is seen here or wakes the read below.
		if ctx.Err() != nil {
			<-s.watched // the END pushes are queued before this connection leaves its lobby
			return
		}
		line, err := lr.readLine()
		if err != nil {
			switch {
			case errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() == nil:
				if u := c.idleUntil.Load(); u != 0 && time.Now().UnixNano() < u {
					continue // the deadline moved (END restarted the idle timer)
				}
				if s.inGame(c) {
					// The TCP link is quiet while the player plays over UDP.
					c.idleUntil.Store(time.Now().Add(max(s.cfg.IdleTimeout, time.Minute)).UnixNano())
					continue
				}
				limit := LimitIdle
				if !s.authed(c) {
					limit = LimitAuthTimeout
				}
				s.stats.limit(limit)
				if limit == LimitAuthTimeout { // a connection that never authenticated: logged as a limit hit
					s.bursts.hit(s.log, limit+" "+c.addr, "lobby limit hit: connection closed", "limit", limit, "remote", c.addr)
				} else {
					s.log.Debug("lobby connection closed: "+limit, "remote", remote, "user", c.userString())
				}
			case errors.Is(err, ErrLineTooLong):
				c.reply(s, CodeWrongRequest, "line longer than 4096 bytes, closing connection")
				s.log.Debug("lobby connection closed: line too long", "remote", remote, "user", c.userString())
			default:
				s.log.Debug("lobby connection closed", "remote", remote, "user", c.userString(), "err", err)
			}
			return
		}
		if !c.cmdRate.Allow() {
			c.refused++
			s.stats.limit(LimitCommandRate)
			s.bursts.hit(s.log, LimitCommandRate+" "+c.addr, "lobby limit hit: command refused", "limit", LimitCommandRate,
				"remote", c.addr, "user", c.userString())
			if c.refused >= MaxRefused {
				c.reply(s, CodeWrongRequest, "too many commands, closing connection")
				return
			}
			c.reply(s, CodeWrongRequest, fmt.Sprintf("too many commands: at most %g per second", s.cfg.CommandRate))
			continue
		}
		c.refused = 0
		s.handle(c, line)
		if c.lastCode == CodeOK && s.authed(c) {
			// Only a valid command from an authenticated user restarts the idle timer.
			var u int64
			if s.cfg.IdleTimeout > 0 {
				u = time.Now().Add(s.cfg.IdleTimeout).UnixNano()
			}
			c.idleUntil.Store(u)
		}
	}
}

func (s *Server) authed(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return c.authed
}

func (c *conn) userString() string {
	if !c.authed {
		return ""
	}
	return c.id.String()
}

// send queues one complete line for the writer; it never blocks on the
// network. A client with more than maxOutbox bytes pending is disconnected.
func (c *conn) send(line []byte) {
	c.wmu.Lock()
	if c.dead {
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

// finish makes the writer stop once the queue is empty.
func (c *conn) finish() {
	c.wmu.Lock()
	c.finishing = true
	c.wmu.Unlock()
	c.signal()
}

// writeLoop writes queued lines in order until finish (queue drained) or a
// write error (which closes the connection).
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
			c.wmu.Unlock()
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

// reply queues a response. Error bodies (reasons) are sanitized and cut to 256
// bytes; 200 bodies are sent whole (GET_LOBBIES, GET_STAGES and GET_STAGE
// bodies can be longer, and are built valid).
func (c *conn) reply(s *Server, code int, body string) {
	c.lastCode = code
	s.stats.reply(code)
	if code != CodeOK {
		body = sanitize(body)
	}
	line, err := AppendResponse(nil, Response{Code: code, Header: s.srv, Body: body})
	if err != nil { // cannot happen after sanitize; never send a broken line
		line, _ = AppendResponse(nil, Response{Code: CodeWrongRequest, Header: s.srv, Body: "internal error"})
	}
	c.send(line)
}

func (s *Server) push(c *conn, name string, args ...string) {
	line, err := AppendCommand(nil, Command{Name: name, Header: s.srv, Args: args})
	if err != nil {
		s.log.Error("lobby push not sent", "push", name, "err", err)
		return
	}
	c.send(line)
}

// sanitize makes s a valid response body: printable ASCII, at most 256 bytes.
func sanitize(s string) string {
	b := []byte(s)
	if len(b) > 256 {
		b = b[:256]
	}
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	return string(b)
}

func (s *Server) inGame(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return c.lobby != nil && c.lobby.phase != phaseWaiting
}

func (s *Server) dropConn(c *conn) {
	s.mu.Lock()
	drop := s.leaveLocked(c, "disconnected")
	s.mu.Unlock()
	if drop != nil {
		drop()
	}
}

// handle answers one complete line (docs/PROTOCOL.md §2.2: every line gets
// exactly one response).
func (s *Server) handle(c *conn, line []byte) {
	cmd, err := ParseCommand(line)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			c.reply(s, CodeWrongRequest, se.Reason)
		} else {
			c.reply(s, CodeWrongRequest, err.Error())
		}
		return
	}
	switch cmd.Name {
	case CmdAuthenticate:
		s.authenticate(c, cmd)
		return
	case CmdGetLobbies, CmdJoinLobby, CmdStart, CmdLeave, CmdGetStages, CmdSetStage, CmdGetStage, CmdChat, CmdRejoin:
	default:
		name := cmd.Name
		if len(name) > 32 {
			name = name[:32] + "..."
		}
		c.reply(s, CodeWrongRequest, "unknown command "+name)
		return
	}
	if code, reason := checkHeader(c, cmd.Header); code != CodeOK {
		c.reply(s, code, reason)
		return
	}
	switch cmd.Name {
	case CmdGetLobbies:
		s.getLobbies(c, cmd)
	case CmdChat:
		s.chat(c, cmd)
	case CmdJoinLobby:
		s.join(c, cmd)
	case CmdRejoin:
		s.rejoin(c, cmd)
	case CmdStart:
		s.start(c, cmd)
	case CmdLeave:
		s.leave(c, cmd)
	case CmdGetStages:
		s.getStages(c, cmd)
	case CmdSetStage:
		s.setStage(c, cmd)
	case CmdGetStage:
		s.getStage(c, cmd)
	}
}

// checkHeader validates the user UUID header: it must be the canonical
// lowercase form of the UUID this very connection received from AUTHENTICATE.
func checkHeader(c *conn, h string) (int, string) {
	if h == "" {
		return CodeForbidden, "missing user uuid header (AUTHENTICATE first)"
	}
	id, err := uuid.Parse(h)
	if err != nil || id.String() != h {
		return CodeForbidden, "malformed user uuid header (want 36-char lowercase uuid)"
	}
	if !c.authed || id != c.id {
		return CodeForbidden, "unknown user uuid"
	}
	return CodeOK, ""
}

func (s *Server) authenticate(c *conn, cmd Command) {
	if cmd.Header != "" {
		c.reply(s, CodeWrongRequest, "AUTHENTICATE takes no header: send \"AUTHENTICATE ;<name>\"")
		return
	}
	if len(cmd.Args) > 1 {
		c.reply(s, CodeWrongRequest, "AUTHENTICATE takes one argument, the player name")
		return
	}
	name := DefaultName()
	if len(cmd.Args) == 1 && cmd.Args[0] != "" {
		name = cmd.Args[0]
	}
	if !ValidName(name) {
		c.reply(s, CodeWrongRequest, "invalid name: 1 to 16 characters of A-Z a-z 0-9 _ -")
		return
	}
	if c.authed {
		c.reply(s, CodeWrongRequest, "already authenticated on this connection")
		return
	}
	id, err := uuid.NewRandom()
	if err != nil {
		c.reply(s, CodeWrongRequest, "cannot generate uuid")
		return
	}
	s.mu.Lock()
	c.authed, c.id, c.name = true, id, name
	s.mu.Unlock()
	s.log.Debug("lobby user authenticated", "user", id.String(), "name", name, "remote", c.nc.RemoteAddr().String())
	c.reply(s, CodeOK, id.String())
}

func (s *Server) join(c *conn, cmd Command) {
	if len(cmd.Args) > 2 {
		c.reply(s, CodeWrongRequest, "JOIN_LOBBY takes a lobby code, or an empty code and a stage name to create a lobby")
		return
	}
	code := ""
	if len(cmd.Args) >= 1 {
		code = upper(cmd.Args[0])
		if code != "" && !ValidCode(code) {
			c.reply(s, CodeWrongRequest, "invalid lobby code: 5 characters of "+CodeAlphabet)
			return
		}
	}
	stage := s.cfg.Stages.Default()
	if len(cmd.Args) == 2 {
		if code != "" {
			c.reply(s, CodeWrongRequest, "a stage is chosen only when creating a lobby: JOIN_LOBBY <uuid>;,<stage>")
			return
		}
		if stage = s.cfg.Stages.ByName(cmd.Args[1]); stage == nil {
			c.reply(s, CodeWrongRequest, s.unknownStage(cmd.Args[1]))
			return
		}
	}
	s.mu.Lock()
	var l *lobbyState
	if code == "" {
		n, mine := len(s.lobbies), 0
		for _, o := range s.lobbies {
			if len(o.members) > 0 && o.members[0].addr == c.addr && o != c.lobby {
				mine++
			}
		}
		if c.lobby != nil && len(c.lobby.members) == 1 {
			n-- // leaving removes that lobby
		}
		limit, reason := "", ""
		switch {
		case mine >= s.cfg.MaxLobbiesPerAddr:
			limit, reason = LimitLobbiesPerAddr, "too many lobbies from "+c.addr+" (max "+strconv.Itoa(s.cfg.MaxLobbiesPerAddr)+")"
		case n >= s.cfg.MaxLobbies:
			limit, reason = LimitLobbies, "too many lobbies (max "+strconv.Itoa(s.cfg.MaxLobbies)+")"
		}
		if limit != "" {
			s.mu.Unlock()
			s.stats.limit(limit)
			s.bursts.hit(s.log, limit+" "+c.addr, "lobby limit hit: lobby not created", "limit", limit, "remote", c.addr, "user", c.id.String())
			c.reply(s, CodeWrongRequest, reason)
			return
		}
	} else {
		l = s.lobbies[code]
		switch {
		case l == nil:
			s.mu.Unlock()
			c.reply(s, CodeWrongRequest, "no lobby with code "+code)
			return
		case l == c.lobby:
			s.mu.Unlock()
			c.reply(s, CodeOK, code) // already a member: nothing changes
			return
		case l.phase != phaseWaiting:
			s.spectateLocked(c, l) // unlocks s.mu
			return
		case len(l.members) >= MaxPlayers:
			s.mu.Unlock()
			c.reply(s, CodeWrongRequest, "lobby "+code+" is full ("+strconv.Itoa(MaxPlayers)+" players)")
			return
		}
	}
	drop := s.leaveLocked(c, "joined another lobby")
	if l == nil {
		code, err := s.newCodeLocked()
		if err != nil {
			s.mu.Unlock()
			c.reply(s, CodeWrongRequest, "cannot create a lobby code")
			if drop != nil {
				drop()
			}
			return
		}
		s.created++
		l = &lobbyState{code: code, stage: stage, created: s.created}
		s.lobbies[code] = l
		s.log.Debug("lobby created", "code", code, "stage", stage.Name, "user", c.id.String(), "name", c.name, "lobbies", len(s.lobbies))
	}
	l.members = append(l.members, c)
	c.lobby = l
	s.log.Debug("lobby joined", "code", l.code, "user", c.id.String(), "name", c.name, "players", len(l.members))
	c.reply(s, CodeOK, l.code)
	s.pushMembersLocked(l)
	s.pushStageLocked(c, l)
	s.mu.Unlock()
	if drop != nil {
		drop()
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func (s *Server) newCodeLocked() (string, error) {
	var b [CodeLen]byte
	for range 1000 {
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		for i := range b {
			b[i] = CodeAlphabet[b[i]%byte(len(CodeAlphabet))] // 256 % 32 == 0: uniform
		}
		if _, taken := s.lobbies[string(b[:])]; !taken {
			return string(b[:]), nil
		}
	}
	return "", errors.New("lobby: no free code")
}

// leaveLocked removes c from its lobby (if any): MEMBERS goes to the remaining
// members, an emptied lobby is removed. It returns the Game.Drop call to make
// once s.mu is released (nil if none).
func (s *Server) leaveLocked(c *conn, reason string) (drop func()) {
	l := c.lobby
	if l == nil {
		return nil
	}
	c.lobby = nil
	for i, m := range l.members {
		if m == c {
			l.members = append(l.members[:i], l.members[i+1:]...)
			break
		}
	}
	for i, m := range l.spectators {
		if m == c {
			l.spectators = append(l.spectators[:i], l.spectators[i+1:]...)
			break
		}
	}
	if l.phase == phaseWaiting {
		s.promoteLocked(l)
	}
	s.log.Debug("lobby left", "code", l.code, "user", c.id.String(), "name", c.name, "reason", reason,
		"players", len(l.members), "inGame", l.phase != phaseWaiting)
	switch l.phase {
	case phaseRunning:
		if _, ok := l.game.(Rejoiner); ok && reason == "disconnected" {
			l.lost = true
		}
		g, id, left := l.game, c.id, reason != "disconnected"
		drop = func() { g.Drop(id, left) }
	case phaseStarting:
		l.leftWhileStarting = append(l.leftWhileStarting, c.id)
	}
	if len(l.members) == 0 && len(l.spectators) == 0 && l.phase == phaseWaiting {
		delete(s.lobbies, l.code)
		s.log.Debug("lobby removed", "code", l.code, "lobbies", len(s.lobbies))
	} else if len(l.members) == 0 && len(l.spectators) == 0 && !l.lost {
		delete(s.lobbies, l.code) // every player left for good: the game ends aborted
		s.log.Debug("lobby removed", "code", l.code, "lobbies", len(s.lobbies))
	} else if len(l.members) == 0 && len(l.spectators) == 0 {
		// Running: the lobby stays until END so that its lost players can rejoin (REJOIN).
		s.log.Debug("lobby empty while its game runs; kept for rejoins", "code", l.code)
	} else if s.ctx.Err() == nil { // no MEMBERS after END while the server shuts down
		s.pushMembersLocked(l)
	}
	return drop
}

func (s *Server) pushMembersLocked(l *lobbyState) {
	args := make([]string, 0, 1+len(l.members))
	args = append(args, l.code)
	for _, m := range l.members {
		args = append(args, m.name)
	}
	for _, m := range l.members {
		s.push(m, PushMembers, args...)
	}
	for _, m := range l.spectators {
		s.push(m, PushMembers, args...)
	}
}

// pushStageLocked tells c the stage of its lobby l (docs/PROTOCOL.md §2.5.4).
func (s *Server) pushStageLocked(c *conn, l *lobbyState) {
	s.push(c, PushStage, l.code, l.stage.Name, l.stage.Hash)
}

func (s *Server) unknownStage(name string) string {
	return fmt.Sprintf("unknown stage %q (offered: %s)", name, strings.Join(s.cfg.Stages.Names(), ", "))
}

func (s *Server) getStages(c *conn, cmd Command) {
	if len(cmd.Args) > 0 {
		c.reply(s, CodeWrongRequest, "GET_STAGES takes no arguments")
		return
	}
	files := s.cfg.Stages.Files()
	ss := make([]StageInfo, len(files))
	for i, f := range files {
		ss[i] = StageInfo{Name: f.Name, Hash: f.Hash}
	}
	c.reply(s, CodeOK, string(AppendStages(nil, ss)))
}

func (s *Server) setStage(c *conn, cmd Command) {
	if len(cmd.Args) != 1 {
		c.reply(s, CodeWrongRequest, "SET_STAGE takes one argument, the stage name")
		return
	}
	st := s.cfg.Stages.ByName(cmd.Args[0])
	if st == nil {
		c.reply(s, CodeWrongRequest, s.unknownStage(cmd.Args[0]))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := c.lobby
	switch {
	case l == nil:
		c.reply(s, CodeWrongRequest, "not in a lobby")
		return
	case l.phase != phaseWaiting:
		c.reply(s, CodeWrongRequest, "lobby "+l.code+" is running a game")
		return
	case len(l.members) == 0 || l.members[0] != c:
		c.reply(s, CodeWrongRequest, "only the lobby owner ("+l.ownerName()+") may change the stage")
		return
	}
	c.reply(s, CodeOK, "OK")
	if l.stage == st {
		return
	}
	l.stage = st
	s.log.Debug("lobby stage set", "code", l.code, "stage", st.Name, "user", c.id.String())
	for _, m := range l.members {
		s.pushStageLocked(m, l)
	}
}

func (s *Server) getStage(c *conn, cmd Command) {
	if len(cmd.Args) != 2 {
		c.reply(s, CodeWrongRequest, "GET_STAGE takes two arguments, the stage hash and the part number")
		return
	}
	parts := s.stageParts[cmd.Args[0]]
	if parts == nil {
		c.reply(s, CodeWrongRequest, fmt.Sprintf("unknown stage hash %q", cmd.Args[0]))
		return
	}
	p := cmd.Args[1]
	i, err := strconv.Atoi(p)
	if err != nil || len(p) > 4 || (len(p) > 1 && p[0] == '0') || p[0] == '+' || p[0] == '-' || i >= len(parts) {
		c.reply(s, CodeWrongRequest, fmt.Sprintf("part %q out of range: stage %s has parts 0..%d", p, cmd.Args[0], len(parts)-1))
		return
	}
	c.reply(s, CodeOK, parts[i])
}

func (s *Server) leave(c *conn, cmd Command) {
	if len(cmd.Args) > 0 {
		c.reply(s, CodeWrongRequest, "LEAVE takes no arguments")
		return
	}
	s.mu.Lock()
	if c.lobby == nil {
		s.mu.Unlock()
		c.reply(s, CodeWrongRequest, "not in a lobby")
		return
	}
	drop := s.leaveLocked(c, "left")
	c.reply(s, CodeOK, "OK")
	s.mu.Unlock()
	if drop != nil {
		drop()
	}
}

// randToken returns a uniformly random non-zero u32 from crypto/rand.
func randToken() (uint32, error) {
	var b [4]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			return 0, err
		}
		if t := binary.LittleEndian.Uint32(b[:]); t != 0 {
			return t, nil
		}
	}
}

func (s *Server) start(c *conn, cmd Command) {
	if len(cmd.Args) > 0 {
		c.reply(s, CodeWrongRequest, "START takes no arguments")
		return
	}
	s.mu.Lock()
	l := c.lobby
	switch {
	case l == nil:
		s.mu.Unlock()
		c.reply(s, CodeWrongRequest, "not in a lobby")
		return
	case l.phase != phaseWaiting:
		s.mu.Unlock()
		c.reply(s, CodeWrongRequest, "lobby "+l.code+" is already running a game")
		return
	case len(l.members) == 0 || l.members[0] != c:
		owner := l.ownerName() // under s.mu: members change with every JOIN and LEAVE
		s.mu.Unlock()
		c.reply(s, CodeWrongRequest, "only the lobby owner ("+owner+") may start the game")
		return
	case s.cfg.Starter == nil:
		s.mu.Unlock()
		c.reply(s, CodeWrongRequest, "no game server available")
		return
	}
	stage := l.stage.Name
	members := make([]Member, len(l.members))
	slotOf := make(map[*conn]int, len(l.members))
	for i, m := range l.members {
		t, err := randToken()
		for err == nil && slicesContainsToken(members[:i], t) {
			t, err = randToken()
		}
		if err != nil {
			s.mu.Unlock()
			c.reply(s, CodeWrongRequest, "cannot generate session tokens")
			return
		}
		members[i] = Member{UUID: m.id, Name: m.name, Slot: i, Token: t}
		if _, err := rand.Read(members[i].Key[:]); err != nil {
			s.mu.Unlock()
			c.reply(s, CodeWrongRequest, "cannot generate session keys")
			return
		}
		slotOf[m] = i
	}
	l.phase = phaseStarting
	s.mu.Unlock()

	g, err := s.cfg.Starter.StartGame(l.code, stage, append([]Member(nil), members...))
	if err == nil && g == nil {
		err = errors.New("starter returned no game")
	}
	var port int
	if err == nil {
		port = g.Port()
	}

	s.mu.Lock()
	left := l.leftWhileStarting
	l.leftWhileStarting = nil
	if err != nil {
		l.phase = phaseWaiting
		s.mu.Unlock()
		s.log.Warn("lobby start failed", "code", l.code, "err", err)
		c.reply(s, CodeWrongRequest, "cannot start game: "+err.Error())
		return
	}
	// c is still a member: only its own goroutine (this one) can remove it.
	l.phase = phaseRunning
	l.game = g
	l.slots = members
	if !s.closing {
		// Counted before START goes out, and never once Serve waits for the watchers.
		s.watchWG.Add(1)
		go s.watch(l, g)
	}
	c.reply(s, CodeOK, "OK")
	ps := strconv.Itoa(port)
	for _, m := range l.members {
		mem := &members[slotOf[m]]
		s.push(m, PushStart, ps, strconv.FormatUint(uint64(mem.Token), 10), hex.EncodeToString(mem.Key[:]))
	}
	s.startSpectatorsLocked(l, g, ps)
	s.log.Info("lobby started", "code", l.code, "stage", stage, "players", len(l.members), "port", port, "user", c.id.String())
	s.mu.Unlock()
	for _, id := range left {
		g.Drop(id, true) // not in the game yet: no session to tell
	}
}

func slicesContainsToken(ms []Member, t uint32) bool {
	for _, m := range ms {
		if m.Token == t {
			return true
		}
	}
	return false
}

// watch waits for g to finish, then pushes END to the lobby members and puts
// the lobby back to waiting.
func (s *Server) watch(l *lobbyState, g Game) {
	defer s.watchWG.Done()
	select {
	case <-g.Done():
	case <-s.ctx.Done():
		select {
		case <-g.Done(): // over as the server shuts down: END still goes out
		default:
			return
		}
	}
	res := g.Result()
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.game != g {
		return
	}
	l.phase = phaseWaiting
	l.game = nil
	l.slots = nil
	l.lost = false
	live := s.lobbies[l.code] == l
	if live && len(l.members) == 0 && len(l.spectators) == 0 {
		delete(s.lobbies, l.code) // every player was lost and none rejoined
		live = false
	}
	s.log.Info("lobby ended", "code", l.code, "result", res, "players", len(l.members), "removed", !live)
	if !live {
		return
	}
	r := strconv.Itoa(int(res))
	for _, m := range append(append([]*conn(nil), l.members...), l.spectators...) {
		if s.cfg.IdleTimeout > 0 {
			// The idle timer was suspended during the game: restart it now.
			u := time.Now().Add(s.cfg.IdleTimeout)
			m.idleUntil.Store(u.UnixNano())
			m.nc.SetReadDeadline(u)
		}
		s.push(m, PushEnd, r)
	}
	if len(l.spectators) > 0 && len(l.members) < MaxPlayers && s.ctx.Err() == nil {
		s.promoteLocked(l) // spectators take the free places, in join order
		s.pushMembersLocked(l)
	}
}

// getLobbies answers GET_LOBBIES [<skip>] (docs/PROTOCOL.md §2.4.2): the
// lobbies oldest first, after skipping the first skip ones, as many whole
// entries as fit in one line.
func (s *Server) getLobbies(c *conn, cmd Command) {
	skip := 0
	switch len(cmd.Args) {
	case 0:
	case 1:
		n, err := strconv.Atoi(cmd.Args[0])
		if err != nil || n < 0 || len(cmd.Args[0]) > 9 || cmd.Args[0][0] == '+' || (len(cmd.Args[0]) > 1 && cmd.Args[0][0] == '0') {
			c.reply(s, CodeWrongRequest, "GET_LOBBIES takes no argument, or the number of lobbies to skip")
			return
		}
		skip = n
	default:
		c.reply(s, CodeWrongRequest, "GET_LOBBIES takes no argument, or the number of lobbies to skip")
		return
	}
	ls := s.Lobbies()
	room := MaxLine - len("200 ") - len(s.srv) - len(" ") - len("\r\n")
	var body []byte
	for _, l := range ls[min(skip, len(ls)):] {
		n := len(body)
		body = AppendLobbies(body, []LobbyInfo{l})
		if len(body) > room {
			body = body[:n]
			break
		}
	}
	c.reply(s, CodeOK, string(body))
}

// chat relays CHAT <uuid>;<text> to every member of the sender's lobby
// (docs/PROTOCOL.md §2.4.9).
func (s *Server) chat(c *conn, cmd Command) {
	wire := strings.Join(cmd.Args, ",") // commas travel as they are: the text is the rest of the line
	text, err := DecodeText(wire)
	if err != nil {
		c.reply(s, CodeWrongRequest, "chat text: "+textReason(err))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l := c.lobby
	if l == nil {
		c.reply(s, CodeWrongRequest, "not in a lobby")
		return
	}
	if !c.chatRate.Allow() {
		s.stats.limit(LimitChatRate)
		s.bursts.hit(s.log, LimitChatRate+" "+c.addr, "lobby limit hit: chat line refused", "limit", LimitChatRate,
			"remote", c.addr, "user", c.id.String())
		c.reply(s, CodeWrongRequest, fmt.Sprintf("too many chat lines: at most %d at once, then 1 per second", ChatBurst))
		return
	}
	c.reply(s, CodeOK, "OK")
	s.stats.chat.Add(1)
	args := append([]string{c.name}, textArgs(EncodeText(text))...)
	for _, m := range l.members {
		s.push(m, PushChat, args...)
	}
	for _, m := range l.spectators {
		s.push(m, PushChat, args...)
	}
	s.log.Debug("lobby chat", "code", l.code, "user", c.id.String(), "name", c.name, "text", text)
}
