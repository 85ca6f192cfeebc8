package lobbyserver

import (
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
)

// Asynchronous rejoins and spectators (ServerConfig.AsyncStart): a game on another machine
// (net/fleet.RemoteGame) answers Rejoin and Spectate over the network, up to seconds, so the
// Core never calls them itself then. REJOIN and JOIN_LOBBY to a running lobby leave an Out
// with a GameCall; the runtime calls the game off its lock and hands the result back with
// Called. Meanwhile the connection's later lines wait in the Core (as behind START or a
// hall-of-fame request), and every other connection goes on. The responses and pushes are
// those of the synchronous Core (rejoin.go), only later.

// GameCall is a call of a running game the Core asks its runtime to make for connection
// Out.Conn (ServerConfig.AsyncStart): Game.(handoff.Spectatable).Spectate(Member) when
// Spectate is set, Game.(handoff.Rejoiner).Rejoin(Member) otherwise, off its lock; the result
// goes to Called with the same ID.
type GameCall struct {
	ID       uint64
	Game     handoff.Game
	Member   handoff.Member
	Spectate bool
}

// Call makes call gc of its game: what the runtime does with a GameCall.
func (gc GameCall) Call() error {
	if gc.Spectate {
		return gc.Game.(handoff.Spectatable).Spectate(gc.Member)
	}
	return gc.Game.(handoff.Rejoiner).Rejoin(gc.Member)
}

// CallTimeout bounds a GameCall: if the runtime has not handed its result back by then, the
// connection gets 500 and its later lines are handled; a success handed back later is undone
// (Called). The runtime's own bound is shorter (net/fleet.DefaultStartTimeout).
const CallTimeout = StartTimeout

// pendingCall is a GameCall whose result has not come.
type pendingCall struct {
	call  GameCall
	by    *connState
	lobby *lobbyState
	due   time.Duration
	// answered: the connection got its response already (CallTimeout, or it is gone).
	answered bool
}

// errCallTimeout is why a call the runtime did not answer in time failed.
var errCallTimeout = fmt.Errorf("no answer from the game within %v", CallTimeout)

// leaveCall leaves the call of g with m for the runtime: cs's later lines wait for its result.
func (c *Core) leaveCall(now time.Duration, cs *connState, l *lobbyState, g handoff.Game, m handoff.Member, spectate bool) {
	c.callsMade++
	pc := &pendingCall{call: GameCall{ID: c.callsMade, Game: g, Member: m, Spectate: spectate}, by: cs, lobby: l, due: now + CallTimeout}
	cs.calling = pc
	cs.lastCode = 0 // no response yet: the idle timer restarts with it
	c.calls[pc.call.ID] = pc
	c.callQueue = append(c.callQueue, pc)
	c.out = append(c.out, Out{Conn: cs.id, Call: &pc.call})
}

// callLive reports whether pc's game still runs in its lobby.
func (c *Core) callLive(pc *pendingCall) bool {
	l := pc.lobby
	return c.lobbies[l.code] == l && l.game == pc.call.Game
}

// pendingSpectators counts the spectators of l whose Spectate call is out.
func (c *Core) pendingSpectators(l *lobbyState) int {
	n := 0
	for _, pc := range c.calls {
		if pc.call.Spectate && pc.lobby == l && !pc.answered {
			n++
		}
	}
	return n
}

// rejoinPending reports whether a rejoin of slot of l, or any call of l's game for user, is
// out: until its result comes (even after CallTimeout), a second one would race it on the game.
func (c *Core) rejoinPending(l *lobbyState, slot int, user uuid.UUID) bool {
	for _, pc := range c.calls {
		if pc.lobby == l && (pc.call.Member.UUID == user || !pc.call.Spectate && pc.call.Member.Slot == slot) {
			return true
		}
	}
	return false
}

// spectatePending reports whether a call of l's game for user is out (its late result would
// drop the spectator a second call adds).
func (c *Core) spectatePending(l *lobbyState, user uuid.UUID) bool {
	for _, pc := range c.calls {
		if pc.lobby == l && pc.call.Member.UUID == user {
			return true
		}
	}
	return false
}

// Called hands the Core the runtime's result of GameCall id: the connection gets the response
// and pushes it would have got from a synchronous call (rejoin.go), then its waiting lines are
// handled. A success that cannot be used — the connection closed, the game ended, or the Core
// gave up (CallTimeout) — is undone: the rejoined slot is dropped as lost (it waits for a
// rejoin again, and the lobby's proof for it is unchanged), the spectator is dropped.
func (c *Core) Called(now time.Duration, id uint64, err error) {
	pc := c.calls[id]
	if pc == nil {
		return
	}
	delete(c.calls, id)
	cs, l, m := pc.by, pc.lobby, pc.call.Member
	open := !pc.answered && c.conns[cs.id] == cs && cs.calling == pc
	if open {
		cs.calling = nil
	}
	live := c.callLive(pc)
	if err == nil && (!open || !live) {
		if live || l.game == pc.call.Game {
			c.log.Info("game call succeeded for a connection gone or given up: undone", "code", l.code, "user", m.UUID.String(), "spectate", pc.call.Spectate)
			pc.call.Game.Drop(m.UUID, pc.call.Spectate) // a rejoined slot: lost again, so that it can rejoin
		}
	}
	if !open {
		return
	}
	switch {
	case !live && pc.call.Spectate:
		c.reply(cs, lobby.CodeWrongRequest, "cannot watch lobby "+l.code+": its game ended: join again")
	case !live:
		c.reply(cs, lobby.CodeWrongRequest, "lobby "+l.code+" is not running a game")
	case pc.call.Spectate:
		c.spectated(cs, l, m, err)
	default:
		c.rejoined(cs, l, m, err)
	}
	c.afterReply(now, cs)
	c.release(now, cs)
}

// expireCalls answers 500 to the calls past their due time (the runtime did not answer): their
// entries stay in c.calls until the runtime's late result, which is undone.
func (c *Core) expireCalls(now time.Duration) {
	for len(c.callQueue) > 0 && c.callQueue[0].due <= now {
		pc := c.callQueue[0]
		c.callQueue = c.callQueue[1:]
		if pc.answered || c.calls[pc.call.ID] != pc {
			continue
		}
		pc.answered = true
		cs := pc.by
		if c.conns[cs.id] != cs || cs.calling != pc {
			continue
		}
		cs.calling = nil
		what := "rejoin slot " + strconv.Itoa(pc.call.Member.Slot) + " of"
		if pc.call.Spectate {
			what = "watch"
		}
		c.log.Warn("game call timed out", "code", pc.lobby.code, "user", cs.user.String(), "spectate", pc.call.Spectate)
		c.reply(cs, lobby.CodeWrongRequest, "cannot "+what+" lobby "+pc.lobby.code+": "+errCallTimeout.Error())
		c.release(now, cs)
	}
	if len(c.callQueue) == 0 {
		c.callQueue = nil
	}
}

// nextCall is the due time of the oldest call still waiting (0: none).
func (c *Core) nextCall() time.Duration {
	for len(c.callQueue) > 0 {
		if pc := c.callQueue[0]; !pc.answered && c.calls[pc.call.ID] == pc {
			return pc.due
		}
		c.callQueue = c.callQueue[1:]
	}
	return 0
}
