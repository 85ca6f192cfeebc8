package lobbyserver

import (
	"fmt"
	"strconv"
	"time"

	"github.com/rtype/rtype/lobby"
)

// Closing pushes CLOSING to every open connection: the server closes for why (lobby.ClosingShutdown
// or lobby.ClosingRestart), its running games have left (rounded down to the second, at most
// lobby.MaxClosingLeft) before they end. It returns how many connections it was queued for.
func (c *Core) Closing(why string, left time.Duration) (int, error) {
	if why != lobby.ClosingShutdown && why != lobby.ClosingRestart {
		return 0, fmt.Errorf("lobby: closing reason %q (want %s or %s)", why, lobby.ClosingShutdown, lobby.ClosingRestart)
	}
	args := []string{why, strconv.FormatInt(int64(min(max(left, 0), lobby.MaxClosingLeft)/time.Second), 10)}
	if c.lastBroadcast != "" {
		args = append(args, lobby.TextArgs(lobby.EncodeText(c.lastBroadcast))...)
	}
	line, err := lobby.AppendCommand(nil, lobby.Command{Name: lobby.PushClosing, Header: c.srv, Args: args})
	if err != nil {
		return 0, err
	}
	for id := range c.conns {
		c.out = append(c.out, Out{Conn: id, Line: line})
	}
	c.log.Info("lobby closing announced", "why", why, "left", left, "clients", len(c.conns), "text", c.lastBroadcast)
	return len(c.conns), nil
}
