package lobbyserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"golang.org/x/time/rate"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/scores"
)

// The hall of fame (docs/PROTOCOL.md §2.4.12 to §2.4.14, §2.5.9): GET_SCORES, GET_GAMES and
// GET_REPLAY are answered from a database, which the Core never waits for. The Core checks the
// arguments, then leaves an Out with a Request for the connection; the runtime asks the Hall on
// a goroutine (at most HallTimeout) and hands the answer back with Answered. Until then the
// connection's later lines wait in the Core (at most MaxHeldLines), so that responses keep the
// order of the requests (§2.2).

// Hall is the hall of fame as the lobby's runtime queries it (lobby/scoredb.Hall).
type Hall interface {
	Games(ctx context.Context, q scores.Query) ([]scores.Record, error)
	ReplayPart(ctx context.Context, id uuid.UUID, part int) (parts int, data []byte, err error)
}

// HallTimeout bounds one hall-of-fame question: the runtime cancels it then, and the Core
// answers 500 if no answer came HallTimeout + time.Second after the request.
const HallTimeout = 5 * time.Second

// MaxHeldLines bounds the lines a connection sends while its hall-of-fame request waits for an
// answer; one more closes the connection.
const MaxHeldLines = 16

// Request is a hall-of-fame question the Core asks its runtime for connection Out.Conn: a page
// of games (Games set; Today: the runtime sets Games.Since to the start of its current UTC day)
// or a part of a replay (Replay, Part). The runtime answers with Core.Answered and the same ID.
type Request struct {
	ID     uint64
	Games  *scores.Query
	Today  bool
	Replay uuid.UUID
	Part   int
	// RTC, when set, is not a hall-of-fame question: a WebRTC offer for ServerConfig.RTC
	// (RTC_OFFER, rtc.go).
	RTC *RTCRequest
}

// Answer is the runtime's answer to a Request: the games of the page, or the replay part (Parts
// in all, Data), or the error (scores.ErrNoReplay, ErrPending, *PartRangeError, a database
// error, a timeout).
type Answer struct {
	Games []scores.Record
	Parts int
	Data  []byte
	RTC   string // RTC_OFFER: the SDP answer
	Err   error
}

// ask is a connection's Request waiting for its answer.
type ask struct {
	id   uint64
	cmd  string // the command's name (the replies)
	page int    // GET_SCORES, GET_GAMES: the rank of the page's first game is page*PageSize+1
	game uuid.UUID
	part string
	due  time.Duration // the Core answers 500 then (askTimeout)
}

// askDue is one entry of the Core's queue of asks by due time (lazy: answered ones are skipped).
type askDue struct {
	conn ConnID
	id   uint64
	due  time.Duration
}

// askTimeout: the Core's own deadline, after the runtime's (HallTimeout).
const askTimeout = HallTimeout + time.Second

// errHallOff is the refusal of a server that keeps no hall of fame.
const errHallOff = "this server keeps no hall of fame (it runs with -db off)"

// request leaves r for the runtime and makes cs wait for its answer, or refuses it when cs's
// address is over its hall-of-fame budget (HallPerAddr, HallRate).
func (c *Core) request(now time.Duration, cs *connState, a ask, r Request) {
	if n := c.hallAddr[cs.addr]; n >= HallPerAddr {
		c.limitHit(now, LimitHallPerAddr, cs.addr, "lobby limit hit: hall-of-fame request refused", "command", a.cmd)
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("too many hall-of-fame requests from %s at once (max %d): ask again once one is answered", cs.addr, HallPerAddr))
		return
	}
	if a.cmd != lobby.CmdGetReplay && !c.hallLimiter(now, cs.addr).AllowN(wall(now), 1) {
		c.limitHit(now, LimitHallRate, cs.addr, "lobby limit hit: hall-of-fame request refused", "command", a.cmd)
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("too many hall-of-fame requests from %s: at most %d per second", cs.addr, HallRate))
		return
	}
	c.asked++
	a.id, r.ID = c.asked, c.asked
	a.due = now + askTimeout
	cs.waiting = &a
	cs.lastCode = 0 // no response yet: the idle timer restarts with the answer
	c.asks = append(c.asks, askDue{conn: cs.id, id: a.id, due: a.due})
	c.out = append(c.out, Out{Conn: cs.id, Request: &r})
	c.hallOut[r.ID] = cs.addr
	c.hallAddr[cs.addr]++
}

