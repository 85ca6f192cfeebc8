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

// practiceReset takes l back to the stage's start (a second member joined: except, who is told
// by its join's pushes; another stage was chosen: except nil), telling its members when it was
// not there.
func (c *Core) practiceReset(l *lobbyState, except *connState) {
	if l.section != 0 {
		l.section = 0
		c.pushSectionAll(l, except)
	}
}
