package lobbyserver

import (
	"crypto/rand"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
)

// authenticate answers AUTHENTICATE ;<name> (docs/PROTOCOL.md §2.4.1).
func (c *Core) authenticate(now time.Duration, cs *connState, cmd lobby.Command) {
	if cmd.Header != "" {
		c.reply(cs, lobby.CodeWrongRequest, "AUTHENTICATE takes no header: send \"AUTHENTICATE ;<name>\"")
		return
	}
	if len(cmd.Args) > 2 {
		c.reply(cs, lobby.CodeWrongRequest, "AUTHENTICATE takes one argument, the player name (and a private server's password)")
		return
	}
	name := lobby.DefaultName()
	if len(cmd.Args) == 1 && cmd.Args[0] != "" {
		name = cmd.Args[0]
	}
	if !lobby.ValidName(name) {
		c.reply(cs, lobby.CodeWrongRequest, "invalid name: 1 to 16 characters of A-Z a-z 0-9 _ -")
		return
	}
	if cs.authed {
		c.reply(cs, lobby.CodeWrongRequest, "already authenticated on this connection")
		return
	}
	if c.refuseBannedName(now, cs, name) { // moderation.go
		return
	}
	password := ""
	if len(cmd.Args) == 2 {
		password = cmd.Args[1]
	}
	if !c.checkPassword(now, cs, password) { // private.go
		return
	}
	id, err := uuid.NewRandom()
	if err != nil {
		c.reply(cs, lobby.CodeWrongRequest, "cannot generate uuid")
		return
	}
	cs.authed, cs.user, cs.name = true, id, name
	c.log.Debug("lobby user authenticated", "user", id.String(), "name", name, "remote", cs.addr)
	c.reply(cs, lobby.CodeOK, id.String())
}