// hallLimiter is addr's GET_SCORES and GET_GAMES budget (HallRate).
func (c *Core) hallLimiter(now time.Duration, addr string) *rate.Limiter {
	return budget(c.hallRate, now, addr, HallRate, HallBurst)
}

// downloading reports whether line is a GET_REPLAY within the replay budget of cs's address
// (ReplayRate): it is then not counted against the command rate.
func (c *Core) downloading(now time.Duration, cs *connState, line []byte) bool {
	if !bytes.HasPrefix(line, []byte(lobby.CmdGetReplay+" ")) {
		return false
	}
	return budget(c.replayRate, now, cs.addr, ReplayRate, ReplayBurst).AllowN(wall(now), scores.ReplayPartBytes)
}

// budget is addr's limiter of ls (made with r and burst when new); when ls holds many, those
// of addresses that have used none of theirs for a while are forgotten.
func budget(ls map[string]*rate.Limiter, now time.Duration, addr string, r rate.Limit, burst int) *rate.Limiter {
	l := ls[addr]
	if l != nil {
		return l
	}
	if len(ls) >= maxHallBudgets {
		for a, o := range ls {
			if o.TokensAt(wall(now)) >= float64(burst) {
				delete(ls, a)
			}
		}
	}
	l = rate.NewLimiter(r, burst)
	ls[addr] = l
	return l
}

// maxHallBudgets is how many addresses' hall budgets are kept before full ones are forgotten.
const maxHallBudgets = 4096

// hallDone takes request id off its address's count: answered, given up by the Core, or its
// connection gone (the runtime answers every request, even then).
func (c *Core) hallDone(id uint64) {
	addr, ok := c.hallOut[id]
	if !ok {
		return
	}
	delete(c.hallOut, id)
	if c.hallAddr[addr]--; c.hallAddr[addr] <= 0 {
		delete(c.hallAddr, addr)
	}
}

// Answered hands the Core the runtime's answer a to request id of connection conn: the Core
// replies, then handles the lines the connection sent meanwhile. A late answer (the Core
// answered 500 at its deadline) or one for a closed connection is ignored.
func (c *Core) Answered(now time.Duration, conn ConnID, id uint64, a Answer) {
	c.hallDone(id)
	cs := c.conns[conn]
	if cs == nil || cs.waiting == nil || cs.waiting.id != id {
		return
	}
	w := cs.waiting
	cs.waiting = nil
	c.answer(now, cs, w, a)
	c.afterReply(now, cs)
	c.release(now, cs)
}

// answer replies to w with a.
func (c *Core) answer(now time.Duration, cs *connState, w *ask, a Answer) {
	var pe *scores.PartRangeError
	switch {
	case w.cmd == lobby.CmdRTCOffer:
		c.answerRTC(now, cs, a)
	case a.Err == nil && w.cmd == lobby.CmdGetReplay:
		c.reply(cs, lobby.CodeOK, string(lobby.AppendReplayPart(nil, a.Parts, a.Data)))
	case a.Err == nil:
		es := make([]lobby.GameEntry, len(a.Games))
		for i, g := range a.Games {
			es[i] = lobby.GameEntry{Rank: w.page*scores.PageSize + i + 1, Game: g}
		}
		c.reply(cs, lobby.CodeOK, string(lobby.AppendGameEntries(nil, es)))
	case errors.Is(a.Err, scores.ErrNoReplay):
		c.reply(cs, lobby.CodeWrongRequest, "no replay of game "+w.game.String())
	case errors.Is(a.Err, scores.ErrPending):
		c.reply(cs, lobby.CodeWrongRequest, "the replay of game "+w.game.String()+" is being stored: ask again in a moment")
	case errors.As(a.Err, &pe):
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("part %q out of range: replay %s has parts 0..%d", w.part, w.game, pe.Parts-1))
	default:
		c.bursts.hit(c.log, now, "hall", "hall of fame request failed", "command", w.cmd, "err", a.Err)
		c.reply(cs, lobby.CodeWrongRequest, "the hall of fame is unavailable: try again later")
	}
}

