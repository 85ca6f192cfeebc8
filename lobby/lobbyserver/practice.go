package lobbyserver

import (
	"fmt"
	"strconv"
	"time"

	"github.com/rtype/rtype/lobby"
)

// Practice (docs/PROTOCOL.md §2.4.16, §2.5.11): the owner of a solo lobby chooses the section of
// its stage the game starts at (game.Config.Section: 0 the start, 1.. a later music section,
// len(sections) the boss). A practice game's results are marked as such (RESULTS flag bit 3,
// GameSpec.Practice). A second member joining, or another stage, takes the lobby back to the
// start.

// setSection answers SET_SECTION <uuid>;<section>.
func (c *Core) setSection(_ time.Duration, cs *connState, cmd lobby.Command) {
	if len(cmd.Args) != 1 {
		c.reply(cs, lobby.CodeWrongRequest, "SET_SECTION takes one argument, the section number (0: the start)")
		return
	}
	l := c.ownWaitingLobby(cs, "is running a game", "choose the practice section")
	if l == nil {
		return
	}
	last := l.stage.Script.PracticeBoss()
	n, err := strconv.Atoi(cmd.Args[0])
	if err != nil || n < 0 || n > last || strconv.Itoa(n) != cmd.Args[0] {
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("section %q out of range: stage %s has sections 0..%d (%d: its boss)", cmd.Args[0], l.stage.Name, last, last))
		return
	}
	switch {
	case n > 0 && l.run != nil:
		c.reply(cs, lobby.CodeWrongRequest, "an arcade run starts at its beginning: practice plays one stage")
		return
	case n > 0 && len(l.members) > 1:
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("practice is for a solo lobby (%d players here)", len(l.members)))
		return
	}
	c.reply(cs, lobby.CodeOK, "OK")
	if l.section != n {
		l.section = n
		c.pushSectionAll(l, nil)
	}
}

// pushSection tells cs the practice section of its lobby l.
func (c *Core) pushSection(cs *connState, l *lobbyState) {
	c.push(cs, lobby.PushSection, l.code, strconv.Itoa(l.section))
}

// pushSectionAll tells every member and spectator of l but except its practice section.
func (c *Core) pushSectionAll(l *lobbyState, except *connState) {
	for _, m := range l.members {
		if m != except {
			c.pushSection(m, l)
		}
	}
	for _, m := range l.spectators {
		c.pushSection(m, l)
	}
}

// practiceReset takes l back to the stage's start with the level's lives (a second member
// joined: except, who is told by its join's pushes; another stage was chosen: except nil),
// telling its members when it was not there.
func (c *Core) practiceReset(l *lobbyState, except *connState) {
	if l.section != 0 {
		l.section = 0
		c.pushSectionAll(l, except)
	}
	if l.infinite {
		l.infinite = false
		c.pushLivesAll(l, except)
	}
}

// setLives answers SET_LIVES <uuid>;<lives>: the owner of a waiting solo lobby that plays one
// stage chooses infinite lives (a practice game) or the level's; every member gets LIVES when
// it changes.
func (c *Core) setLives(_ time.Duration, cs *connState, cmd lobby.Command) {
	if len(cmd.Args) != 1 || (cmd.Args[0] != lobby.LivesLevel && cmd.Args[0] != lobby.LivesInfinite) {
		c.reply(cs, lobby.CodeWrongRequest, "SET_LIVES takes one argument: infinite or level")
		return
	}
	l := c.ownWaitingLobby(cs, "is running a game", "choose the practice lives")
	if l == nil {
		return
	}
	infinite := cmd.Args[0] == lobby.LivesInfinite
	switch {
	case infinite && l.run != nil:
		c.reply(cs, lobby.CodeWrongRequest, "an arcade run starts at its beginning: practice plays one stage")
		return
	case infinite && len(l.members) > 1:
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("practice is for a solo lobby (%d players here)", len(l.members)))
		return
	}
	c.reply(cs, lobby.CodeOK, "OK")
	if l.infinite != infinite {
		l.infinite = infinite
		c.pushLivesAll(l, nil)
	}
}

// pushLives tells cs the lives of its lobby l's games.
func (c *Core) pushLives(cs *connState, l *lobbyState) {
	lives := lobby.LivesLevel
	if l.infinite {
		lives = lobby.LivesInfinite
	}
	c.push(cs, lobby.PushLives, l.code, lives)
}

// pushLivesAll tells every member and spectator of l but except its lives.
func (c *Core) pushLivesAll(l *lobbyState, except *connState) {
	for _, m := range l.members {
		if m != except {
			c.pushLives(m, l)
		}
	}
	for _, m := range l.spectators {
		c.pushLives(m, l)
	}
}

// retry answers RETRY <uuid>; (docs/PROTOCOL.md §2.4.18): the owner of a solo lobby plays its
// game again from where it starts (its stage or section, its run, its lives) without going
// through the room. A running game ends for it (its player leaves: the game ends aborted, END
// as ever), then the lobby starts the next one by itself (START); a waiting lobby starts at
// once, as START. The 200 comes first.
func (c *Core) retry(now time.Duration, cs *connState, cmd lobby.Command) {
	if len(cmd.Args) > 0 {
		c.reply(cs, lobby.CodeWrongRequest, "RETRY takes no arguments")
		return
	}
	l := cs.lobby
	switch {
	case c.draining:
		c.reply(cs, lobby.CodeWrongRequest, RefusedDraining)
		return
	case l == nil:
		c.reply(cs, lobby.CodeWrongRequest, "not in a lobby")
		return
	case len(l.members) == 0 || l.members[0] != cs:
		c.reply(cs, lobby.CodeWrongRequest, "only the lobby owner ("+l.ownerName()+") may retry")
		return
	case len(l.members) > 1 || len(l.slots) > 1:
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("retry is for a solo game (%d players here)", max(len(l.members), len(l.slots))))
		return
	case l.starting != nil || l.retry:
		c.reply(cs, lobby.CodeWrongRequest, "lobby "+l.code+" is starting a game")
		return
	case c.cfg.Starter == nil:
		c.reply(cs, lobby.CodeWrongRequest, "no game server available")
		return
	}
	c.reply(cs, lobby.CodeOK, "OK")
	if !l.running() {
		c.launch(now, l, cs, true)
		return
	}
	l.retry = true
	c.log.Info("lobby retry", "code", l.code, "game", l.gameID.String(), "user", cs.user.String())
	l.game.Drop(l.gameUser(cs), true) // its only player leaves: the game ends, then GameEnded starts the next
}
