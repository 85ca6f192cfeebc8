package lobbyserver

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rtype/rtype/lobby"
)

// Lobbies returns the live lobbies, the oldest first.
func (c *Core) Lobbies() []lobby.LobbyInfo {
	out := make([]lobby.LobbyInfo, len(c.order))
	for i, l := range c.order {
		out[i] = l.info()
	}
	return out
}

func (l *lobbyState) info() lobby.LobbyInfo {
	return lobby.LobbyInfo{Code: l.code, Players: len(l.members), Running: l.running(), Stage: l.listedStage(), Difficulty: l.difficulty}
}

// addLobby makes l a lobby of c, the newest (last in GET_LOBBIES).
func (c *Core) addLobby(l *lobbyState) {
	c.lobbies[l.code] = l
	c.order = append(c.order, l)
}

// removeLobby takes l out of c's lobbies. c.order is sorted by creation (addLobby appends the
// newest), so l is found by binary search: a keep-alive's GET_LOBBIES walks the list in order
// without sorting every lobby each time.
func (c *Core) removeLobby(l *lobbyState) {
	delete(c.lobbies, l.code)
	if i, ok := slices.BinarySearchFunc(c.order, l.created, func(e *lobbyState, created uint64) int {
		return cmp.Compare(e.created, created)
	}); ok {
		c.order = slices.Delete(c.order, i, i+1)
	}
}

// getLobbies answers GET_LOBBIES <uuid>;[<skip>] (docs/PROTOCOL.md §2.4.2): the lobbies oldest
// first, after skipping the first skip ones, as many whole entries as fit in one line.
func (c *Core) getLobbies(_ time.Duration, cs *connState, cmd lobby.Command) {
	skip := 0
	switch len(cmd.Args) {
	case 0:
	case 1:
		n, err := strconv.Atoi(cmd.Args[0])
		if err != nil || n < 0 || len(cmd.Args[0]) > 9 || cmd.Args[0][0] == '+' || (len(cmd.Args[0]) > 1 && cmd.Args[0][0] == '0') {
			c.reply(cs, lobby.CodeWrongRequest, "GET_LOBBIES takes no argument, or the number of lobbies to skip")
			return
		}
		skip = n
	default:
		c.reply(cs, lobby.CodeWrongRequest, "GET_LOBBIES takes no argument, or the number of lobbies to skip")
		return
	}
	room := lobby.MaxLine - len("200 ") - len(c.srv) - len(" ") - len("\r\n")
	var body []byte
	for _, l := range c.order {
		if l.password != "" { // a private lobby is not listed (private.go)
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		n := len(body)
		body = lobby.AppendLobbies(body, []lobby.LobbyInfo{l.info()})
		if len(body) > room {
			body = body[:n]
			break
		}
	}
	c.reply(cs, lobby.CodeOK, string(body))
}

// chat relays CHAT <uuid>;<text> to every member and spectator of the sender's lobby
// (docs/PROTOCOL.md §2.4.9).
func (c *Core) chat(now time.Duration, cs *connState, cmd lobby.Command) {
	wire := strings.Join(cmd.Args, ",") // commas travel as they are: the text is the rest of the line
	text, err := lobby.DecodeText(wire)
	if err == nil {
		text = lobby.SanitizeText(text)
		err = lobby.CheckText(text) // nothing left but what was removed: empty
	}
	if err != nil {
		c.reply(cs, lobby.CodeWrongRequest, "chat text: "+lobby.TextReason(err))
		return
	}
	l := cs.lobby
	if l == nil {
		c.reply(cs, lobby.CodeWrongRequest, "not in a lobby")
		return
	}
	if c.isMuted(cs.name) { // moderation.go
		c.reply(cs, lobby.CodeWrongRequest, MutedChat)
		return
	}
	if !cs.chatRate.AllowN(wall(now), 1) {
		c.limitHit(now, LimitChatRate, cs.addr, "lobby limit hit: chat line refused", "user", cs.user.String())
		c.reply(cs, lobby.CodeWrongRequest, fmt.Sprintf("too many chat lines: at most %d at once, then 1 per second", ChatBurst))
		return
	}
	c.reply(cs, lobby.CodeOK, "OK")
	c.stats.chat.Add(1)
	args := append([]string{cs.name}, lobby.TextArgs(lobby.EncodeText(text))...)
	for _, m := range l.members {
		c.push(m, lobby.PushChat, args...)
	}
	for _, m := range l.spectators {
		c.push(m, lobby.PushChat, args...)
	}
	c.log.Debug("lobby chat", "code", l.code, "user", cs.user.String(), "name", cs.name, "text", text)
}

// Broadcast pushes BROADCAST with text to every open connection (docs/PROTOCOL.md §2.5.6) and
// returns how many connections it was queued for. text must pass CheckText.
func (c *Core) Broadcast(text string) (int, error) {
	if err := lobby.CheckText(text); err != nil {
		return 0, err
	}
	line, err := lobby.AppendCommand(nil, lobby.Command{Name: lobby.PushBroadcast, Header: c.srv, Args: lobby.TextArgs(lobby.EncodeText(text))})
	if err != nil {
		return 0, err
	}
	for id := range c.conns {
		c.out = append(c.out, Out{Conn: id, Line: line})
	}
	c.lastBroadcast = text // said again with CLOSING (closing.go)
	c.stats.broadcasts.Add(1)
	c.log.Info("lobby broadcast sent", "clients", len(c.conns), "text", text)
	return len(c.conns), nil
}
