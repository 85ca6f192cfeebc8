package lobbyserver

import (
	"time"

	"github.com/rtype/rtype/lobby"
)

// RefusedDraining is the reason of the 500 a START or a RETRY gets while the server drains:
// it is shutting down and lets the running games end, but starts none.
const RefusedDraining = "the server is shutting down: no new game (the running ones may end)"

// Drain makes the Core start no more games (START and RETRY are refused with RefusedDraining)
// and tells every connection that the server closes with left for its running games to end
// (CLOSING, docs/PROTOCOL.md §2.5.13). Lobbies, chat, spectators, rejoins and the hall of fame
// keep working meanwhile. It returns how many connections were told.
func (c *Core) Drain(left time.Duration) (int, error) {
	if !c.draining {
		c.log.Info("lobby draining: no new game", "left", left)
	}
	c.draining = true
	return c.Closing(lobby.ClosingShutdown, left)
}

// Drain is Core.Drain under the Server's lock.
func (s *Server) Drain(left time.Duration) (n int, err error) {
	s.do(func(time.Duration) { n, err = s.core.Drain(left) })
	return n, err
}
