// Package fx holds the client-side visual effects that the server does not replicate: particles
// (explosion debris, sparks) and a Tracker that compares the mirror world frame to frame to find
// entities that appeared, were removed (explosions) or lost Health (hit flashes). It does not import
// ebiten: positions are virtual px, velocities px per 60 Hz tick, times 60 Hz ticks.
package fx

import (
	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
)

// Color is a straight (non-premultiplied) RGBA colour.
type Color struct{ R, G, B, A uint8 }

// Particle is one debris point.
type Particle struct {
	X, Y, VX, VY float32 // px, px/tick
	Age, Life    int     // ticks
	Size         float32 // px radius at birth (shrinks to 0)
	Col          Color
}

// Alpha is the remaining opacity 0..1.
func (p *Particle) Alpha() float32 { return 1 - float32(p.Age)/float32(p.Life) }

// Particles is a pool of particles; the zero value is ready to use.
type Particles struct {
	P   []Particle
	rng uint64
	Max int // cap on live particles (0 = 4000); when full, new bursts are dropped
}

func (ps *Particles) rand() float32 {
	if ps.rng == 0 {
		ps.rng = 0x9E3779B97F4A7C15
	}
	ps.rng ^= ps.rng << 13
	ps.rng ^= ps.rng >> 7
	ps.rng ^= ps.rng << 17
	return float32(ps.rng>>40) / float32(1<<24)
}

// Burst emits n particles from (x,y) in all directions at up to speed px/tick, living about life ticks.
func (ps *Particles) Burst(x, y float32, n int, speed float32, life int, size float32, c Color) {
	limit := ps.Max
	if limit == 0 {
		limit = 4000
	}
	for i := 0; i < n && len(ps.P) < limit; i++ {
		a := ps.rand() * 6.2831855
		v := speed * (0.25 + 0.75*ps.rand())
		sin, cos := sincos(a)
		l := life/2 + int(ps.rand()*float32(life))
		ps.P = append(ps.P, Particle{X: x, Y: y, VX: cos * v, VY: sin * v, Life: l + 1, Size: size * (0.5 + ps.rand()), Col: c})
	}
}

// Update advances every particle one tick (drag 4%/tick) and drops the dead ones.
func (ps *Particles) Update() {
	out := ps.P[:0]
	for _, p := range ps.P {
		p.Age++
		if p.Age >= p.Life {
			continue
		}
		p.X += p.VX
		p.Y += p.VY
		p.VX *= 0.96
		p.VY *= 0.96
		out = append(out, p)
	}
	ps.P = out
}

// Tracked is what the tracker remembers about an entity from the previous frame.
type Tracked struct {
	Kind game.Kind
	X, Y float32 // draw position, px
	W, H uint16  // Size, px (0 when absent)
	HP   uint16
}

// Tracker finds appearances, removals and Health drops between frames. Call Begin, then See for
// every drawn entity, then End.
type Tracker struct {
	prev, cur map[ecs.Entity]Tracked
	flash     map[ecs.Entity]int
	first     bool
}

// FlashTicks is how long a hit flash lasts.
const FlashTicks = 8

// NewTracker returns an empty tracker; the first frame reports nothing as new.
func NewTracker() *Tracker {
	return &Tracker{prev: map[ecs.Entity]Tracked{}, cur: map[ecs.Entity]Tracked{}, flash: map[ecs.Entity]int{}, first: true}
}

// Begin starts a frame.
func (t *Tracker) Begin() { clear(t.cur) }

// See records entity e this frame and reports whether it is new since the last frame and whether
// its HP dropped (which starts a hit flash).
func (t *Tracker) See(e ecs.Entity, tr Tracked) (isNew, damaged bool) {
	t.cur[e] = tr
	p, ok := t.prev[e]
	if !ok {
		return !t.first, false
	}
	if tr.HP < p.HP {
		t.flash[e] = FlashTicks
		return false, true
	}
	return false, false
}

// End finishes the frame: fn is called for each entity seen last frame but not this one, and
// flashes count down one tick.
func (t *Tracker) End(fn func(e ecs.Entity, last Tracked)) {
	for e, p := range t.prev {
		if _, ok := t.cur[e]; !ok {
			delete(t.flash, e)
			if fn != nil {
				fn(e, p)
			}
		}
	}
	for e, n := range t.flash {
		if n <= 1 {
			delete(t.flash, e)
		} else {
			t.flash[e] = n - 1
		}
	}
	t.prev, t.cur = t.cur, t.prev
	t.first = false
}

// Flash is the hit-flash strength of e, 0 (none) .. 1 (just hit).
func (t *Tracker) Flash(e ecs.Entity) float32 {
	return float32(t.flash[e]) / FlashTicks
}

// Reset forgets everything (new game).
func (t *Tracker) Reset() {
	clear(t.prev)
	clear(t.cur)
	clear(t.flash)
	t.first = true
}

// OnScreen reports whether a removed entity was visible (an enemy that left the screen did not
// explode). margin is in px.
func OnScreen(x, y, margin float32) bool {
	return x > -margin && x < game.Width+margin && y > -margin && y < game.Height+margin
}
