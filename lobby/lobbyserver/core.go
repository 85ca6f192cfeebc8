package lobbyserver

import (
	"container/heap"
	"errors"
	"log/slog"
	"net/netip"
	"time"

	"github.com/google/uuid"
	"golang.org/x/time/rate"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
)

// ConnID names one lobby connection to the Core; the runtime chooses it (unique while the
// connection is open).
type ConnID uint64

// Out is one thing the Core asks its runtime to do: on connection Conn, send Line (a complete
// line, CRLF included), then, when Close is set, flush what is queued for the connection and
// close it; or, when Game is set, watch that game, which the Core has just started, and call
// GameEnded once it is over. Outs of one connection are in the order they must reach it.
//
// When Request is set, the runtime asks its Hall that question for connection Conn (on a
// goroutine, at most HallTimeout) and hands the answer back with Answered (hall.go). When Start
// is set (ServerConfig.AsyncStart), the runtime starts that game for connection Conn's lobby
// (Starter.StartGame on a goroutine) and hands the result back with Started (starting.go); when
// Call is set (AsyncStart too), it makes that call of a running game for connection Conn
// (Rejoin or Spectate, on a goroutine) and hands the result back with Called (calling.go).
type Out struct {
	Conn    ConnID
	Line    []byte
	Close   bool
	Game    handoff.Game
	Request *Request
	Start   *StartRequest
	Call    *GameCall
}

// Core is the lobby's protocol core (docs/PROTOCOL.md §2): the connections, their users,
// limits and timers, the lobbies and their members. It owns no goroutine, socket or clock: its
// runtime (Server, or a virtual-time test) hands it each connection event with the time now —
// Open, Line, LineTooLong, Closed — the games' events (GameEnded), and calls Tick at
// NextDeadline; after each call it carries out what the Core left in Outbox. Games are handed
// to the game runtime through ServerConfig.Starter, whose Game the Core then drives (Drop,
// Rejoin, Spectate; with AsyncStart the runtime makes the Rejoin and Spectate calls,
// calling.go). Times are monotonic durations from an origin fixed by the runtime. Not
// safe for concurrent use.
//
// Each command is one method of the Core, listed in commands (commands.go); the files hold
// its parts: accept and limits (limits.go), membership (membership.go), stages (stages.go),
// the game lifecycle (games.go, starting.go, rejoin.go, calling.go), listing and chat
// (listing.go).
type Core struct {
	cfg ServerConfig
	srv string // the server UUID, the header of every response and push
	log *slog.Logger
	// stageParts holds, per stage hash, the bodies of GET_STAGE part 0, 1, ...
	stageParts map[string][]string

	conns     map[ConnID]*connState
	addrConns map[string]int // open connections per address key (addrKey)
	lobbies   map[string]*lobbyState
	created   uint64        // lobbies created so far (lobbyState.created)
	order     []*lobbyState // the lobbies oldest first (addLobby, removeLobby): GET_LOBBIES' order
	stopping  bool          // the runtime shuts down: no more MEMBERS pushes
	// lastBroadcast is the operator's last BROADCAST text ("" none): CLOSING repeats it.
	lastBroadcast string
	// draining: the server shuts down and starts no more games (Drain).
	draining bool

	timers    timerHeap     // connection deadlines (lazy: stale entries are skipped)
	nextFlush time.Duration // when the limit log reports the bursts that ended

	stats  counters
	bursts burstLog
	mod    modState // bans and mutes (moderation.go)
	out    []Out

	asked uint64   // hall-of-fame requests so far (Request.ID)
	asks  []askDue // requests waiting for Answered, by due time (hall.go)
	// hallOut are the requests at the runtime, by ID, with their address key; hallAddr how
	// many each address has there, hallRate its GET_SCORES and GET_GAMES budget (hall.go).
	hallOut  map[uint64]string
	hallAddr map[string]int
	hallRate map[string]*rate.Limiter
	// replayRate is each address's replay download budget (ReplayRate).
	replayRate map[string]*rate.Limiter

	startsMade uint64                   // asynchronous starts so far (StartRequest.ID)
	starts     map[uint64]*pendingStart // those whose result has not come (starting.go)
	startQueue []*pendingStart          // the lobbies' starts by due time (lazy)

	callsMade uint64                  // asynchronous game calls so far (GameCall.ID)
	calls     map[uint64]*pendingCall // those whose result has not come (calling.go)
	callQueue []*pendingCall          // the calls by due time (lazy)
}

