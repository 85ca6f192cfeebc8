package session

import (
	"math"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
)

// Own shots without delay (the package doc: "The client's view of the world"). The local
// player's normal shots (KindPlayerBullet ShotNormal) and charged beams (KindBeam) are predicted on the press (release)
// tick at the predicted ship's nose, on the predicted timeline (the ship's: input tick inTick).
// When the server's spawn of that shot arrives it is matched by kind and by position at the
// spawn's tick, and from then on the server's entity is drawn on the predicted timeline
// (extrapolated from its Position and Velocity, exact for straight shots) with the small
// difference blended away. A prediction the server never confirmed fades out. Lasers fired
// through a Force attached in front, Bit shots and missiles are not predicted: they come the
// usual way (interpolated).

const (
	// OwnShotMatchDist is the largest distance (virtual px, per axis) between a predicted shot
	// and the server's spawn at the same tick that makes them the same shot.
	OwnShotMatchDist = 24
	// OwnShotFadeTicks is how long (60 Hz ticks, 150 ms) an unconfirmed prediction fades out.
	OwnShotFadeTicks = 9
	// ownShotMargin is the ticks, past one RTT plus the interpolation delay, a prediction waits
	// for the server's spawn (a lost spawn is sent again) before it fades.
	ownShotMargin = 12
	// ownShotBlend is the factor a hand-over's offset keeps per predicted tick (about 6 ticks).
	ownShotBlend = 0.6
	maxOwnShots  = 64
	maxOwnCands  = 32
)

const (
	ownFree uint8 = iota
	ownPredicted
	ownMatched
)

// ownShot is one predicted shot: unconfirmed (position from the press), or matched to the
// server's entity e (position from e, plus the blend offset).
type ownShot struct {
	state      uint8
	kind       game.Kind
	tick       uint32  // input tick of the press (release, for a beam)
	x0, y0, vx float32 // spawn position (before that tick's move), px; speed px/s
	e          ecs.Entity
	offX, offY float32 // matched: predicted minus server position at hand-over, decaying
	fadeFrom   uint32  // unconfirmed and fading: the input tick the fade began (0: not fading)
}

// at is where an unconfirmed shot is at the end of input tick t (game.NormalShotAt).
func (s *ownShot) at(t uint32) (x, y float32) {
	return s.x0 + s.vx*float32(int32(t-s.tick)+1)/game.TickRate, s.y0
}

// ownShots is the client's fire prediction and its predicted shots (fixed size: no allocation).
type ownShots struct {
	prev     game.Buttons // buttons of the previous predicted tick
	cooldown int          // predicted Ship.Cooldown
	held     int          // predicted Ship.Held
	shots    [maxOwnShots]ownShot
	matched  int // shots in state ownMatched
	cands    [maxOwnCands]ecs.Entity
	nCands   int
	// hand-over figures (OwnShotStats)
	stats OwnShotStats
}

// OwnShotStats counts the predictions of the local player's shots.
type OwnShotStats struct {
	Predicted   uint64  // shots predicted
	Matched     uint64  // predictions taken over by the server's shot
	Faded       uint64  // predictions the server never confirmed, faded out
	HandOverN   uint64  // hand-overs measured (= Matched)
	HandOverSum float64 // sum of hand-over distances, px
	HandOverMax float64 // largest hand-over distance, px
}

// PredictedShot is an unconfirmed prediction of the local player's shot, drawn like the server's
// shot of Kind at (X, Y) virtual px with opacity Alpha (1, falling to 0 while it fades out).
type PredictedShot struct {
	Kind  game.Kind
	X, Y  float32
	VX    float32 // px/s
	Alpha float32
	W, H  uint16 // Size of Kind
	Tick  uint32 // input tick of the press (release): a new prediction has a newer Tick
}

// OwnShotStats returns the counts of the local player's predicted shots.
func (c *Client) OwnShotStats() OwnShotStats { return c.own.stats }

