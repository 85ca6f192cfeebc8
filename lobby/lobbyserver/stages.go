package lobbyserver

import (
	"bytes"

	"compress/gzip"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
)

// stageBodies gzips data (level 9, no name, mtime 0) and returns the GET_STAGE response bodies
// of its parts (docs/PROTOCOL.md §2.4.8).
func stageBodies(data []byte) []string {
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression) // a valid level: no error
	w.Write(data)                                          // writes to a bytes.Buffer do not fail
	w.Close()
	b := gz.Bytes()
	n := (len(b) + lobby.StagePartBytes - 1) / lobby.StagePartBytes
	out := make([]string, n)
	for i := range out {
		out[i] = string(lobby.AppendStagePart(nil, n, b[i*lobby.StagePartBytes:min(len(b), (i+1)*lobby.StagePartBytes)]))
	}
	return out
}

// pushStage tells cs the stage of its lobby l (docs/PROTOCOL.md §2.5.4).
func (c *Core) pushStage(cs *connState, l *lobbyState) {
	c.push(cs, lobby.PushStage, l.code, l.stage.Name, l.stage.Hash)
}

func (c *Core) unknownStage(name string) string {
	if name == stagefile.Arcade {
		return "this server offers no arcade run"
	}
	return fmt.Sprintf("unknown stage %q (offered: %s)", name, strings.Join(c.cfg.Stages.Names(), ", "))
}

// getStages answers GET_STAGES <uuid>; (docs/PROTOCOL.md §2.4.6).
func (c *Core) getStages(_ time.Duration, cs *connState, cmd lobby.Command) {
	if len(cmd.Args) > 0 {
		c.reply(cs, lobby.CodeWrongRequest, "GET_STAGES takes no arguments")
		return
	}
	files := c.cfg.Stages.Files()
	ss := make([]lobby.StageInfo, len(files))
	for i, f := range files {
		ss[i] = lobby.StageInfo{Name: f.Name, Hash: f.Hash}
	}
	c.reply(cs, lobby.CodeOK, string(lobby.AppendStages(nil, ss)))
}

// setStage answers SET_STAGE <uuid>;<name> (docs/PROTOCOL.md §2.4.7): the owner of a waiting
// lobby chooses its stage; every member gets STAGE when it changes.
func (c *Core) setStage(_ time.Duration, cs *connState, cmd lobby.Command) {
	if len(cmd.Args) != 1 {
		c.reply(cs, lobby.CodeWrongRequest, "SET_STAGE takes one argument, the stage name")
		return
	}
	ch, ok := c.choose(cmd.Args[0])
	if !ok {
		c.reply(cs, lobby.CodeWrongRequest, c.unknownStage(cmd.Args[0]))
		return
	}
	l := c.ownWaitingLobby(cs, "is running a game", "change the stage")
	if l == nil {
		return
	}
	c.reply(cs, lobby.CodeOK, "OK")
	wasRun := l.run != nil
	if l.stage == ch.stage && wasRun == (ch.run != nil) {
		return
	}
	l.stage, l.run = ch.stage, ch.run
	c.log.Debug("lobby stage set", "code", l.code, "stage", cmd.Args[0], "user", cs.user.String())
	for _, m := range l.members {
		c.pushStage(m, l)
		if wasRun || l.run != nil {
			c.pushRun(m, l)
		}
	}
	c.practiceReset(l, nil) // another stage: its start
}

// getStage answers GET_STAGE <uuid>;<hash>,<part> (docs/PROTOCOL.md §2.4.8).
func (c *Core) getStage(_ time.Duration, cs *connState, cmd lobby.Command) {
	if len(cmd.Args) != 2 {
		c.reply(cs, lobby.CodeWrongRequest, "GET_STAGE takes two arguments, the stage hash and the part number")
		return
	}
	parts := c.stageParts[cmd.Args[0]]
	if parts == nil {
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("unknown stage hash %q", cmd.Args[0]))
		return
	}
	p := cmd.Args[1]
	i, err := strconv.Atoi(p)
	if err != nil || len(p) > 4 || (len(p) > 1 && p[0] == '0') || p[0] == '+' || p[0] == '-' || i >= len(parts) {
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("part %q out of range: stage %s has parts 0..%d", p, cmd.Args[0], len(parts)-1))
		return
	}
	c.reply(cs, lobby.CodeOK, parts[i])
}