// lobbyState is one lobby: waiting for its owner's START, starting (AsyncStart: the runtime
// carries the START out), or running a game.
type lobbyState struct {
	code    string
	created uint64          // creation order (GET_LOBBIES lists the oldest first)
	stage   *stagefile.File // what START plays; changed by SET_STAGE while waiting
	// run is the arcade run START plays (run.go; nil: the stage alone), stage its first.
	run []*stagefile.File
	// section is the practice section START plays (practice.go; 0: the stage's start).
	section int
	// infinite: START plays with infinite lives (practice.go, SET_LIVES).
	infinite bool
	// retry: the owner asked for RETRY; when the running game ends, the lobby starts the
	// next one by itself (practice.go).
	retry bool
	// difficulty is the level START plays; changed by SET_DIFFICULTY while waiting.
	difficulty rules.Difficulty
	members    []*connState  // join order; members[0] is the owner
	game       handoff.Game  // the running game (nil: waiting)
	starting   *pendingStart // the START the runtime carries out (nil: none; starting.go)
	gameID     uuid.UUID     // the running (or last) game's id (GameSpec.ID)
	practice   bool          // the running (or last) game is a practice (GameSpec.Practice): not kept
	// slots are the running game's players by slot (token and session key of the latest
	// START or rejoin of each slot): REJOIN checks its proof against them (rejoin.go).
	slots []handoff.Member
	// resumed are the members that took a slot back with RESUME, by slot (resume.go): their
	// connection's UUID is not the slot's, which the game knows them by (gameUser).
	resumed map[int]*connState
	// spectators watch the lobby's games without a slot, in join order, at most
	// MaxSpectators (rejoin.go).
	spectators []*connState
	// password, when set, makes the lobby private: not listed, joined with it (private.go).
	password string
	// lost: a player's connection closed while the game (a Rejoiner) runs: the lobby stays,
	// even empty, until END so that it can rejoin.
	lost bool
}

func (l *lobbyState) running() bool { return l.game != nil }

// connState is the Core's view of one open connection.
type connState struct {
	id       ConnID
	addr     string        // address key of the per-address limits (addrKey)
	ip       netip.Addr    // the peer's address (bans by address, moderation.go)
	deadline time.Duration // when the connection is closed unless a valid command comes (0: never)
	cmdRate  *rate.Limiter
	chatRate *rate.Limiter
	refused  int // lines in a row refused by cmdRate
	lastCode int // code of the latest response

	authed bool
	user   uuid.UUID
	name   string
	lobby  *lobbyState
	// watchToken is the session token of the spectator's latest SPECTATE (SpectatorsGone).
	watchToken uint32
	// waiting is the hall-of-fame request waiting for its answer; held the lines the
	// connection sent meanwhile (or while its START is carried out, busy), handled after it
	// (hall.go).
	waiting *ask
	// calling is the rejoin or spectate call of a game waiting for its result (AsyncStart,
	// calling.go): the connection's later lines are held behind it too.
	calling *pendingCall
	held    [][]byte
}

// busy reports whether cs waits for an answer its later lines must follow: a hall-of-fame
// request's, a game's to its REJOIN or JOIN_LOBBY (calling.go), or the start of the game it
// asked for (starting.go).
func (cs *connState) busy() bool {
	return cs.waiting != nil || cs.calling != nil || cs.lobby != nil && cs.lobby.starting != nil && cs.lobby.starting.by == cs
}

// NewCore returns a Core for cfg (see ServerConfig for the defaults) at time now.
func NewCore(cfg ServerConfig, now time.Duration) *Core {
	if cfg.Stages == nil {
		panic("lobby: ServerConfig.Stages is nil: the lobby needs the stages it offers")
	}
	cfg = cfg.withDefaults()
	c := &Core{
		cfg:        cfg,
		srv:        cfg.ServerUUID.String(),
		log:        cfg.Logger,
		conns:      make(map[ConnID]*connState),
		addrConns:  make(map[string]int),
		hallOut:    make(map[uint64]string),
		hallAddr:   make(map[string]int),
		hallRate:   make(map[string]*rate.Limiter),
		replayRate: make(map[string]*rate.Limiter),
		lobbies:    make(map[string]*lobbyState),
		stageParts: make(map[string][]string),
		starts:     make(map[uint64]*pendingStart),
		calls:      make(map[uint64]*pendingCall),
		nextFlush:  now + burstWindow,
	}
	for _, f := range cfg.Stages.Files() {
		c.stageParts[f.Hash] = stageBodies(f.Data)
	}
	return c
}

