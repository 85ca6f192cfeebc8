package instance

import (
	"errors"
	"fmt"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/replication"
	"github.com/rtype/rtype/net/wire"
)

// Rejoin, spectators and pause (docs/PROTOCOL.md §5.10–§5.12).
// The wire's slots are the game's: wire.MaxSlot+1 == rules.MaxPlayers, or this does not compile.
const _, _ = uint(wire.MaxSlot + 1 - rules.MaxPlayers), uint(rules.MaxPlayers - wire.MaxSlot - 1)

const (
	// RejoinWindow is how long a player whose connection was lost (its client crashed, its
	// lobby connection closed, or it went silent) keeps its slot: its ship is suspended
	// (game.Sim.SuspendPlayer) and a rejoin through the lobby (REJOIN, §2.4.10) resumes it with
	// its score and lives. After that the slot is removed as if the player had left. The
	// protocol's value (wire.RejoinWindow).
	RejoinWindow = wire.RejoinWindow
	// MaxSpectators is the number of spectators one game accepts (handoff.MaxSpectators).
	MaxSpectators = handoff.MaxSpectators
)

// Errors of Rejoin and Spectate.
var (
	ErrNotAway       = errors.New("instance: that slot is not waiting for a rejoin")
	ErrGameOver      = errors.New("instance: the game is over")
	ErrTooManyWatch  = fmt.Errorf("instance: the game has %d spectators already", MaxSpectators)
	ErrTokenConflict = errors.New("instance: token already in use in this game")
)

func (g *Game) newPeer(m handoff.Member, slot int, now time.Duration) *peer {
	p := &peer{member: m, slot: slot, joinedAt: now, backlog: make([]byte, 0, 256), prover: wire.NewProver(m.Key)}
	p.w = replication.NewWriter(g.tracker)
	p.ep.OnAck = p.w.Acked
	return p
}

// welcome is p's WELCOME: its ship and slot, or no ship and wire.SpectatorSlot for a spectator.
func (g *Game) welcome(p *peer) wire.Welcome {
	w := wire.Welcome{Tick: uint32(g.sim.Tick()), TickRate: game.TickRate}
	if p.spectator {
		w.Slot = wire.SpectatorSlot
	} else {
		w.Entity, w.Slot = uint64(g.sim.PlayerEntity(p.slot)), uint8(p.slot)
	}
	return w
}

// losePeer handles a player whose connection was lost: like dropPeer (BYE reason when it is
// bound), but a player's slot is kept for RejoinWindow with its ship suspended. A spectator is
// simply dropped.
func (g *Game) losePeer(p *peer, reason uint8, why string) {
	if p.gone {
		return
	}
	if p.spectator || g.over {
		g.dropPeer(p, reason, true, why)
		return
	}
	if p.bound {
		b := g.header(p, g.scratch())
		b = wire.Bye{Reason: reason}.Append(b)
		g.write(p, b)
	}
	p.gone, p.away, p.awayAt = true, true, g.now
	g.sim.SuspendPlayer(p.slot)
	g.log.Info("player lost; slot kept for a rejoin", "slot", p.slot, "name", p.member.Name, "reason", why, "window", g.cfg.RejoinWindow)
}

// expireAway removes an away player's slot once RejoinWindow has passed.
func (g *Game) expireAway(p *peer) {
	if p.away && g.now-p.awayAt > g.cfg.RejoinWindow {
		p.away = false
		g.sim.RemovePlayer(p.slot)
		g.log.Info("rejoin window over; slot removed", "slot", p.slot, "name", p.member.Name)
	}
}

// awaiting reports whether some player is away (may still rejoin).
func (g *Game) awaiting() bool {
	for _, p := range g.peers {
		if p.away {
			return true
		}
	}
	return false
}

// Rejoin gives slot m.Slot, whose player is away, to m (a new user UUID, token and session key
// from the lobby, which checked the rejoiner's proof): its ship is resumed with its score and
// lives, the old token stops working, and the new peer says HERE as at the start. It returns
// the old token (the runtime unroutes it). ErrNotAway: the slot is not waiting for a rejoin
// (connected, left for good, expired or invalid); ErrGameOver: the game has ended.
func (g *Game) Rejoin(now time.Duration, m handoff.Member) (old uint32, err error) {
	g.now = now
	if g.over || g.shutdown {
		return 0, ErrGameOver
	}
	idx := -1
	for i, p := range g.peers {
		if p.member.Token == m.Token && !p.gone {
			return 0, ErrTokenConflict
		}
		if !p.spectator && p.slot == m.Slot {
			idx = i
		}
	}
	if idx < 0 {
		return 0, ErrNotAway
	}
	g.expireAway(g.peers[idx])
	op := g.peers[idx]
	if !op.away {
		return 0, ErrNotAway
	}
	np := g.newPeer(m, op.slot, now)
	np.bytesIn, np.bytesOut, np.dgIn, np.dgOut = op.bytesIn, op.bytesOut, op.dgIn, op.dgOut
	g.peers[idx] = np
	g.sim.ResumePlayer(op.slot)
	g.log.Info("player rejoined", "slot", op.slot, "name", m.Name, "was", op.member.Name)
	if g.userPaused {
		// A lone player who paused, lost the game and came back has a client whose menu is
		// closed: the game goes on (PAUSE 0 to everyone), or it would stay frozen with the
		// rejoiner's menu saying it runs.
		g.requestPause(np, false)
	}
	return op.member.Token, nil
}

