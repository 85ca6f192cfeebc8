package lobbyserver

import (
	"crypto/hmac"
	"crypto/rand"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
)

// claimSlot checks the arguments <code>,<slot>,<proof> of REJOIN and RESUME (what, lower case,
// names it in the log and the refusals) against the game running in lobby code: the slot's
// proof is proofOf(that slot's session key, code, slot, the sender's UUID). It answers every
// refusal itself (ok false).
func (c *Core) claimSlot(cs *connState, cmd lobby.Command, what string, proofOf func(key [16]byte, code string, slot int, user uuid.UUID) string) (l *lobbyState, code string, slot int, ok bool) {
	if len(cmd.Args) != 3 {
		c.reply(cs, lobby.CodeWrongRequest, strings.ToUpper(what)+" takes a lobby code, a slot and a proof")
		return nil, "", 0, false
	}
	code = lobby.UpperCode(cmd.Args[0])
	if !lobby.ValidCode(code) {
		c.reply(cs, lobby.CodeWrongRequest, "invalid lobby code: 5 characters of "+lobby.CodeAlphabet)
		return nil, "", 0, false
	}
	slot, err := strconv.Atoi(cmd.Args[1])
	if err != nil || slot < 0 || slot >= rules.MaxPlayers || cmd.Args[1] != strconv.Itoa(slot) {
		c.reply(cs, lobby.CodeWrongRequest, "invalid slot: 0 to 3")
		return nil, "", 0, false
	}
	proof := cmd.Args[2]
	if !lobby.ValidSessionKey(proof) { // same form: 32 lowercase hex digits
		c.reply(cs, lobby.CodeWrongRequest, "invalid proof: 32 lowercase hex digits")
		return nil, "", 0, false
	}
	l = c.lobbies[code]
	switch {
	case l == nil:
		c.reply(cs, lobby.CodeWrongRequest, lobby.NoLobbyReason+code)
	case !l.running():
		c.reply(cs, lobby.CodeWrongRequest, "lobby "+code+" is not running a game")
	case slot >= len(l.slots):
		c.reply(cs, lobby.CodeWrongRequest, "the game of lobby "+code+" has no slot "+strconv.Itoa(slot))
	case !hmac.Equal([]byte(proofOf(l.slots[slot].Key, code, slot, cs.user)), []byte(proof)):
		c.log.Info(what+" refused: wrong proof", "code", code, "slot", slot, "user", cs.user.String(), "remote", cs.addr)
		c.reply(cs, lobby.CodeWrongRequest, what+" refused: wrong proof for slot "+strconv.Itoa(slot))
	default:
		return l, code, slot, true
	}
	return nil, "", 0, false
}

// newSession draws a token not used by l's slots and a session key.
func newSession(l *lobbyState) (token uint32, key [16]byte, err error) {
	for {
		if token, err = randToken(); err != nil {
			return 0, key, err
		}
		if !slicesContainsToken(l.slots, token) {
			break
		}
	}
	_, err = rand.Read(key[:])
	return token, key, err
}

