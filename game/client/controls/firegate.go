package controls

import (
	"sync"
	"time"

	"github.com/rtype/rtype/game"
)

// TapTicks is the longest the fire button is sent held after a press that only one input poll
// has seen: 6 ticks (100 ms), under the game's 10-tick charge delay (game.ChargeAt), so a tap
// fires a shot and never starts the beam charge, whatever the frame rate.
const TapTicks = 6

// FireGate makes the fire button's hold time independent of the frame rate.
//
// Ebitengine polls the keyboard and gamepads once per drawn frame, and the session sends the
// buttons held at each 60 Hz tick, so without the gate a press is sent held until the next poll
// sees it released: at 5 FPS a 50 ms tap became a 200 ms hold (12 ticks), enough to start the
// beam charge. The gate sends a press seen by a single poll for at most TapTicks; a press that a
// second poll still sees is a hold and stays held until a poll sees it released. (Below 60/
// TapTicks = 10 FPS a hold is thus briefly released before the second poll confirms it: the
// charge starts one frame later.)
//
// Poll runs on the game loop; Level may run on a timer goroutine: both lock.
type FireGate struct {
	mu        sync.Mutex
	down      bool          // pressed at the last poll
	confirmed bool          // seen pressed by two polls or more: a hold
	pressAt   time.Duration // when the press was first seen
	lastPoll  int           // id of the last poll
}

// Poll records the fire state seen by the input poll numbered poll (one per drawn frame: the
// several 60 Hz Update calls of one slow frame share a poll and its state) at time now, and
// returns the fire level to send now.
func (g *FireGate) Poll(pressed bool, poll int, now time.Duration) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case !pressed:
		g.down, g.confirmed = false, false
	case !g.down:
		g.down, g.confirmed, g.pressAt = true, false, now
	case poll != g.lastPoll:
		g.confirmed = true
	}
	g.lastPoll = poll
	return g.level(now)
}

// Level is the fire level to send at time now, between polls.
func (g *FireGate) Level(now time.Duration) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.level(now)
}

// Expires reports whether the current press is unconfirmed, and when its tap window ends.
func (g *FireGate) Expires() (time.Duration, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pressAt + TapTicks*game.TickPeriod, g.down && !g.confirmed
}

func (g *FireGate) level(now time.Duration) bool {
	return g.down && (g.confirmed || now < g.pressAt+TapTicks*game.TickPeriod)
}
