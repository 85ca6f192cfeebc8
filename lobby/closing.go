package lobby

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A server that closes says so first (docs/PROTOCOL.md §2.5.13): the CLOSING push tells every
// connection why (the server shuts down, or restarts and will be back), how long its games have
// left (0: they end now, with END; a draining server, issue 32, gives its drain's time), and
// repeats the operator's last BROADCAST, so that a client can say what happened and go
// somewhere that works instead of reporting a connection that closed.

// Why a server closes (the CLOSING push's first field).
const (
	ClosingShutdown = "shutdown" // the server stops (it may or may not come back)
	ClosingRestart  = "restart"  // the server stops and will be back: reconnect in a moment
)

// MaxClosingLeft bounds the CLOSING push's seconds (a day).
const MaxClosingLeft = 24 * time.Hour

// Closing is a CLOSING push as the client keeps it.
type Closing struct {
	Why  string        // ClosingShutdown or ClosingRestart (another value: read as shutdown)
	Left time.Duration // how long the running games have left (0: they end now), whole seconds
	Text string        // the operator's last broadcast ("" none)
}

// Closing pushes CLOSING to every open connection: the server closes for why (ClosingShutdown
// or ClosingRestart), its running games have left (rounded down to the second, at most
// MaxClosingLeft) before they end. It returns how many connections it was queued for.
func (c *Core) Closing(why string, left time.Duration) (int, error) {
	if why != ClosingShutdown && why != ClosingRestart {
		return 0, fmt.Errorf("lobby: closing reason %q (want %s or %s)", why, ClosingShutdown, ClosingRestart)
	}
	args := []string{why, strconv.FormatInt(int64(min(max(left, 0), MaxClosingLeft)/time.Second), 10)}
	if c.lastBroadcast != "" {
		args = append(args, textArgs(EncodeText(c.lastBroadcast))...)
	}
	line, err := AppendCommand(nil, Command{Name: PushClosing, Header: c.srv, Args: args})
	if err != nil {
		return 0, err
	}
	for id := range c.conns {
		c.out = append(c.out, Out{Conn: id, Line: line})
	}
	c.log.Info("lobby closing announced", "why", why, "left", left, "clients", len(c.conns), "text", c.lastBroadcast)
	return len(c.conns), nil
}

// parseClosing reads a CLOSING push's arguments.
func parseClosing(args []string) (Closing, error) {
	if len(args) < 2 {
		return Closing{}, fmt.Errorf("CLOSING with %d fields (want why, seconds[, text])", len(args))
	}
	secs, ok := decimal(args[1], 32)
	if !ok || time.Duration(secs)*time.Second > MaxClosingLeft {
		return Closing{}, fmt.Errorf("CLOSING seconds %q", args[1])
	}
	cl := Closing{Why: args[0], Left: time.Duration(secs) * time.Second}
	if cl.Why != ClosingRestart {
		cl.Why = ClosingShutdown // a later reason: the server closes all the same
	}
	if len(args) > 2 {
		text, err := DecodeText(strings.Join(args[2:], ","))
		if err != nil {
			return Closing{}, fmt.Errorf("CLOSING text: %v", err)
		}
		cl.Text = text
	}
	return cl, nil
}
