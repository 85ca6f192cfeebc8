package lobbyserver

import (
	"errors"
	"fmt"
	"time"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/handoff"
)

// Asynchronous starts (ServerConfig.AsyncStart, docs/PROTOCOL.md §2.4.4): when the game runtime
// waits on the network to start a game (a game host's reply over the control channel,
// net/fleet.Remote: up to seconds), the Core never calls the Starter. START leaves an Out with a
// StartRequest; the runtime calls Starter.StartGame on a goroutine and hands the result back
// with Started. Meanwhile the lobby is starting: the owner's later lines wait in the Core (as
// behind a hall-of-fame request, hall.go) so that its START gets its response first; the other
// members may chat and leave; START, JOIN_LOBBY and the owner's settings are refused; every
// other lobby goes on.

// StartRequest is a start the Core asks its runtime to carry out (ServerConfig.AsyncStart),
// for the connection Out.Conn of the owner who sent START: the runtime calls
// Starter.StartGame(Spec) off its lock and hands the result to Started with the same ID.
type StartRequest struct {
	ID   uint64
	Spec handoff.GameSpec
}

// StartTimeout bounds an asynchronous start: if the runtime has not handed its result back by
// then, the owner gets 500 and the lobby waits again; a game handed back later is dropped
// (Started). The runtime's own bound is shorter (net/fleet.DefaultStartTimeout).
const StartTimeout = 10 * time.Second

// pendingStart is a lobby's START: the spec handed to the Starter and the connections of its
// players (in the order of spec.Members) and of the owner who sent it (by, nil once gone).
type pendingStart struct {
	id      uint64
	lobby   *lobbyState
	by      *connState
	spec    handoff.GameSpec
	players []*connState
	due     time.Duration // the Core gives up then (StartTimeout)
	quiet   bool          // a RETRY's start: no reply to by (practice.go)
}

// live reports whether ps is still its lobby's start (not given up, the lobby not gone).
func (c *Core) live(ps *pendingStart) bool {
	l := ps.lobby
	return l != nil && l.starting == ps && c.lobbies[l.code] == l
}

// errStartTimeout is why a start the runtime did not answer in time failed.
var errStartTimeout = fmt.Errorf("no answer from the game runtime within %v", StartTimeout)

// leaveStart leaves ps for the runtime: l is starting until Started (or StartTimeout), its
// owner's later lines wait.
func (c *Core) leaveStart(now time.Duration, l *lobbyState, ps *pendingStart) {
	c.startsMade++
	ps.id, ps.lobby, ps.due = c.startsMade, l, now+StartTimeout
	l.starting = ps
	ps.by.lastCode = 0 // no response yet: the idle timer restarts with it
	c.starts[ps.id] = ps
	c.startQueue = append(c.startQueue, ps)
	spec := ps.spec
	spec.Members = append([]handoff.Member(nil), ps.spec.Members...) // the Starter's copy
	c.out = append(c.out, Out{Conn: ps.by.id, Start: &StartRequest{ID: ps.id, Spec: spec}})
	c.log.Debug("lobby starting", "code", l.code, "game", spec.ID.String(), "players", len(spec.Members), "user", ps.by.user.String())
}

// Started hands the Core the runtime's result of StartRequest id: game g, or the error err.
// On success the lobby runs g (the owner gets 200, the players still in the lobby START, its
// spectators SPECTATE, and the players who left meanwhile are dropped from g); on failure it
// waits again and the owner gets 500 with the reason. Then the owner's waiting lines are
// handled. A result for a start the Core gave up (StartTimeout) or whose lobby is gone (every
// player left) is not used: its game, if any, is dropped.
func (c *Core) Started(now time.Duration, id uint64, g handoff.Game, err error) {
	ps := c.starts[id]
	if ps == nil {
		return
	}
	delete(c.starts, id)
	if !c.live(ps) {
		if err == nil && g != nil {
			c.log.Info("game started after its lobby gave up or closed: dropped", "code", ps.spec.Code, "game", ps.spec.ID.String())
			abandon(g, ps.spec.Members)
		}
		return
	}
	c.finishStart(now, ps.lobby, g, err)
}

// finishStart ends l's start with g or err.
func (c *Core) finishStart(now time.Duration, l *lobbyState, g handoff.Game, err error) {
	ps := l.starting
	l.starting = nil
	if err == nil && g != nil {
		var left []handoff.Member
		for i, m := range ps.players {
			if m.lobby != l {
				left = append(left, ps.spec.Members[i])
			}
		}
		if len(left) == len(ps.players) { // every player left; spectators keep the lobby
			abandon(g, ps.spec.Members)
			g, err = nil, errors.New("every player left the lobby")
		}
		for _, m := range left {
			if g != nil {
				g.Drop(m.UUID, true) // it never got its START: no rejoin
			}
		}
	}
	c.begin(l, ps, g, err)
	if !l.running() && len(l.spectators) > 0 && len(l.members) < rules.MaxPlayers && !c.stopping {
		c.promote(l) // places freed while it was starting
		c.pushMembers(l)
	}
	if cs := ps.by; cs != nil && c.conns[cs.id] == cs {
		c.afterReply(now, cs)
		c.release(now, cs)
	}
}

// abandon ends a game no lobby runs (a late start, or one every player left): its players are
// dropped (a game host also ends a game nobody joins at its HERE timeout).
func abandon(g handoff.Game, members []handoff.Member) {
	for _, m := range members {
		g.Drop(m.UUID, true)
	}
}

// expireStarts fails the starts past their due time (the runtime did not answer): their
// entries stay in c.starts until the runtime's late result, whose game is dropped.
func (c *Core) expireStarts(now time.Duration) {
	for len(c.startQueue) > 0 && c.startQueue[0].due <= now {
		ps := c.startQueue[0]
		c.startQueue = c.startQueue[1:]
		if c.live(ps) {
			c.finishStart(now, ps.lobby, nil, errStartTimeout)
		}
	}
	if len(c.startQueue) == 0 {
		c.startQueue = nil
	}
}

// nextStart is the due time of the oldest start still waiting (0: none).
func (c *Core) nextStart() time.Duration {
	for len(c.startQueue) > 0 {
		if ps := c.startQueue[0]; c.live(ps) {
			return ps.due
		}
		c.startQueue = c.startQueue[1:]
	}
	return 0
}
