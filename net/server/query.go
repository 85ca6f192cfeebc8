package server

import (
	"slices"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/query"
)

// DefaultName is the server's name in queries and LAN discovery when -name gives none.
const DefaultName = "rtype server"

// queryPlayers are the players of the running games for A2S_PLAYER: name, score and time in the
// game, at most query.MaxPlayersListed. A game whose tick holds its lock now is skipped (the
// reader never waits for a tick).
func (k *keeper) queryPlayers() []query.Player {
	k.mu.Lock()
	type game1 struct {
		in      *instance.Instance
		members []string
		slots   []int
		started time.Time
	}
	games := make([]game1, 0, len(k.specs))
	for in, spec := range k.specs {
		g := game1{in: in, started: k.started[in]}
		for _, m := range spec.Members {
			g.members, g.slots = append(g.members, m.Name), append(g.slots, m.Slot)
		}
		games = append(games, g)
	}
	k.mu.Unlock()
	slices.SortFunc(games, func(a, b game1) int { return a.started.Compare(b.started) })
	var ps []query.Player
	now := time.Now()
	for _, g := range games {
		dur := float32(now.Sub(g.started).Seconds())
		g.in.TryView(func(sim *game.Sim) {
			for i, slot := range g.slots {
				if st := sim.Stats(slot); st.Present && len(ps) < query.MaxPlayersListed {
					ps = append(ps, query.Player{Name: g.members[i], Score: int32(min(st.Score, 1<<31-1)), Duration: dur})
				}
			}
		})
	}
	return ps
}
