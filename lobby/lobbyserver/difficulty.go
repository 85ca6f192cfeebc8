package lobbyserver

import (
	"fmt"
	"time"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby"
)

// pushSettings tells cs, which just joined (or rejoined, or came to watch) lobby l, what the
// lobby plays: STAGE, then DIFFICULTY when it is not the default (Normal), then RUN when it
// plays an arcade run (run.go), so that a lobby without a choice sends what it sent before
// levels and runs existed.
func (c *Core) pushSettings(cs *connState, l *lobbyState) {
	c.pushStage(cs, l)
	if l.difficulty != rules.DifficultyNormal {
		c.pushDifficulty(cs, l)
	}
	if l.run != nil {
		c.pushRun(cs, l)
	}
	if l.section != 0 {
		c.pushSection(cs, l)
	}
	if l.infinite {
		c.pushLives(cs, l)
	}
}

func (c *Core) pushDifficulty(cs *connState, l *lobbyState) {
	c.push(cs, lobby.PushDifficulty, l.code, l.difficulty.String())
}

// setDifficulty answers SET_DIFFICULTY <uuid>;<level> (docs/PROTOCOL.md §2.4.11): the owner of
// a waiting lobby chooses easy, normal or hard; every member gets DIFFICULTY when it changes.
func (c *Core) setDifficulty(_ time.Duration, cs *connState, cmd lobby.Command) {
	if len(cmd.Args) != 1 {
		c.reply(cs, lobby.CodeWrongRequest, "SET_DIFFICULTY takes one argument: easy, normal or hard")
		return
	}
	d, err := rules.ParseDifficulty(cmd.Args[0])
	if err != nil {
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("unknown difficulty %q (easy, normal or hard)", cmd.Args[0]))
		return
	}
	l := c.ownWaitingLobby(cs, "is running a game", "change the difficulty")
	if l == nil {
		return
	}
	c.reply(cs, lobby.CodeOK, "OK")
	if l.difficulty == d {
		return
	}
	l.difficulty = d
	c.log.Debug("lobby difficulty set", "code", l.code, "difficulty", d.String(), "user", cs.user.String())
	for _, m := range l.members {
		c.pushDifficulty(m, l)
	}
	for _, m := range l.spectators {
		c.pushDifficulty(m, l)
	}
}
