package instance

import "github.com/rtype/rtype/lobby/handoff"

var (
	_ handoff.Rejoiner          = (*Instance)(nil)
	_ handoff.Spectatable       = (*Instance)(nil)
	_ handoff.SpectatorReporter = (*Instance)(nil)
)

// SpectatorsGone is signalled when the game has dropped spectators (handoff.SpectatorReporter).
func (in *Instance) SpectatorsGone() <-chan struct{} { return in.gone }

// TakeSpectatorsGone returns the spectators the game dropped since the last call
// (handoff.SpectatorReporter).
func (in *Instance) TakeSpectatorsGone() []handoff.Member {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.g.TakeSpectatorsGone()
}

// noteGone signals SpectatorsGone when the game dropped spectators (called with in.mu held).
func (in *Instance) noteGone() {
	if len(in.g.spectatorsGone) > 0 {
		select {
		case in.gone <- struct{}{}:
		default:
		}
	}
}

// Rejoin gives an away player's slot to m (handoff.Rejoiner; Game.Rejoin): m's token is routed to
// this game and the old one no longer is.
func (in *Instance) Rejoin(m handoff.Member) error {
	// Routes change outside in.mu: the reader takes the route lock, then an instance's.
	in.m.reroute(in, 0, m.Token)
	in.mu.Lock()
	old, err := uint32(0), ErrGameOver
	if !in.ended {
		old, err = in.g.Rejoin(in.m.now(), m)
		in.flush()
	}
	in.mu.Unlock()
	if err != nil {
		in.m.reroute(in, m.Token, 0)
		return err
	}
	in.m.reroute(in, old, 0)
	return nil
}

// Spectate adds m as a spectator of this game (handoff.Spectatable; Game.Spectate) and routes
// its token here.
func (in *Instance) Spectate(m handoff.Member) error {
	in.m.reroute(in, 0, m.Token)
	in.mu.Lock()
	err := ErrGameOver
	if !in.ended {
		err = in.g.Spectate(in.m.now(), m)
	}
	in.mu.Unlock()
	if err != nil {
		in.m.reroute(in, m.Token, 0)
	}
	return err
}

// Spectators is the number of spectators watching this game.
func (in *Instance) Spectators() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.g.Spectators()
}

// Paused reports whether the game's only player paused it.
func (in *Instance) Paused() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.g.Paused()
}

// Away lists the slots of this game waiting for a rejoin.
func (in *Instance) Away() []int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.g.Away()
}

// Spectators is the number of spectators watching the running games (metrics).
func (m *Manager) Spectators() int {
	n := 0
	for _, in := range m.Instances() {
		n += in.Spectators()
	}
	return n
}

// reroute routes token add (0: none) to in and stops routing token del (0: none) to it. Never
// called with in.mu held.
func (m *Manager) reroute(in *Instance, del, add uint32) {
	m.routeMu.Lock()
	defer m.routeMu.Unlock()
	if del != 0 {
		c := m.routes[del]
		for i := range c {
			if c[i] == in {
				c = append(c[:i], c[i+1:]...)
				break
			}
		}
		if len(c) == 0 {
			delete(m.routes, del)
		} else {
			m.routes[del] = c
		}
	}
	if add != 0 {
		m.routes[add] = append(m.routes[add], in)
	}
}