// spectate answers JOIN_LOBBY to a lobby that is running a game: cs becomes a spectator of it
// (docs/PROTOCOL.md §2.4.3): 200 <code>, MEMBERS and STAGE to cs, then SPECTATE with its token
// and key. With ServerConfig.AsyncStart the runtime calls the game's Spectate (calling.go).
func (c *Core) spectate(now time.Duration, cs *connState, l *lobbyState) {
	if len(l.spectators)+c.pendingSpectators(l) >= handoff.MaxSpectators {
		c.reply(cs, lobby.CodeWrongRequest, "lobby "+l.code+" is running a game and has "+strconv.Itoa(handoff.MaxSpectators)+" spectators (max)")
		return
	}
	sp, ok := l.game.(handoff.Spectatable)
	if !ok {
		c.reply(cs, lobby.CodeWrongRequest, "lobby "+l.code+" is running a game")
		return
	}
	if c.spectatorsFrom(cs) >= c.cfg.MaxSpectatorsPerAddr {
		c.limitHit(now, LimitSpectatorsPerAddr, cs.addr, "lobby limit hit: spectator refused", "code", l.code)
		c.reply(cs, lobby.CodeWrongRequest, "too many spectators from "+cs.addr+" (max "+strconv.Itoa(c.cfg.MaxSpectatorsPerAddr)+")")
		return
	}
	tok, key, err := newSession(l)
	if err != nil {
		c.reply(cs, lobby.CodeWrongRequest, "cannot generate a session token")
		return
	}
	m := handoff.Member{UUID: cs.user, Name: cs.name, Slot: -1, Token: tok, Key: key}
	if c.cfg.AsyncStart {
		if c.spectatePending(l, cs.user) {
			c.reply(cs, lobby.CodeWrongRequest, "lobby "+l.code+" is adding you as a spectator: try again in a moment")
			return
		}
		c.leaveCall(now, cs, l, l.game, m, true)
		return
	}
	c.spectated(cs, l, m, sp.Spectate(m))
}

// spectatorsFrom counts the spectators of every lobby from cs's address, and the spectate calls
// in flight of its connections, cs's own aside (a spectator joining again keeps its place).
func (c *Core) spectatorsFrom(cs *connState) int {
	n := 0
	for _, l := range c.lobbies {
		for _, o := range l.spectators {
			if o != cs && o.addr == cs.addr {
				n++
			}
		}
	}
	for _, pc := range c.calls {
		if pc.call.Spectate && !pc.answered && pc.by != cs && pc.by.addr == cs.addr {
			n++
		}
	}
	return n
}

// spectated ends cs's JOIN_LOBBY to running lobby l with the result err of its game's
// Spectate(m).
func (c *Core) spectated(cs *connState, l *lobbyState, m handoff.Member, err error) {
	if err != nil {
		c.reply(cs, lobby.CodeWrongRequest, "cannot watch lobby "+l.code+": "+err.Error())
		return
	}
	c.leave(cs, "joined another lobby")
	l.spectators = append(l.spectators, cs)
	cs.lobby = l
	cs.watchToken = m.Token
	c.log.Debug("lobby spectator joined", "code", l.code, "user", cs.user.String(), "name", cs.name, "spectators", len(l.spectators))
	c.reply(cs, lobby.CodeOK, l.code)
	c.push(cs, lobby.PushMembers, membersArgs(l)...)
	c.pushSettings(cs, l)
	c.push(cs, lobby.PushSpectate, addrArgs(l.game, strconv.Itoa(l.game.Port()), m.Token, m.Key)...)
}

// startSpectators makes l's spectators spectators of its new game g: SPECTATE to each.
func (c *Core) startSpectators(l *lobbyState, g handoff.Game, port string) {
	sp, ok := g.(handoff.Spectatable)
	if !ok {
		return
	}
	for _, cs := range l.spectators {
		tok, key, err := newSession(l)
		if err != nil {
			continue
		}
		if err := sp.Spectate(handoff.Member{UUID: cs.user, Name: cs.name, Slot: -1, Token: tok, Key: key}); err != nil {
			c.log.Warn("spectator not added to the game", "code", l.code, "user", cs.user.String(), "err", err)
			continue
		}
		cs.watchToken = tok
		c.push(cs, lobby.PushSpectate, addrArgs(g, port, tok, key)...)
	}
}

// SpectatorsGone tells the Core that game g dropped the spectators gone (SpectatorReporter):
// each that is still that game's spectator with that token leaves the lobby, so that its
// place is free for another spectator and it is not made a player at END (docs/PROTOCOL.md
// §2.4.3). Its connection stays open, in no lobby.
func (c *Core) SpectatorsGone(_ time.Duration, g handoff.Game, gone []handoff.Member) {
	var l *lobbyState
	for _, o := range c.lobbies {
		if o.game == g {
			l = o
		}
	}
	if l == nil {
		return
	}
	for _, m := range gone {
		for _, cs := range l.spectators {
			if cs.user == m.UUID && cs.watchToken == m.Token {
				l.spectators = removeConn(l.spectators, cs)
				cs.lobby = nil
				c.log.Debug("lobby spectator dropped by its game", "code", l.code, "user", cs.user.String(), "spectators", len(l.spectators))
				break
			}
		}
	}
	if len(l.members) == 0 && len(l.spectators) == 0 && !l.lost {
		c.removeLobby(l) // nobody left to end the game for
	}
}

