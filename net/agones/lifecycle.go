package agones

// Lifecycle decides what a host's GameServer does as its games come and go. Agones never
// deletes an Allocated GameServer: a Fleet's scale-down (its FleetAutoscaler) and a rollout of
// a new template remove only Ready ones. So a host that was allocated and has emptied goes back
// to Ready (SDK Ready, which Agones documents for reusing an Allocated GameServer); after
// RecycleAfter ended games (0: never) an emptied host shuts down instead, and the Fleet
// replaces it with a fresh one. A host is busy, not emptied, while it holds a game's end for
// its away lobby (net/fleet.Host.Held): its result and replay are lost if the GameServer is
// deleted, so net/server counts them as running games here. Pure: the host reports each game
// that ended and its running games after each change, in either order; the caller does what
// the Step says.
type Lifecycle struct {
	// RecycleAfter is how many games a host ends before it shuts down once empty (0: never).
	RecycleAfter int

	ended    int  // games ended since the host started
	running  int  // games running, as last reported
	busy     bool // a game ran since the host was last made Ready
	recycled bool // Recycle was said
}

// Step is what the host should do after a change.
type Step uint8

// Steps.
const (
	Stay        Step = iota // nothing to do
	BackToReady             // empty after a game: SDK Ready so the Fleet may scale it down or roll it over
	Recycle                 // empty after RecycleAfter games: stop taking games, SDK Shutdown
)

func (s Step) String() string {
	switch s {
	case BackToReady:
		return "ready"
	case Recycle:
		return "recycle"
	}
	return "stay"
}

// Ended records a game that ended and says what to do.
func (l *Lifecycle) Ended() Step {
	l.ended++
	return l.step()
}

// Games is called with the games running after a change (a game allocated, started or
// ended; net/server adds the ends held for an away lobby) and says what to do.
func (l *Lifecycle) Games(running int) Step {
	l.running = running
	if running > 0 {
		l.busy = true
	}
	return l.step()
}

func (l *Lifecycle) step() Step {
	switch {
	case l.running > 0:
		return Stay
	case l.RecycleAfter > 0 && l.ended >= l.RecycleAfter && !l.recycled:
		l.recycled, l.busy = true, false
		return Recycle
	case l.busy:
		l.busy = false
		return BackToReady
	}
	return Stay
}