// Spectate adds m as a spectator (no slot, no ship, no input; it receives the game like a
// player). ErrTooManyWatch when MaxSpectators are watching already.
func (g *Game) Spectate(now time.Duration, m handoff.Member) error {
	g.now = now
	if g.over || g.shutdown {
		return ErrGameOver
	}
	n := 0
	for _, p := range g.peers {
		if p.member.Token == m.Token && !p.gone {
			return ErrTokenConflict
		}
		if p.spectator && !p.gone {
			n++
		}
	}
	if n >= MaxSpectators {
		return ErrTooManyWatch
	}
	p := g.newPeer(m, -1, now)
	p.spectator = true
	g.peers = append(g.peers, p)
	g.log.Info("spectator joined", "name", m.Name, "spectators", n+1)
	return nil
}

// TakeSpectatorsGone returns the spectators dropped since the last call (silent for
// HereTimeout or SilenceTimeout, BYE, or Drop), and forgets them.
func (g *Game) TakeSpectatorsGone() []handoff.Member {
	gone := g.spectatorsGone
	g.spectatorsGone = nil
	return gone
}

// Spectators is the number of spectators watching (metrics).
func (g *Game) Spectators() int {
	n := 0
	for _, p := range g.peers {
		if p.spectator && !p.gone {
			n++
		}
	}
	return n
}

// Away lists the slots waiting for a rejoin.
func (g *Game) Away() []int {
	var out []int
	for _, p := range g.peers {
		if p.away {
			out = append(out, p.slot)
		}
	}
	return out
}

// Paused reports whether the game's only player paused it (PAUSE).
func (g *Game) Paused() bool { return g.userPaused }

// requestPause handles a PAUSE from p: honoured only when p is the game's only player (no other
// player connected or away, spectators do not count); the new state goes to every client.
func (g *Game) requestPause(p *peer, paused bool) {
	if p.spectator || g.over || paused == g.userPaused {
		return
	}
	if paused {
		for _, q := range g.peers {
			if q != p && !q.spectator && (!q.gone || q.away) {
				return // several players: the game goes on
			}
		}
	}
	g.userPaused = paused
	g.rec.Pause(g.sim.Tick(), p.slot, paused)
	g.log.Info("game paused by its only player", "paused", paused, "name", p.member.Name)
	var v uint8
	if paused {
		v = 1
	}
	g.broadcastReliable(wire.Pause{Paused: v}.Append(g.scratch()))
}

// broadcastResults sends RESULTS: every slot's figures from the simulation (game.Sim.Stats),
// one command per slot (count 1: a reliable command fits transport.RelMaxCmd).
func (g *Game) broadcastResults() { g.broadcastFigures(g.sim.Stats) }

// broadcastFigures sends every player's figures of stats (Sim.Stats: the game's; Sim.StageFigures:
// a cleared stage's, docs/PROTOCOL.md §3.4.9) as RESULTS, one reliable command per player.
func (g *Game) broadcastFigures(stats func(slot int) game.PlayerStats) {
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		used := false
		for _, p := range g.peers {
			if !p.spectator && p.slot == slot {
				used = true
			}
		}
		if !used {
			continue
		}
		st := stats(slot)
		e := wire.ResultEntry{Slot: uint8(slot), Score: st.Score, Kills: st.Kills, Deaths: st.Deaths,
			BeamHits: st.BeamHits, Shots: st.Shots, Hits: st.Hits}
		switch {
		case !st.Present:
			e.Flags = wire.ResultLeft
		case st.Lives == 0:
			e.Flags = wire.ResultOut
		}
		if st.Continues > 0 {
			e.Flags |= wire.ResultContinued
		}
		if g.cfg.Section > 0 || g.cfg.InfiniteLives { // a practice (docs/PROTOCOL.md §2.4.16, §2.4.17)
			e.Flags |= wire.ResultPractice
		}
		g.broadcastReliable(wire.Results{Count: 1, Entries: [wire.MaxSlot + 1]wire.ResultEntry{e}}.Append(g.scratch()))
	}
}