// afterReply restarts cs's idle timer after a 200 to an authenticated user (Line's rule).
func (c *Core) afterReply(now time.Duration, cs *connState) {
	if cs.lastCode == lobby.CodeOK && cs.authed && c.conns[cs.id] == cs {
		c.setDeadline(cs, now, c.cfg.IdleTimeout)
	}
}

// release handles the lines cs sent while it waited, until one waits again.
func (c *Core) release(now time.Duration, cs *connState) {
	for len(cs.held) > 0 && !cs.busy() && c.conns[cs.id] == cs {
		line := cs.held[0]
		cs.held = cs.held[1:]
		c.handle(now, cs, line)
		c.afterReply(now, cs)
	}
	if len(cs.held) == 0 {
		cs.held = nil
	}
}

// hold keeps a line cs sent while its request waits (a copy: the runtime reuses line).
func (c *Core) hold(cs *connState, line []byte) {
	if len(cs.held) >= MaxHeldLines {
		what := "a hall-of-fame request waits"
		switch {
		case cs.calling != nil:
			what = "the game answers"
		case cs.waiting == nil:
			what = "its game starts"
		}
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("too many commands (%d) while %s, closing connection", MaxHeldLines, what))
		c.close(cs, "too many held lines")
		return
	}
	cs.held = append(cs.held, append([]byte(nil), line...))
}

// expireAsks answers 500 to the requests past their deadline (the runtime lost them).
func (c *Core) expireAsks(now time.Duration) {
	for len(c.asks) > 0 && c.asks[0].due <= now {
		e := c.asks[0]
		c.asks = c.asks[1:]
		c.hallDone(e.id) // the runtime gave it up at HallTimeout
		cs := c.conns[e.conn]
		if cs == nil || cs.waiting == nil || cs.waiting.id != e.id {
			continue // answered
		}
		w := cs.waiting
		cs.waiting = nil
		c.answer(now, cs, w, Answer{Err: errors.New("no answer from the runtime in time")})
		c.release(now, cs)
	}
	if len(c.asks) == 0 {
		c.asks = nil
	}
}

// nextAsk is the deadline of the oldest request still waiting (0: none).
func (c *Core) nextAsk() time.Duration {
	for len(c.asks) > 0 {
		e := c.asks[0]
		if cs := c.conns[e.conn]; cs != nil && cs.waiting != nil && cs.waiting.id == e.id {
			return e.due
		}
		c.asks = c.asks[1:]
	}
	return 0
}

// parsePage reads a page or part number: decimal, no sign, no leading zero, at most 4 digits.
func parsePage(s string) (int, bool) {
	if s == "" || len(s) > 4 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, _ := strconv.Atoi(s)
	return n, true
}

const scoresUsage = "GET_SCORES takes [stage[,players[,page[,period[,name]]]]]: a stage name or nothing (every stage), 1..4 or nothing (every player count), a page number, all or today, a player name"

