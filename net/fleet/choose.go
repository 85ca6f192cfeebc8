package fleet

import "time"

// HostView is what the lobby knows of one host when it chooses where a game goes.
type HostView struct {
	Addr string // the host's control address (-hosts)
	Up   bool   // authenticated and heard from within DeadAfter
	Load Load   // its latest report
	// Starting is the starts sent to it and not answered yet: they count as games (the lobby
	// starts several games at once, and a host's report comes with its reply).
	Starting int
	// Suspect: it missed a start's deadline lately (Remote.StartGame tries it last), and
	// Suspected is how many times it did.
	Suspect   bool
	Suspected uint64
	// Failed is how many starts the host refused or failed (full, draining, a bad stage, its
	// connection lost while it was asked; an allocated host that refused what it was allocated
	// for): the starts of StartGame or of an allocation that it did not take, its misses apart.
	Failed uint64
}

// games is the host's games, its starts in flight included.
func (h HostView) games() int { return h.Load.Games + h.Starting }

// Free is the number of games the host can still take (0 when draining or down).
func (h HostView) Free() int {
	if !h.Up || h.Load.Draining {
		return 0
	}
	return max(h.Load.Capacity-h.games(), 0)
}

// Choose returns the index of the host a new game goes to, -1 when none can take one: the
// least loaded (lowest games/capacity, starts in flight counted as games) of the hosts with
// free capacity; of equals the one with
// the most free games, then the first listed (so a lobby fronting equal hosts fills them in
// turn, one game each). A pure function of the views (tested in docs order).
func Choose(hosts []HostView) int {
	best := -1
	for i, h := range hosts {
		if h.Free() == 0 {
			continue
		}
		if best < 0 || less(h, hosts[best]) {
			best = i
		}
	}
	return best
}

// less reports whether a is less loaded than b (both with free capacity).
func less(a, b HostView) bool {
	// a.Games/a.Capacity < b.Games/b.Capacity, in integers.
	l, r := a.games()*b.Load.Capacity, b.games()*a.Load.Capacity
	if l != r {
		return l < r
	}
	return a.Free() > b.Free()
}

// Heartbeats: each side sends a message at least every PingInterval; a peer silent for
// DeadAfter is dead (a wedged host, a cut cable: TCP alone would notice only after minutes).
const (
	PingInterval = time.Second
	DeadAfter    = 5 * PingInterval
)
