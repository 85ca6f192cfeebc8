package netflow

import (
	"time"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/session"
)

// Frame is what the renderer reads from a game Link, valid only inside link.Frame's callback.
type Frame struct {
	World *ecs.World
	C     *game.Components
	Self  ecs.Entity
	Slot  int
	Tick  ecs.Tick
	// Stage is the stage the game plays (resolved from the lobby before the game: embedded or
	// fetched); nil when unknown (a local world without one).
	Stage *game.Stage
	// RunIndex is the index of Stage in an arcade run of RunLen stages (0 and 0 in a one-stage
	// game); Tally: the stage-clear tally after it is on (run.go).
	RunIndex, RunLen int
	Tally            bool
	// Spectator: watching without a ship (Self is ecs.Nil, Slot -1). Paused: the server paused
	// the game (the lone player's pause, Runner.RequestPause). Interrupted: no datagram for
	// session.InterruptedAfter (1 s): the world holds still; show "connection interrupted…" with
	// Silence (time since the last datagram) counting up to session.ServerTimeout (10 s).
	Spectator, Paused, Interrupted bool
	Silence                        time.Duration
	// Shots are the local player's shots predicted and not yet confirmed by the server
	// (session.View.PredictedShots), drawn like the server's with their Alpha.
	Shots []session.PredictedShot
	pos   func(e ecs.Entity) (x, y float32, ok bool)
	own   func(e ecs.Entity) bool
}

// Pos is the draw position of e in virtual px (session.View.Pos: predicted / interpolated).
func (f *Frame) Pos(e ecs.Entity) (float32, float32, bool) { return f.pos(e) }

// OwnShot reports whether e is a local player's shot confirmed by the server and drawn on the
// predicted timeline (session.View.OwnShot): its sound played with its prediction.
func (f *Frame) OwnShot(e ecs.Entity) bool { return f.own != nil && f.own(e) }

// Link is the in-game connection: a real net/session.Session, or a local world for the
// drawing harness and the Frame benchmark.
type Link interface {
	SetInput(b game.Buttons)
	Frame(fn func(f *Frame))
	Events() <-chan session.Event
	Stats() session.Stats
	Done() <-chan struct{}
	Close() error
}

// sessionLink adapts *session.Session.
type sessionLink struct {
	s   *session.Session
	fr  Frame
	v   *session.View
	run []*game.Stage // an arcade run's stages (run.go); nil: one stage
}

// NewSessionLink adapts a net/session.Session to Link; stage is the stage the game plays
// (Frame.Stage).
func NewSessionLink(s *session.Session, stage *game.Stage) Link {
	l := &sessionLink{s: s}
	l.fr.Stage = stage
	l.fr.pos = func(e ecs.Entity) (float32, float32, bool) { return l.v.Pos(e) }
	l.fr.own = func(e ecs.Entity) bool { return l.v.OwnShot(e) }
	return l
}

func (l *sessionLink) SetInput(b game.Buttons)      { l.s.SetInput(b) }
func (l *sessionLink) Events() <-chan session.Event { return l.s.Events() }
func (l *sessionLink) Stats() session.Stats         { return l.s.Stats() }
func (l *sessionLink) Done() <-chan struct{}        { return l.s.Done() }
func (l *sessionLink) Close() error                 { return l.s.Close() }
func (l *sessionLink) RequestPause(p bool)          { l.s.RequestPause(p) }
func (l *sessionLink) WatchLobby(done <-chan struct{}, lost func() bool) {
	l.s.WatchLobby(done, lost)
}
func (l *sessionLink) EndedByLobby() { l.s.EndedByLobby() }
func (l *sessionLink) Frame(fn func(f *Frame)) {
	l.s.View(func(v *session.View) {
		l.v = v
		l.fr.World, l.fr.C, l.fr.Self, l.fr.Slot, l.fr.Tick = v.World, v.C, v.Self, v.Slot, v.Tick
		l.fr.Spectator, l.fr.Paused, l.fr.Interrupted, l.fr.Silence = v.Spectator, v.Paused, v.Interrupted, v.Silence
		l.fr.Shots = v.PredictedShots(l.fr.Shots[:0])
		l.runFrame(v)
		fn(&l.fr)
		l.v = nil
	})
}

// LocalWorld is a hand-filled mirror world drawn without a server: used by the drawing harness,
// the screenshot tests and the Frame benchmark. Positions are drawn as they are (no interpolation).
type LocalWorld struct {
	W    *ecs.World
	C    *game.Components
	Self ecs.Entity
	Slot int
	// Stage is Frame.Stage (nil: none); RunIndex, RunLen and Tally are the Frame's (an arcade
	// run played offline: the gallery harness).
	Stage            *game.Stage
	RunIndex, RunLen int
	Tally            bool
	// Step, when set, is called once per Frame before drawing (to animate the world).
	Step  func(w *LocalWorld)
	Input game.Buttons
	// Spectator, Paused, Interrupted and Silence are copied to the Frame (harness screens).
	Spectator, Paused, Interrupted bool
	Silence                        time.Duration
	events                         chan session.Event
	done                           chan struct{}
	fr                             Frame
}

// NewLocalWorld returns an empty mirror world with the game components registered.
func NewLocalWorld() *LocalWorld {
	w := ecs.NewWorld()
	lw := &LocalWorld{W: w, C: game.RegisterComponents(w), Slot: 0, events: make(chan session.Event, 16), done: make(chan struct{})}
	lw.fr.pos = func(e ecs.Entity) (float32, float32, bool) {
		p := lw.C.Position.Get(e)
		if p == nil {
			return 0, 0, false
		}
		return p.X, p.Y, true
	}
	return lw
}

// Post queues a session event (e.g. GameEnd) as if the server had sent it.
func (l *LocalWorld) Post(ev session.Event) { l.events <- ev }

// TryPost queues ev unless the queue is full (then ev is dropped and TryPost reports false).
func (l *LocalWorld) TryPost(ev session.Event) bool {
	select {
	case l.events <- ev:
		return true
	default:
		return false
	}
}

func (l *LocalWorld) SetInput(b game.Buttons)      { l.Input = b }
func (l *LocalWorld) Events() <-chan session.Event { return l.events }
func (l *LocalWorld) Stats() session.Stats {
	return session.Stats{RTTMillis: 0, SnapshotsPerSec: 60, ServerTick: uint32(l.W.Tick())}
}
func (l *LocalWorld) Done() <-chan struct{} { return l.done }
func (l *LocalWorld) Close() error          { return nil }
func (l *LocalWorld) Frame(fn func(f *Frame)) {
	l.fr.World, l.fr.C, l.fr.Self, l.fr.Slot, l.fr.Tick, l.fr.Stage = l.W, l.C, l.Self, l.Slot, l.W.Tick(), l.Stage
	l.fr.RunIndex, l.fr.RunLen, l.fr.Tally = l.RunIndex, l.RunLen, l.Tally
	l.fr.Spectator, l.fr.Paused, l.fr.Interrupted, l.fr.Silence = l.Spectator, l.Paused, l.Interrupted, l.Silence
	fn(&l.fr)
}

// Spawn creates an entity with a Position, Kind and Size (helper for hand-filled worlds).
func (l *LocalWorld) Spawn(kind game.EntityKind, variant uint8, x, y float32, w, h uint16) ecs.Entity {
	e := l.W.Create()
	l.C.Position.Set(e, game.Position{X: x, Y: y})
	l.C.Kind.Set(e, game.Kind{Kind: kind, Variant: variant})
	if w > 0 {
		l.C.Size.Set(e, game.Size{W: w, H: h})
	}
	return e
}