// Outbox is what the Core asks its runtime to do, in order. It stays valid until the next call
// of a Core method; the runtime calls ResetOutbox once it has carried it out.
func (c *Core) Outbox() []Out { return c.out }

// ResetOutbox empties the outbox.
func (c *Core) ResetOutbox() {
	clear(c.out)
	c.out = c.out[:0]
}

// Line handles one complete line (CRLF included) from connection id at now: the command rate,
// then the command (docs/PROTOCOL.md §2.2: every line gets exactly one response). Lines of a
// connection the Core has closed are ignored.
func (c *Core) Line(now time.Duration, id ConnID, line []byte) {
	cs := c.conns[id]
	if cs == nil {
		return
	}
	if !c.downloading(now, cs, line) && !cs.cmdRate.AllowN(wall(now), 1) {
		cs.refused++
		c.limitHit(now, LimitCommandRate, cs.addr, "lobby limit hit: command refused", "user", cs.userString())
		if cs.refused >= MaxRefused {
			c.reply(cs, lobby.CodeWrongRequest, "too many commands, closing connection")
			c.close(cs, "too many commands")
			return
		}
		c.reply(cs, lobby.CodeWrongRequest, lobby.RateRefusal(c.cfg.CommandRate))
		return
	}
	cs.refused = 0
	if cs.busy() {
		c.hold(cs, line) // answered in order, after the hall of fame's answer or the start
		return
	}
	c.handle(now, cs, line)
	if cs.lastCode == lobby.CodeOK && cs.authed && c.conns[id] == cs {
		// Only a valid command from an authenticated user restarts the idle timer.
		c.setDeadline(cs, now, c.cfg.IdleTimeout)
	}
}

// LineTooLong tells the Core that connection id sent more than MaxLine bytes without a line
// end: it is answered and closed.
func (c *Core) LineTooLong(now time.Duration, id ConnID) {
	cs := c.conns[id]
	if cs == nil {
		return
	}
	c.reply(cs, lobby.CodeWrongRequest, "line longer than 4096 bytes, closing connection")
	c.close(cs, "line too long")
}

// Closed tells the Core that connection id is closed (by its peer, a failed write, or after
// a Close the Core asked for): it leaves its lobby.
func (c *Core) Closed(_ time.Duration, id ConnID) {
	if cs := c.conns[id]; cs != nil {
		c.forget(cs, "closed")
	}
}

// close asks the runtime to flush and close cs, which the Core forgets now.
func (c *Core) close(cs *connState, why string) {
	c.out = append(c.out, Out{Conn: cs.id, Close: true})
	c.forget(cs, why)
}

// forget removes cs: it leaves its lobby as a lost connection (the game keeps its slot for a
// rejoin).
func (c *Core) forget(cs *connState, why string) {
	c.log.Debug("lobby connection closed", "remote", cs.addr, "user", cs.userString(), "why", why)
	c.leave(cs, "disconnected")
	delete(c.conns, cs.id)
	if c.addrConns[cs.addr]--; c.addrConns[cs.addr] <= 0 {
		delete(c.addrConns, cs.addr)
	}
}

// Stop tells the Core that its runtime shuts down: connections that leave their lobby from
// now on do not make it push MEMBERS to the others (they are closing too), nor does END
// promote spectators.
func (c *Core) Stop() { c.stopping = true }

// Tick closes the connections whose auth or idle deadline is past at now and reports the
// limit-log bursts that ended. The runtime calls it at NextDeadline (earlier is harmless).
func (c *Core) Tick(now time.Duration) {
	c.expireAsks(now)
	c.expireStarts(now)
	c.expireCalls(now)
	for len(c.timers) > 0 && c.timers[0].at <= now {
		e := heap.Pop(&c.timers).(timer)
		cs := c.conns[e.id]
		if cs == nil || cs.deadline != e.at {
			continue // stale: closed, or the deadline moved
		}
		if l := cs.lobby; l != nil && l.running() {
			// The TCP link is quiet while the player plays over UDP.
			c.setDeadline(cs, now, max(c.cfg.IdleTimeout, time.Minute))
			continue
		}
		limit := LimitIdle
		if !cs.authed {
			limit = LimitAuthTimeout
		}
		c.stats.limit(limit)
		if limit == LimitAuthTimeout { // a connection that never authenticated: logged as a limit hit
			c.bursts.hit(c.log, now, limit+" "+cs.addr, "lobby limit hit: connection closed", "limit", limit, "remote", cs.addr)
		}
		c.close(cs, limit)
	}
	if now >= c.nextFlush {
		c.bursts.flush(c.log, now)
		c.nextFlush = now + burstWindow
	}
}