// predictFire runs the server's fire rules (game sysInput) for the local ship on input tick t
// with buttons b, the ship at (x, y) after its move of t, and records the shot it fires.
func (c *Client) predictFire(t uint32, b game.Buttons, x, y float32, alive bool) {
	o := &c.own
	prev := o.prev
	o.prev = b
	o.decay()
	if !alive {
		return
	}
	if o.cooldown > 0 {
		o.cooldown--
	}
	fire, wasFire := b&game.BtnFire != 0, prev&game.BtnFire != 0
	switch {
	case fire && !wasFire:
		o.held = 1
		if o.cooldown == 0 {
			o.cooldown = game.FireCooldown
			front, laser := c.selfForceFront()
			if front {
				if laser {
					o.cooldown = game.LaserCooldown
				}
				return // the Force fires a laser: not predicted
			}
			sx, sy, vx := game.NormalShotAt(x, y)
			o.add(game.Kind{Kind: game.KindPlayerBullet, Variant: game.ShotNormal}, t, sx, sy, vx)
		}
	case fire:
		if o.held < 0xFFFF {
			o.held++
		}
	case wasFire:
		if lvl, sx, sy, vx := game.BeamAt(x, y, o.held); lvl > 0 {
			o.add(game.Kind{Kind: game.KindBeam, Variant: lvl}, t, sx, sy, vx)
			o.cooldown = game.FireCooldown
		}
		o.held = 0
	}
}

// selfForceFront reports whether the local ship's Force is attached in front (a press fires its
// laser, laser: the ship has a laser colour, so the slower laser cooldown applies).
func (c *Client) selfForceFront() (front, laser bool) {
	for it := c.qForce.Iter(); it.Next(); {
		if f := it.Get(); ecs.Entity(f.Owner) == c.self && f.Mode == game.ForceFront {
			pl := c.comps.Player.Get(c.self)
			return true, pl != nil && pl.Laser != game.LaserNone
		}
	}
	return false, false
}

func (o *ownShots) add(k game.Kind, t uint32, x, y, vx float32) {
	for i := range o.shots {
		if s := &o.shots[i]; s.state == ownFree {
			*s = ownShot{state: ownPredicted, kind: k, tick: t, x0: x, y0: y, vx: vx}
			o.stats.Predicted++
			return
		}
	}
	// full: not predicted (the server's shot is drawn the usual way)
}

// decay shrinks the hand-over offsets, once per predicted tick.
func (o *ownShots) decay() {
	if o.matched == 0 {
		return
	}
	for i := range o.shots {
		if s := &o.shots[i]; s.state == ownMatched {
			s.offX *= ownShotBlend
			s.offY *= ownShotBlend
			if math.Abs(float64(s.offX)) < 0.05 && math.Abs(float64(s.offY)) < 0.05 {
				s.offX, s.offY = 0, 0
			}
		}
	}
}

// noteSpawn remembers a new entity whose Kind arrived (matched after the datagram, matchOwn).
func (c *Client) noteSpawn(e ecs.Entity) {
	k := c.comps.Kind.Get(e)
	if k == nil || !ownKind(*k) || c.own.nCands == maxOwnCands {
		return
	}
	c.own.cands[c.own.nCands] = e
	c.own.nCands++
}

func ownKind(k game.Kind) bool {
	return k.Kind == game.KindPlayerBullet && k.Variant == game.ShotNormal || k.Kind == game.KindBeam
}