// join answers JOIN_LOBBY <uuid>;[<code>[,<stage>]] (docs/PROTOCOL.md §2.4.3): an empty code
// creates a lobby, a waiting lobby's code joins it, a running one's makes the sender a
// spectator (games.go).
func (c *Core) join(now time.Duration, cs *connState, cmd lobby.Command) {
	if len(cmd.Args) > 3 {
		c.reply(cs, lobby.CodeWrongRequest, "JOIN_LOBBY takes a lobby code, or an empty code and a stage name to create a lobby (and a private lobby's password)")
		return
	}
	password, ok := c.lobbyPassword(cs, cmd.Args) // private.go
	if !ok {
		return
	}
	code := ""
	if len(cmd.Args) >= 1 {
		code = lobby.UpperCode(cmd.Args[0])
		if code != "" && !lobby.ValidCode(code) {
			c.reply(cs, lobby.CodeWrongRequest, "invalid lobby code: 5 characters of "+lobby.CodeAlphabet)
			return
		}
	}
	ch := choice{stage: c.cfg.Stages.Default()}
	if len(cmd.Args) >= 2 && (len(cmd.Args) == 2 || cmd.Args[1] != "") {
		if code != "" {
			c.reply(cs, lobby.CodeWrongRequest, "a stage is chosen only when creating a lobby: JOIN_LOBBY <uuid>;,<stage>")
			return
		}
		var ok bool
		if ch, ok = c.choose(cmd.Args[1]); !ok {
			c.reply(cs, lobby.CodeWrongRequest, c.unknownStage(cmd.Args[1]))
			return
		}
	}
	var l *lobbyState
	if code == "" {
		n, mine := len(c.lobbies), 0
		for _, o := range c.lobbies {
			if len(o.members) > 0 && o.members[0].addr == cs.addr && o != cs.lobby {
				mine++
			}
		}
		if cs.lobby != nil && len(cs.lobby.members) == 1 {
			n-- // leaving removes that lobby
		}
		limit, reason := "", ""
		switch {
		case mine >= c.cfg.MaxLobbiesPerAddr:
			limit, reason = LimitLobbiesPerAddr, "too many lobbies from "+cs.addr+" (max "+strconv.Itoa(c.cfg.MaxLobbiesPerAddr)+")"
		case n >= c.cfg.MaxLobbies:
			limit, reason = LimitLobbies, "too many lobbies (max "+strconv.Itoa(c.cfg.MaxLobbies)+")"
		}
		if limit != "" {
			c.limitHit(now, limit, cs.addr, "lobby limit hit: lobby not created", "user", cs.user.String())
			c.reply(cs, lobby.CodeWrongRequest, reason)
			return
		}
	} else {
		l = c.lobbies[code]
		switch {
		case l == nil:
			c.reply(cs, lobby.CodeWrongRequest, lobby.NoLobbyReason+code)
			return
		case l == cs.lobby:
			c.reply(cs, lobby.CodeOK, code) // already a member: nothing changes
			return
		case !c.lobbyAdmits(cs, l, password): // private.go
			return
		case l.nameTaken(cs.name):
			c.reply(cs, lobby.CodeWrongRequest, "the name "+cs.name+" is taken in lobby "+code+": choose another name")
			return
		case l.starting != nil:
			c.reply(cs, lobby.CodeWrongRequest, "lobby "+code+" is starting a game: try again in a moment")
			return
		case l.running():
			c.spectate(now, cs, l)
			return
		case len(l.members) >= rules.MaxPlayers:
			c.reply(cs, lobby.CodeWrongRequest, "lobby "+code+" is full ("+strconv.Itoa(rules.MaxPlayers)+" players)")
			return
		}
	}
	if l == nil {
		code, err := c.newCode()
		if err != nil {
			c.leave(cs, "joined another lobby")
			c.reply(cs, lobby.CodeWrongRequest, "cannot create a lobby code")
			return
		}
		c.leave(cs, "joined another lobby")
		c.created++
		l = &lobbyState{code: code, stage: ch.stage, run: ch.run, created: c.created, password: password}
		c.addLobby(l)
		c.log.Debug("lobby created", "code", code, "stage", l.listedStage(), "user", cs.user.String(), "name", cs.name, "lobbies", len(c.lobbies))
	} else {
		c.leave(cs, "joined another lobby")
	}
	l.members = append(l.members, cs)
	cs.lobby = l
	c.log.Debug("lobby joined", "code", l.code, "user", cs.user.String(), "name", cs.name, "players", len(l.members))
	c.reply(cs, lobby.CodeOK, l.code)
	c.pushMembers(l)
	if len(l.members) > 1 {
		c.practiceReset(l, cs) // practice is solo: back to the start
	}
	c.pushSettings(cs, l)
}

// leaveCmd answers LEAVE <uuid>; (docs/PROTOCOL.md §2.4.5).
func (c *Core) leaveCmd(_ time.Duration, cs *connState, cmd lobby.Command) {
	if len(cmd.Args) > 0 {
		c.reply(cs, lobby.CodeWrongRequest, "LEAVE takes no arguments")
		return
	}
	if cs.lobby == nil {
		c.reply(cs, lobby.CodeWrongRequest, "not in a lobby")
		return
	}
	c.leave(cs, "left")
	c.reply(cs, lobby.CodeOK, "OK")
}