// rejoin answers REJOIN <uuid>;<code>,<slot>,<proof> (docs/PROTOCOL.md §2.4.10): the sender
// takes back slot of the game running in lobby code, whose player was lost, proving with the
// session key of that slot's START push (RejoinProof). On success: 200 <code>, MEMBERS to
// every member, STAGE and a START push with a new token and key to the sender; the slot's old
// token stops working.
func (c *Core) rejoin(now time.Duration, cs *connState, cmd lobby.Command) {
	l, code, slot, ok := c.claimSlot(cs, cmd, "rejoin", lobby.RejoinProof)
	if !ok {
		return
	}
	rj, ok := l.game.(handoff.Rejoiner)
	if !ok {
		c.reply(cs, lobby.CodeWrongRequest, "this server does not support rejoining")
		return
	}
	tok, key, err := newSession(l)
	if err != nil {
		c.reply(cs, lobby.CodeWrongRequest, "cannot generate a session token")
		return
	}
	m := handoff.Member{UUID: cs.user, Name: cs.name, Slot: slot, Token: tok, Key: key}
	if c.cfg.AsyncStart {
		if c.rejoinPending(l, slot, cs.user) {
			c.reply(cs, lobby.CodeWrongRequest, notWaiting(slot, code))
			return
		}
		c.leaveCall(now, cs, l, l.game, m, false)
		return
	}
	c.rejoined(cs, l, m, rj.Rejoin(m))
}

// notWaiting is the refusal of a REJOIN whose slot is not waiting for a rejoin.
func notWaiting(slot int, code string) string {
	return "slot " + strconv.Itoa(slot) + " of lobby " + code + " is not waiting for a rejoin (its player is connected, left, or the time to rejoin is over)"
}

// rejoined ends cs's REJOIN of slot m.Slot of running lobby l with the result err of its game's
// Rejoin(m).
func (c *Core) rejoined(cs *connState, l *lobbyState, m handoff.Member, err error) {
	code, slot := l.code, m.Slot
	if err != nil {
		c.reply(cs, lobby.CodeWrongRequest, notWaiting(slot, code))
		return
	}
	prev, resumedBy := l.slots[slot].UUID, l.resumed[slot]
	l.slots[slot] = m
	delete(l.resumed, slot) // the slot is the sender's own now
	if resumedBy != nil && resumedBy != cs && resumedBy.lobby == l {
		l.members = removeConn(l.members, resumedBy) // it resumed the slot: it makes way as its holder would
		resumedBy.lobby = nil
	}
	if cs.lobby != l {
		c.leave(cs, "rejoined another lobby")
	}
	// The slot's previous holder (still connected to the lobby, its game session lost) and the
	// sender's own spectator place make way.
	for i, o := range l.members {
		if o.user == prev && o != cs {
			l.members = append(l.members[:i], l.members[i+1:]...)
			o.lobby = nil
			break
		}
	}
	l.spectators = removeConn(l.spectators, cs)
	inMembers := false
	for _, o := range l.members {
		inMembers = inMembers || o == cs
	}
	if !inMembers {
		l.members = append(l.members, cs)
	}
	cs.lobby = l
	c.log.Info("player rejoined", "code", code, "slot", slot, "user", cs.user.String(), "name", cs.name)
	c.reply(cs, lobby.CodeOK, code)
	c.pushMembers(l)
	c.pushSettings(cs, l)
	c.push(cs, lobby.PushStart, addrArgs(l.game, strconv.Itoa(l.game.Port()), m.Token, m.Key)...)
}
