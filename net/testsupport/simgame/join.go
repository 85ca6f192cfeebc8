package simgame

import (
	"net/netip"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/session"
)

// AddClient attaches a new client core for m (a rejoining player or a spectator the test has
// given to the server with Game.Rejoin or Game.Spectate) at a new address; its first tick, at
// the next period, says HERE. It returns the client's index.
func (g *Game) AddClient(m handoff.Member) int {
	i := len(g.Clients)
	addr := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 2, byte(i + 1)}), 50000)
	var terrain *game.Terrain
	if g.cfg.Stage != nil {
		terrain = &g.cfg.Stage.Terrain
	}
	c := session.NewClient(session.ClientConfig{Server: g.ServerAddr, UUID: m.UUID, Token: m.Token, Key: m.Key, Terrain: terrain}, g.Now)
	g.Clients = append(g.Clients, c)
	g.ClientAddr = append(g.ClientAddr, addr)
	g.Events = append(g.Events, nil)
	g.Closed = append(g.Closed, false)
	g.clientNext = append(g.clientNext, g.Now+game.TickPeriod)
	g.attachClient(i, addr)
	return i
}
