package session

import (
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
)

// The lobby's END for a game that sent no GAME_END (its host died): the silent session ends
// 1 s later saying the host stopped answering; a game that still sends goes on. Virtual time.
func TestEndedByLobbyNamesTheHost(t *testing.T) {
	for _, silent := range []bool{true, false} {
		h := newHostile()
		for tick := uint32(102); tick < 120; tick += 2 {
			h.send(tick, func(b []byte) []byte { return b })
		}
		h.c.EndedByLobby(h.c.t)
		at, tick := h.c.t, uint32(120)
		for now := at; now < at+3*time.Second; now += time.Second / game.TickRate {
			if !silent {
				tick++
				h.send(tick, func(b []byte) []byte { return b })
				continue
			}
			h.c.Tick(now)
			if end, _ := h.c.CloseRequested(); end {
				break
			}
		}
		end, why := h.c.CloseRequested()
		switch {
		case silent && (!end || h.c.t-at > InterruptedAfter+100*time.Millisecond || !strings.HasPrefix(why, HostGoneReason)):
			t.Errorf("silent game after END: closed %v (%q) after %v, want closed about %v after with %q", end, why, h.c.t-at, InterruptedAfter, HostGoneReason)
		case !silent && end:
			t.Errorf("a game still sending was closed after END: %q", why)
		}
	}
}
