package lobbyserver

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
)

// addrArgs are the fields of a START or SPECTATE push: port, token, key and, for a game on
// another host, that host.
func addrArgs(g handoff.Game, port string, token uint32, key [16]byte) []string {
	args := []string{port, strconv.FormatUint(uint64(token), 10), hex.EncodeToString(key[:])}
	if h, ok := g.(handoff.HostedGame); ok && lobby.ValidHost(h.Host()) {
		args = append(args, h.Host())
	}
	return args
}

// ownWaitingLobby returns the lobby cs owns when it is waiting, the lobby an owner's command
// (START, SET_STAGE, SET_DIFFICULTY) acts on; otherwise it answers the refusal ("not in a
// lobby", "lobby <code> <running>", "only the lobby owner (<name>) may <action>") and returns
// nil.
func (c *Core) ownWaitingLobby(cs *connState, running, action string) *lobbyState {
	l := cs.lobby
	switch {
	case l == nil:
		c.reply(cs, lobby.CodeWrongRequest, "not in a lobby")
	case l.starting != nil:
		c.reply(cs, lobby.CodeWrongRequest, "lobby "+l.code+" is starting a game")
	case l.running():
		c.reply(cs, lobby.CodeWrongRequest, "lobby "+l.code+" "+running)
	case len(l.members) == 0 || l.members[0] != cs:
		c.reply(cs, lobby.CodeWrongRequest, "only the lobby owner ("+l.ownerName()+") may "+action)
	default:
		return l
	}
	return nil
}

// start answers START <uuid>; (docs/PROTOCOL.md §2.4.4): the owner's lobby hands its game to
// the Starter; on success 200 OK to the owner, then START (port, token, key) to each player
// and SPECTATE to each spectator. With ServerConfig.AsyncStart the Core does not call the
// Starter: it leaves the start to its runtime (Out.Start) and the lobby is starting until
// Started (starting.go).
func (c *Core) start(now time.Duration, cs *connState, cmd lobby.Command) {
	if len(cmd.Args) > 0 {
		c.reply(cs, lobby.CodeWrongRequest, "START takes no arguments")
		return
	}
	l := c.ownWaitingLobby(cs, "is already running a game", "start the game")
	switch {
	case l == nil:
		return
	case c.draining:
		c.reply(cs, lobby.CodeWrongRequest, RefusedDraining)
		return
	case c.cfg.Starter == nil:
		c.reply(cs, lobby.CodeWrongRequest, "no game server available")
		return
	}
	c.launch(now, l, cs, false)
}

// launch starts l's game as its owner cs asked: START (the owner gets 200 or 500), or quiet, a
// RETRY whose 200 went already (practice.go; a failure is only logged: the lobby waits).
func (c *Core) launch(now time.Duration, l *lobbyState, cs *connState, quiet bool) {
	fail := func(why string) {
		if quiet {
			c.log.Warn("lobby retry failed", "code", l.code, "err", why)
			return
		}
		c.reply(cs, lobby.CodeWrongRequest, why)
	}
	members := make([]handoff.Member, len(l.members))
	for i, m := range l.members {
		t, err := randToken()
		for err == nil && slicesContainsToken(members[:i], t) {
			t, err = randToken()
		}
		if err != nil {
			fail("cannot generate session tokens")
			return
		}
		members[i] = handoff.Member{UUID: m.user, Name: m.name, Slot: i, Token: t}
		if _, err := rand.Read(members[i].Key[:]); err != nil {
			fail("cannot generate session keys")
			return
		}
	}
	gameID, err := uuid.NewRandom()
	if err != nil {
		fail("cannot generate a game id")
		return
	}
	spec := handoff.GameSpec{ID: gameID, Code: l.code, Stage: l.stage.Name, Difficulty: l.difficulty, Run: l.runNames(), Section: l.section,
		InfiniteLives: l.infinite, Members: members, Files: l.stageFiles()}
	ps := &pendingStart{by: cs, spec: spec, players: append([]*connState(nil), l.members...), quiet: quiet}
	if c.cfg.AsyncStart {
		c.leaveStart(now, l, ps)
		return
	}
	handed := spec
	handed.Members = append([]handoff.Member(nil), members...) // the Starter's copy
	g, err := c.cfg.Starter.StartGame(handed)
	c.begin(l, ps, g, err)
}