// leave removes cs from its lobby (if any): MEMBERS goes to the remaining members, an emptied
// lobby is removed, and a running game drops the player (Game.Drop: left unless reason is
// "disconnected").
func (c *Core) leave(cs *connState, reason string) {
	l := cs.lobby
	if l == nil {
		return
	}
	cs.lobby = nil
	l.members = removeConn(l.members, cs)
	l.spectators = removeConn(l.spectators, cs)
	if ps := l.starting; ps != nil && ps.by == cs {
		ps.by = nil // its START gets no response: the connection is gone
	}
	if !l.running() && l.starting == nil { // a starting lobby's players are the start's
		c.promote(l)
	}
	c.log.Debug("lobby left", "code", l.code, "user", cs.user.String(), "name", cs.name, "reason", reason,
		"players", len(l.members), "inGame", l.running())
	if l.running() {
		if _, ok := l.game.(handoff.Rejoiner); ok && reason == "disconnected" {
			l.lost = true
		}
		l.game.Drop(l.gameUser(cs), reason != "disconnected")
	}
	l.forgetResumed(cs)
	switch {
	case len(l.members) > 0 || len(l.spectators) > 0:
		if !c.stopping { // no MEMBERS after END while the server shuts down
			c.pushMembers(l)
		}
	case l.running() && l.lost:
		// Running: the lobby stays until END so that its lost players can rejoin (REJOIN).
		c.log.Debug("lobby empty while its game runs; kept for rejoins", "code", l.code)
	default: // waiting and empty, or every player left for good: the game ends aborted
		c.removeLobby(l)
		c.log.Debug("lobby removed", "code", l.code, "lobbies", len(c.lobbies))
	}
}

func removeConn(cs []*connState, x *connState) []*connState {
	for i, o := range cs {
		if o == x {
			return append(cs[:i], cs[i+1:]...)
		}
	}
	return cs
}

// promote makes l's spectators players while l has room, in join order (a waiting lobby).
func (c *Core) promote(l *lobbyState) {
	for len(l.spectators) > 0 && len(l.members) < rules.MaxPlayers {
		cs := l.spectators[0]
		l.spectators = l.spectators[1:]
		l.members = append(l.members, cs)
		c.log.Debug("lobby spectator becomes a player", "code", l.code, "user", cs.user.String(), "name", cs.name)
	}
}

// membersArgs are the arguments of l's MEMBERS push (docs/PROTOCOL.md §2.5.2).
func membersArgs(l *lobbyState) []string {
	args := make([]string, 0, 1+len(l.members))
	args = append(args, l.code)
	for _, m := range l.members {
		args = append(args, m.name)
	}
	return args
}

// pushMembers sends l's MEMBERS push to its players and spectators.
func (c *Core) pushMembers(l *lobbyState) {
	args := membersArgs(l)
	for _, m := range l.members {
		c.push(m, lobby.PushMembers, args...)
	}
	for _, m := range l.spectators {
		c.push(m, lobby.PushMembers, args...)
	}
}

// ownerName is the name of l's owner ("" when it has no player).
func (l *lobbyState) ownerName() string {
	if len(l.members) == 0 {
		return ""
	}
	return l.members[0].name
}

// newCode draws a lobby code no live lobby has.
func (c *Core) newCode() (string, error) {
	var b [lobby.CodeLen]byte
	for range 1000 {
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		for i := range b {
			b[i] = lobby.CodeAlphabet[b[i]%byte(len(lobby.CodeAlphabet))] // 256 % 32 == 0: uniform
		}
		if _, taken := c.lobbies[string(b[:])]; !taken {
			return string(b[:]), nil
		}
	}
	return "", errors.New("lobby: no free code")
}

// nameTaken reports whether a member or spectator of l already goes by name, or by one that
// looks the same (NameKey): names are unique within a lobby, so that nobody can pass for
// another player in its chat and member list.
func (l *lobbyState) nameTaken(name string) bool {
	k := NameKey(name)
	for _, m := range l.members {
		if NameKey(m.name) == k {
			return true
		}
	}
	for _, m := range l.spectators {
		if NameKey(m.name) == k {
			return true
		}
	}
	return false
}

// NameKey folds a player name (ValidName: [A-Za-z0-9_-]) to what it looks like: case, and the
// look-alikes I, l, 1 and O, 0, do not tell names apart ("alice", "ALICE" and "aIice" are one).
func NameKey(name string) string {
	b := []byte(strings.ToLower(name))
	for i, c := range b {
		switch c {
		case 'i', '1':
			b[i] = 'l'
		case '0':
			b[i] = 'o'
		}
	}
	return string(b)
}
