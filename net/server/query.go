package server

import (
	"net"
	"slices"
	"sync/atomic"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/buildinfo"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby/lobbyserver"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/query"
	"github.com/rtype/rtype/net/wire"
)

// DefaultName is the server's name in queries and LAN discovery when -name gives none.
const DefaultName = "rtype server"

// queryState is what the server's A2S and LAN answers tell (docs/PROTOCOL.md §12, §13): the
// lobby's state once it runs, and the players of the running games.
type queryState struct {
	info     atomic.Pointer[func() query.Info]
	keeper   *keeper // nil: no games here (a split lobby), A2S_PLAYER lists none
	answerer *query.Answerer
}

func newQueryState(k *keeper) *queryState {
	q := &queryState{keeper: k}
	src := query.Source{Info: q.Info}
	if k != nil {
		src.Players = k.queryPlayers
	}
	q.answerer = query.NewAnswerer(src, nil)
	return q
}

// Info is the server's Info now; false until the lobby runs (nothing is answered before).
func (q *queryState) Info() (query.Info, bool) {
	if f := q.info.Load(); f != nil {
		return (*f)(), true
	}
	return query.Info{}, false
}

func (q *queryState) setInfo(f func() query.Info) { q.info.Store(&f) }

// serverInfo is the server's Info from its lobby's state now: fleet for a split lobby.
func serverInfo(cfg Config, srv *lobbyserver.Server, stages *stagefile.Catalogue, ln net.Addr, fleet bool) func() query.Info {
	port := 0
	if ta, ok := ln.(*net.TCPAddr); ok {
		port = ta.Port
	}
	maxLobbies := cfg.MaxLobbies
	if maxLobbies <= 0 {
		maxLobbies = lobbyserver.DefaultMaxLobbies
	}
	name := cfg.Name
	if name == "" {
		name = DefaultName
	}
	names, def, version := stages.Names(), stages.Default().Name, buildinfo.Get()
	return func() query.Info {
		st := srv.Stats()
		return query.Info{Name: name, Map: def, Players: st.Members + st.Playing, MaxPlayers: maxLobbies * rules.MaxPlayers,
			Password: cfg.Password != "", Version: version, Protocol: wire.Version, LobbyPort: port,
			Lobbies: st.Lobbies - st.LobbiesRunning, Fleet: fleet, Stages: names}
	}
}

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