// getScores answers GET_SCORES <uuid>;[<stage>[,<players>[,<page>[,<period>[,<name>]]]]]
// (docs/PROTOCOL.md §2.4.12): one page of the hall of fame.
func (c *Core) getScores(now time.Duration, cs *connState, cmd lobby.Command) {
	if len(cmd.Args) > 5 {
		c.reply(cs, lobby.CodeWrongRequest, scoresUsage)
		return
	}
	arg := func(i int) string {
		if i < len(cmd.Args) {
			return cmd.Args[i]
		}
		return ""
	}
	q := scores.Query{Order: scores.Best, Stage: arg(0), Name: arg(4)}
	today := false
	if q.Stage != "" && !stagefile.ValidName(q.Stage) {
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("invalid stage name %q: 1 to %d characters of A-Z a-z 0-9 _ -", q.Stage, stagefile.MaxNameLen))
		return
	}
	if p := arg(1); p != "" {
		if len(p) != 1 || p[0] < '1' || p[0] > '0'+rules.MaxPlayers {
			c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("player count %q: want 1..%d, or nothing for every count", p, rules.MaxPlayers))
			return
		}
		q.Players = int(p[0] - '0')
	}
	if p := arg(2); p != "" {
		n, ok := parsePage(p)
		if !ok || n > scores.MaxPage {
			c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("page %q: want 0..%d", p, scores.MaxPage))
			return
		}
		q.Page = n
	}
	switch arg(3) {
	case "", "all":
	case "today":
		today = true
	default:
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("period %q: want all or today", arg(3)))
		return
	}
	if q.Name != "" && !lobby.ValidName(q.Name) {
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("player name %q: 1 to 16 characters of A-Z a-z 0-9 _ -", q.Name))
		return
	}
	if c.cfg.Hall == nil {
		c.reply(cs, lobby.CodeWrongRequest, errHallOff)
		return
	}
	c.request(now, cs, ask{cmd: lobby.CmdGetScores, page: q.Page}, Request{Games: &q, Today: today})
}

const gamesUsage = "GET_GAMES takes [page[,name]]: a page number, a player name"

// getGames answers GET_GAMES <uuid>;[<page>[,<name>]] (docs/PROTOCOL.md §2.4.13): one page of
// the finished games, the newest first.
func (c *Core) getGames(now time.Duration, cs *connState, cmd lobby.Command) {
	if len(cmd.Args) > 2 {
		c.reply(cs, lobby.CodeWrongRequest, gamesUsage)
		return
	}
	q := scores.Query{Order: scores.Recent}
	if len(cmd.Args) > 0 && cmd.Args[0] != "" {
		n, ok := parsePage(cmd.Args[0])
		if !ok || n > scores.MaxPage {
			c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("page %q: want 0..%d", cmd.Args[0], scores.MaxPage))
			return
		}
		q.Page = n
	}
	if len(cmd.Args) > 1 && cmd.Args[1] != "" {
		if !lobby.ValidName(cmd.Args[1]) {
			c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("player name %q: 1 to 16 characters of A-Z a-z 0-9 _ -", cmd.Args[1]))
			return
		}
		q.Name = cmd.Args[1]
	}
	if c.cfg.Hall == nil {
		c.reply(cs, lobby.CodeWrongRequest, errHallOff)
		return
	}
	c.request(now, cs, ask{cmd: lobby.CmdGetGames, page: q.Page}, Request{Games: &q})
}

// getReplay answers GET_REPLAY <uuid>;<game-id>,<part> (docs/PROTOCOL.md §2.4.14).
func (c *Core) getReplay(now time.Duration, cs *connState, cmd lobby.Command) {
	if len(cmd.Args) != 2 {
		c.reply(cs, lobby.CodeWrongRequest, "GET_REPLAY takes two arguments, the game id and the part number")
		return
	}
	id, err := uuid.Parse(cmd.Args[0])
	if err != nil || id.String() != cmd.Args[0] {
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("game id %q: want a 36-character lowercase uuid", cmd.Args[0]))
		return
	}
	part, ok := parsePage(cmd.Args[1])
	if !ok || part >= scores.MaxReplayParts {
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("part %q: want 0..%d", cmd.Args[1], scores.MaxReplayParts-1))
		return
	}
	if c.cfg.Hall == nil {
		c.reply(cs, lobby.CodeWrongRequest, errHallOff)
		return
	}
	c.request(now, cs, ask{cmd: lobby.CmdGetReplay, game: id, part: cmd.Args[1]}, Request{Replay: id, Part: part})
}