// begin makes l run game g, the result of start ps (err: the start failed): 200 OK to the
// owner who sent START (when its connection is still open), then START to each player and
// SPECTATE to each spectator; or, on failure, 500 with the reason to that owner.
func (c *Core) begin(l *lobbyState, ps *pendingStart, g handoff.Game, err error) {
	if err == nil && g == nil {
		err = errors.New("starter returned no game")
	}
	cs := ps.by
	if ps.quiet {
		cs = nil // a RETRY's start: its 200 went already
	}
	if err != nil {
		c.log.Warn("lobby start failed", "code", l.code, "err", err)
		if cs != nil {
			c.reply(cs, lobby.CodeWrongRequest, "cannot start game: "+err.Error())
		}
		return
	}
	port := g.Port()
	l.game, l.gameID, l.practice = g, ps.spec.ID, ps.spec.Practice()
	l.slots = ps.spec.Members
	c.out = append(c.out, Out{Game: g})
	if cs != nil {
		c.reply(cs, lobby.CodeOK, "OK")
	}
	ports := strconv.Itoa(port)
	for i, m := range ps.players {
		if m.lobby == l { // players who left while the lobby was starting were dropped (Started)
			c.push(m, lobby.PushStart, addrArgs(g, ports, ps.spec.Members[i].Token, ps.spec.Members[i].Key)...)
		}
	}
	c.startSpectators(l, g, ports)
	user := ""
	if cs != nil {
		user = cs.user.String()
	}
	c.log.Info("lobby started", "code", l.code, "game", ps.spec.ID.String(), "stage", l.listedStage(), "difficulty", l.difficulty.String(), "players", len(l.members), "port", port, "user", user)
}

// GameEnded tells the Core that game g (handed to the runtime in an Out) is over with result
// (0 defeat, 1 victory, 2 aborted): its lobby waits again, its members and spectators get END
// and their idle timers restart, and spectators take the free places.
func (c *Core) GameEnded(now time.Duration, g handoff.Game, result uint8) {
	var l *lobbyState
	for _, o := range c.lobbies {
		if o.game == g {
			l = o
		}
	}
	if l == nil {
		return // every player left for good: the lobby is gone
	}
	l.game = nil
	l.slots = nil
	l.resumed = nil
	l.lost = false
	if len(l.members) == 0 && len(l.spectators) == 0 {
		c.removeLobby(l) // every player was lost and none rejoined
		c.log.Info("lobby ended", "code", l.code, "result", result, "players", 0, "removed", true)
		return
	}
	c.log.Info("lobby ended", "code", l.code, "result", result, "players", len(l.members), "removed", false)
	r := strconv.Itoa(int(result))
	for _, m := range append(append([]*connState(nil), l.members...), l.spectators...) {
		if c.cfg.IdleTimeout > 0 {
			c.setDeadline(m, now, c.cfg.IdleTimeout) // suspended during the game: restarted now
		}
		if c.cfg.Hall != nil && !l.practice {
			c.push(m, lobby.PushGameID, l.gameID.String()) // the game is kept: its record and replay
		}
		c.push(m, lobby.PushEnd, r)
	}
	if l.retry {
		l.retry = false
		if len(l.members) == 1 && c.cfg.Starter != nil && !c.stopping {
			c.launch(now, l, l.members[0], true) // RETRY (practice.go): the next game at once
			return
		}
	}
	if len(l.spectators) > 0 && len(l.members) < rules.MaxPlayers && !c.stopping {
		c.promote(l) // spectators take the free places, in join order
		c.pushMembers(l)
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

func slicesContainsToken(ms []handoff.Member, t uint32) bool {
	for _, m := range ms {
		if m.Token == t {
			return true
		}
	}
	return false
}
