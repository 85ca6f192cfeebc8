// Package playback is the client's replay viewer without a display: it plays a recorded game
// (game/replay) on the same simulation the server ran and hands the renderer the world as a
// netflow.LocalWorld, so a replay is drawn by the same code as a live game. It adds what a
// viewer needs: pause, 1×/2×/4×, seek (by re-simulating: replay.Player.SeekTo), and which
// player's ship the HUD follows. The game's events (deaths, music, the end) become the session
// events a live game would deliver, so notices, sounds and music play as they did.
package playback

import (
	"fmt"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/netflow"
	"github.com/rtype/rtype/game/client/replayfiles"
	"github.com/rtype/rtype/game/replay"
	"github.com/rtype/rtype/net/session"
)

// Speeds are the playback speeds a viewer steps through (simulation ticks per client frame).
var Speeds = [...]int{1, 2, 4}

// SeekStep is how far one seek moves (60 Hz ticks: 10 s).
const SeekStep = 10 * game.TickRate

// Viewer plays one replay. Frame is called once per client frame (60 Hz); the other methods are
// the viewer's controls. Not safe for concurrent use.
type Viewer struct {
	r      *replay.Replay
	p      *replay.Player
	lw     *netflow.LocalWorld
	speed  int // index into Speeds
	paused bool
	follow int // the slot the HUD follows
	err    error
	ended  bool // the end was reached (the GameEnd event posted)
}

// Open reads, decodes and checks the replay file at path.
func Open(path string) (*Viewer, error) {
	b, err := replayfiles.Read(path)
	if err != nil {
		return nil, err
	}
	r, err := replay.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	v, err := New(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// New returns a viewer of r at its first tick, following slot 0. A replay this build cannot
// play (another simulation version, an unknown stage) is refused with the reason.
func New(r *replay.Replay) (*Viewer, error) {
	p, err := replay.NewPlayer(r)
	if err != nil {
		return nil, err
	}
	v := &Viewer{r: r, p: p, lw: netflow.NewLocalWorld()}
	v.attach()
	return v, nil
}

// attach points the local world at the player's Sim (a backwards seek replaces it).
func (v *Viewer) attach() {
	s := v.p.Sim()
	v.lw.W, v.lw.C = s.World(), s.Components()
	v.lw.Spectator = false
	v.setFollow(v.follow)
	v.follows()
}

// follows keeps the local world on the stage the Sim plays: an arcade run's current stage (its
// terrain), its index in the run and the stage-clear tally, as a live game's frame has them.
func (v *Viewer) follows() {
	s := v.p.Sim()
	v.lw.Stage, v.lw.RunIndex, v.lw.Tally = s.Stage(), s.RunIndex(), s.Tally() > 0
	if n := len(s.Run()); n >= 2 {
		v.lw.RunLen = n
	} else {
		v.lw.RunLen = 0
	}
}

func (v *Viewer) setFollow(slot int) {
	v.follow = slot
	v.lw.Slot, v.lw.Self = slot, v.p.Sim().PlayerEntity(slot)
}

// World is what the renderer draws (its Events carry the game's deaths, music and end).
func (v *Viewer) World() *netflow.LocalWorld { return v.lw }

// Replay is the replay being played.
func (v *Viewer) Replay() *replay.Replay { return v.r }

// Frame advances playback by one client frame: Speed ticks unless paused or at the end.
func (v *Viewer) Frame() {
	if v.paused || v.err != nil {
		v.lw.Paused = true
		return
	}
	v.lw.Paused = false
	for range Speeds[v.speed] {
		if v.p.Done() {
			v.end()
			return
		}
		if err := v.p.Step(); err != nil {
			v.err = err
			return
		}
		v.post()
		v.follows()
	}
}

// post turns the events of the last simulated tick into the session events of a live game.
func (v *Viewer) post() {
	for _, ev := range v.p.Sim().Events() {
		switch ev.Kind {
		case game.EventDeath:
			v.send(session.Event{Kind: session.EventDeath, Entity: ev.Entity, Slot: ev.Slot, Lives: ev.Lives})
		case game.EventMusic:
			v.send(session.Event{Kind: session.EventMusic, Song: ev.Song})
		}
	}
}

// send queues ev for the renderer without ever blocking (at 4× a burst may exceed the queue: a
// dropped death notice is better than a stuck frame).
func (v *Viewer) send(ev session.Event) {
	v.lw.TryPost(ev)
}

func (v *Viewer) end() {
	if v.ended {
		return
	}
	v.ended, v.lw.Paused = true, true
}

// Ended reports whether playback reached the replay's last tick.
func (v *Viewer) Ended() bool { return v.ended }

// Err is the divergence that stopped playback (nil while it plays true to the recording).
func (v *Viewer) Err() error { return v.err }

// TogglePause pauses or resumes playback; at the end it plays again from the start.
func (v *Viewer) TogglePause() {
	if v.ended {
		v.Seek(-int(v.p.Tick()))
		v.paused = false
		return
	}
	v.paused = !v.paused
}

// Paused reports whether playback is paused.
func (v *Viewer) Paused() bool { return v.paused }

// Faster and Slower step through Speeds.
func (v *Viewer) Faster() { v.speed = min(v.speed+1, len(Speeds)-1) }
func (v *Viewer) Slower() { v.speed = max(v.speed-1, 0) }

// Speed is the current playback speed (1, 2 or 4).
func (v *Viewer) Speed() int { return Speeds[v.speed] }

// Seek moves playback by delta ticks (negative: back), clamped to the replay; going back
// re-simulates from the start (replay.Player.SeekTo).
func (v *Viewer) Seek(delta int) {
	if v.err != nil {
		return
	}
	to := max(0, int(v.p.Tick())+delta)
	to = min(to, int(v.p.End()))
	back := ecs.Tick(to) < v.p.Tick()
	if err := v.p.SeekTo(ecs.Tick(to)); err != nil {
		v.err = err
	}
	v.ended = false
	if back {
		v.attach()
	}
	v.follows()
	for {
		select { // notices from before the seek are stale
		case <-v.lw.Events():
			continue
		default:
		}
		break
	}
}

// FollowNext makes the HUD follow the next player slot of the game.
func (v *Viewer) FollowNext() {
	n := max(1, v.r.Players)
	v.setFollow((v.follow + 1) % n)
}

// Follow is the slot the HUD follows.
func (v *Viewer) Follow() int { return v.follow }

// Names are the players' names by slot.
func (v *Viewer) Names() []string { return v.r.Names }

// Progress is the tick played and the replay's last tick.
func (v *Viewer) Progress() (tick, end ecs.Tick) { return v.p.Tick(), v.p.End() }
