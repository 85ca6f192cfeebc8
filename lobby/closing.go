package lobby

import (
	"fmt"
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

// Lives of a SET_LIVES and a LIVES push (docs/PROTOCOL.md §2.4.17, §2.5.12).
const (
	LivesLevel    = "level"    // the level's lives (the default)
	LivesInfinite = "infinite" // the practice trainer: a lost ship costs no life
)