// matchOwn hands the predictions over to the server's shots spawned in the datagram of tick st:
// each is matched with the nearest unmatched prediction of its kind at st, within
// OwnShotMatchDist. Then it starts the fade of the predictions too old to be confirmed.
func (c *Client) matchOwn(st uint32) {
	o := &c.own
	for _, e := range o.cands[:o.nCands] {
		k, p := c.comps.Kind.Get(e), c.comps.Position.Get(e)
		if k == nil || p == nil || !c.world.Alive(e) || c.ownMatched(e) != nil {
			continue
		}
		best, bestD := -1, float32(math.MaxFloat32)
		for i := range o.shots {
			s := &o.shots[i]
			if s.state != ownPredicted || s.kind != *k {
				continue
			}
			px, py := s.at(st)
			dx, dy := abs32(px-p.X), abs32(py-p.Y)
			if dx > OwnShotMatchDist || dy > OwnShotMatchDist {
				continue
			}
			if d := dx + dy; d < bestD {
				best, bestD = i, d
			}
		}
		if best < 0 {
			continue
		}
		s := &o.shots[best]
		px, py := s.at(st)
		s.state, s.e, s.offX, s.offY = ownMatched, e, px-p.X, py-p.Y
		if s.fadeFrom != 0 {
			s.fadeFrom = 0
		}
		o.matched++
		d := math.Hypot(float64(s.offX), float64(s.offY))
		o.stats.Matched++
		o.stats.HandOverN++
		o.stats.HandOverSum += d
		o.stats.HandOverMax = max(o.stats.HandOverMax, d)
	}
	o.nCands = 0
	// unconfirmed past RTT + interpolation delay + margin: fade out
	wait := uint32(c.ep.RTT().Seconds()*game.TickRate+c.interpDelayTicks()) + ownShotMargin
	for i := range o.shots {
		s := &o.shots[i]
		if s.state == ownPredicted && s.fadeFrom == 0 && int32(st-s.tick) > int32(wait) {
			s.fadeFrom = max(c.inTick, 1)
		}
	}
}

// reapOwn drops the faded-out predictions (called per predicted tick).
func (c *Client) reapOwn() {
	o := &c.own
	for i := range o.shots {
		s := &o.shots[i]
		if s.state == ownPredicted && s.fadeFrom != 0 && int32(c.inTick-s.fadeFrom) >= OwnShotFadeTicks {
			s.state = ownFree
			o.stats.Faded++
		}
	}
}

// forgetOwn drops the record of a matched entity that is gone (hit something, left the field).
func (c *Client) forgetOwn(e ecs.Entity) {
	o := &c.own
	if o.matched == 0 {
		return
	}
	for i := range o.shots {
		if s := &o.shots[i]; s.state == ownMatched && s.e == e {
			s.state = ownFree
			o.matched--
			return
		}
	}
}

// isOwnMatched reports whether e is a server shot drawn on the predicted timeline.
func (c *Client) ownMatched(e ecs.Entity) *ownShot {
	o := &c.own
	if o.matched == 0 {
		return nil
	}
	for i := range o.shots {
		if s := &o.shots[i]; s.state == ownMatched && s.e == e {
			return s
		}
	}
	return nil
}

// ownPos is the draw position of a matched server shot: its Position (at the newest server tick)
// moved by its Velocity to the predicted tick, plus the decaying hand-over offset.
func (c *Client) ownPos(s *ownShot) (x, y float32, ok bool) {
	p := c.comps.Position.Get(s.e)
	if p == nil {
		return 0, 0, false
	}
	x, y = p.X, p.Y
	if v := c.comps.Velocity.Get(s.e); v != nil && c.inTick != 0 {
		n := float32(int32(c.inTick-c.servTick)) / game.TickRate
		x += v.X * n
		y += v.Y * n
	}
	return x + s.offX, y + s.offY, true
}

// predictedShots appends the unconfirmed predictions, at the predicted tick, to dst.
func (c *Client) predictedShots(dst []PredictedShot) []PredictedShot {
	for i := range c.own.shots {
		s := &c.own.shots[i]
		if s.state != ownPredicted {
			continue
		}
		x, y := s.at(c.inTick)
		a := float32(1)
		if s.fadeFrom != 0 {
			a = max(0, 1-float32(int32(c.inTick-s.fadeFrom))/OwnShotFadeTicks)
		}
		sz := game.SizeOf(s.kind)
		dst = append(dst, PredictedShot{Kind: s.kind, X: x, Y: y, VX: s.vx, Alpha: a, W: sz.W, H: sz.H, Tick: s.tick})
	}
	return dst
}

// PredictedShots appends the local player's shots predicted but not yet confirmed by the server
// (drawn like the server's shots, with their Alpha) to dst and returns it; with a dst of enough
// capacity it does not allocate.
func (v *View) PredictedShots(dst []PredictedShot) []PredictedShot { return v.c.predictedShots(dst) }

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// OwnShot reports whether e is one of the local player's shots the server confirmed and Pos
// draws on the predicted timeline (the ship's), not in the interpolated past.
func (v *View) OwnShot(e ecs.Entity) bool { return v.c.ownMatched(e) != nil }