// NextDeadline is when the Core next needs Tick.
func (c *Core) NextDeadline() time.Duration {
	next := c.nextFlush
	if a := c.nextAsk(); a != 0 {
		next = min(next, a)
	}
	if s := c.nextStart(); s != 0 {
		next = min(next, s)
	}
	if s := c.nextCall(); s != 0 {
		next = min(next, s)
	}
	for len(c.timers) > 0 {
		e := c.timers[0]
		if cs := c.conns[e.id]; cs != nil && cs.deadline == e.at {
			return min(e.at, next)
		}
		heap.Pop(&c.timers)
	}
	return next
}

// setDeadline arms cs's timer for d after now (d <= 0: no deadline).
func (c *Core) setDeadline(cs *connState, now, d time.Duration) {
	if d <= 0 {
		cs.deadline = 0
		return
	}
	cs.deadline = now + d
	if len(c.timers) > 64+4*len(c.conns) { // many stale entries: rebuild
		c.timers = c.timers[:0]
		for _, o := range c.conns {
			if o.deadline != 0 {
				c.timers = append(c.timers, timer{o.deadline, o.id})
			}
		}
		heap.Init(&c.timers)
		return
	}
	heap.Push(&c.timers, timer{cs.deadline, cs.id})
}

// handle answers one line.
func (c *Core) handle(now time.Duration, cs *connState, line []byte) {
	cmd, err := lobby.ParseCommand(line)
	if err != nil {
		var se *lobby.SyntaxError
		if errors.As(err, &se) {
			c.reply(cs, lobby.CodeWrongRequest, se.Reason)
		} else {
			c.reply(cs, lobby.CodeWrongRequest, err.Error())
		}
		return
	}
	h, ok := commands[cmd.Name]
	if !ok {
		name := cmd.Name
		if len(name) > 32 {
			name = name[:32] + "..."
		}
		c.reply(cs, lobby.CodeWrongRequest, "unknown command "+name)
		return
	}
	if h.authed {
		if code, reason := checkHeader(cs, cmd.Header); code != lobby.CodeOK {
			c.reply(cs, code, reason)
			return
		}
	}
	h.handle(c, now, cs, cmd)
}

// checkHeader validates the user UUID header: it must be the canonical lowercase form of the
// UUID this very connection received from AUTHENTICATE.
func checkHeader(cs *connState, h string) (int, string) {
	if h == "" {
		return lobby.CodeForbidden, "missing user uuid header (AUTHENTICATE first)"
	}
	id, err := uuid.Parse(h)
	if err != nil || id.String() != h {
		return lobby.CodeForbidden, "malformed user uuid header (want 36-char lowercase uuid)"
	}
	if !cs.authed || id != cs.user {
		return lobby.CodeForbidden, "unknown user uuid"
	}
	return lobby.CodeOK, ""
}

// reply queues a response. Error bodies (reasons) are sanitized and cut to 256 bytes; 200
// bodies are sent whole (GET_LOBBIES, GET_STAGES and GET_STAGE bodies can be longer, and are
// built valid).
func (c *Core) reply(cs *connState, code int, body string) {
	cs.lastCode = code
	c.stats.reply(code)
	if code != lobby.CodeOK {
		body = sanitize(body)
	}
	line, err := lobby.AppendResponse(nil, lobby.Response{Code: code, Header: c.srv, Body: body})
	if err != nil { // cannot happen after sanitize; never send a broken line
		line, _ = lobby.AppendResponse(nil, lobby.Response{Code: lobby.CodeWrongRequest, Header: c.srv, Body: "internal error"})
	}
	c.out = append(c.out, Out{Conn: cs.id, Line: line})
}

// push queues a server push.
func (c *Core) push(cs *connState, name string, args ...string) {
	line, err := lobby.AppendCommand(nil, lobby.Command{Name: name, Header: c.srv, Args: args})
	if err != nil {
		c.log.Error("lobby push not sent", "push", name, "err", err)
		return
	}
	c.out = append(c.out, Out{Conn: cs.id, Line: line})
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

func (cs *connState) userString() string {
	if !cs.authed {
		return ""
	}
	return cs.user.String()
}

// wall turns a Core time into the time.Time the rate limiters count with (only differences
// matter to them).
func wall(now time.Duration) time.Time { return time.Unix(0, 0).Add(now) }

// timer is one connection deadline in the Core's heap.
type timer struct {
	at time.Duration
	id ConnID
}

type timerHeap []timer

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h timerHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)        { *h = append(*h, x.(timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
