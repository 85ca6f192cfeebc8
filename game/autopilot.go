package game

import "github.com/rtype/rtype/ecs"

// Autopilot candidate moves, in the order ties are broken.
var autoMoves = [9]Buttons{
	0, BtnUp, BtnDown, BtnLeft, BtnRight,
	BtnUp | BtnLeft, BtnUp | BtnRight, BtnDown | BtnLeft, BtnDown | BtnRight,
}

// Look-ahead samples (ticks) and the danger weight of a predicted hit at each.
var (
	autoSamples = [5]int{3, 6, 10, 16, 24}
	autoWeights = [5]float32{1000, 600, 350, 200, 100}
)

const (
	autoRange  = 520 // px: threats farther than this are ignored
	autoMargin = 10  // px added around the ship for a "hit"
	autoSoft   = 40  // px of near-miss zone (cost x0.15)
	autoHomeX  = 380 // px: preferred x when nothing else matters
)

// Autopilot is the built-in player used by bots and `rtype-client
// -autoplay`. It returns the buttons for ship self at tick. It reads only
// replicated components (Position, Velocity, Kind, Player, Force, Size,
// Boss), so it works on the server world and on a client mirror alike; it
// keeps no state (the tick drives its fire rhythm) and is deterministic.
//
// Behaviour: for each of the 9 moves it predicts the ship (MoveShip) and
// every nearby enemy, boss and enemy bullet (linear, Velocity) over 24
// ticks and scores danger, then adds a goal cost: grab a capsule, line up
// with the boss weak point or the closest enemy ahead, stay near x=380.
// It taps fire (a shot every 8 ticks), charges a full beam during the boss
// fight when it has no laser and now and then otherwise, launches the
// Force towards the boss and recalls it after.
// autoStickiness is the cost bonus of keeping the current move (in goal-cost units: 0.2 per px
// of vertical distance).
const autoStickiness = 3.0

// autoCapsuleMaxX is the farthest screen x (px) the autopilot goes for a capsule.
const autoCapsuleMaxX = 1100

// autoMinX is the leftmost goal x (px): enemies leave the field on the left, a ship pressed
// against the edge cannot dodge them.
const autoMinX = 200

// terrainLook is how far ahead (world px, about 2.5 s of scroll) the autopilot looks for the
// corridor to be in.
const terrainLook = 300

// corridorGoal moves a goal height into the corridor a ship at world x wx finds ahead: between
// the ceiling and the floor over [wx-60, wx+terrainLook], with room for the ship, and on the
// roomier side of a structure in the ship's way.
func corridorGoal(t *Terrain, wx, y, goal float32) float32 {
	x0, x1 := wx-shipW, wx+shipW/2+terrainLook
	top, bottom := t.Span(x0, x1)
	if bi := t.BlockAt(x0, y-shipH*2, x1, y+shipH*2); bi >= 0 {
		b := &t.Blocks[bi]
		if b.Y-top > bottom-(b.Y+b.H) {
			bottom = b.Y
		} else {
			top = b.Y + b.H
		}
	}
	const room = shipH/2 + 40
	if bottom-top < 2*room {
		return (top + bottom) / 2
	}
	return clamp32(goal, top+room, bottom-room)
}

// Terrain (t, the stage's; nil for open space) is avoided in two ways: every predicted ship
// position that would touch it (at the scroll of that moment) costs more than a predicted hit,
// and the goal height is kept inside the corridor ahead (the free range between ceiling and
// floor over the next terrainLook px of the world, on the roomier side of any structure).
func Autopilot(w *ecs.World, c *Components, t *Terrain, self ecs.Entity, tick ecs.Tick) Input {
	if w == nil || c == nil || !w.Alive(self) {
		return Input{}
	}
	pl, sp := c.Player.Get(self), c.Position.Get(self)
	if pl == nil || sp == nil || pl.Flags&PlayerDead != 0 {
		return Input{}
	}
	sx, sy := sp.X, sp.Y
	shw, shh := float32(shipW)/2+autoMargin, float32(shipH)/2+autoMargin
	if sz := c.Size.Get(self); sz != nil {
		shw, shh = float32(sz.W)/2+autoMargin, float32(sz.H)/2+autoMargin
	}

	// Predicted ship positions per move and sample.
	var ship [len(autoMoves)][len(autoSamples)]Position
	for m, b := range autoMoves {
		x, y := sx, sy
		t := 0
		for si, st := range autoSamples {
			for ; t < st; t++ {
				x, y = MoveShip(x, y, b, pl.Speed)
			}
			ship[m][si] = Position{x, y}
		}
	}

	var cost [len(autoMoves)]float32
	if t.Empty() {
		t = nil
	}
	var (
		scroll, scrollV      float32
		haveBoss, weakOpen   bool
		weakY                float32
		tgtFound, capFound   bool
		tgtX, tgtY, tgtScore float32
		capX, capY, capD     float32
		force                *Force
		fx, fy               float32 // the Force's position
		threatsAhead         int
		threatsBehind        int
	)
	for it := c.autoPK.Iter(); it.Next(); {
		p, k := it.Get()
		e := it.Entity()
		ki := k.Kind.Info()
		switch ki.auto {
		case autoBossCore:
			haveBoss, weakOpen, weakY = true, k.Variant == 1, p.Y
		case autoPickup:
			// Only capsules on the near side of the field (never into the boss's reach).
			d := abs32(p.X-sx) + abs32(p.Y-sy)
			if p.X > 40 && p.X < autoCapsuleMaxX && (!capFound || d < capD) {
				capFound, capX, capY, capD = true, p.X, p.Y, d
			}
			continue
		case autoForce:
			if f := c.Force.Get(e); f != nil && f.Owner == self {
				force, fx, fy = f, p.X, p.Y
			}
			continue
		case autoTarget:
			if p.X > sx+60 && p.X < Width-20 {
				// Prefer close enemies that are easy to line up with.
				score := (p.X - sx) + 2*abs32(p.Y-sy)
				if !tgtFound || score < tgtScore {
					tgtFound, tgtX, tgtY, tgtScore = true, p.X, p.Y, score
				}
			}
		case autoScroll:
			scroll = p.X
			if v := c.Velocity.Get(e); v != nil {
				scrollV = v.X
			}
			continue
		}
		if !ki.Hostile {
			continue
		}
		// A threat: accumulate its danger for every move.
		dx, dy := p.X-sx, p.Y-sy
		sz := c.Size.Get(e)
		if sz == nil {
			continue
		}
		hw, hh := float32(sz.W)/2, float32(sz.H)/2
		if abs32(dx)-hw > autoRange || abs32(dy)-hh > autoRange {
			continue
		}
		if dx > 0 && abs32(dy) < 200 {
			threatsAhead++
		}
		if dx < 0 && abs32(dy) < 200 {
			threatsBehind++
		}
		var vx, vy float32
		if v := c.Velocity.Get(e); v != nil {
			vx, vy = v.X, v.Y
		}
		for si, st := range autoSamples {
			tx := p.X + float32(vx*float32(st))/TickRate
			ty := p.Y + float32(vy*float32(st))/TickRate
			for m := range autoMoves {
				q := &ship[m][si]
				ox := abs32(q.X-tx) - hw - shw
				oy := abs32(q.Y-ty) - hh - shh
				switch {
				case ox < 0 && oy < 0:
					cost[m] += autoWeights[si]
				case ox < autoSoft && oy < autoSoft:
					cost[m] += float32(autoWeights[si] * 0.1)
				}
			}
		}
	}

	// Terrain: a predicted position inside it is worse than a predicted hit.
	if t != nil {
		for si, st := range autoSamples {
			sc := scroll + float32(scrollV*float32(st))/TickRate
			for m := range autoMoves {
				q := &ship[m][si]
				x0, x1 := q.X-shw+sc, q.X+shw+sc
				switch {
				case t.Overlaps(x0, q.Y-shh, x1, q.Y+shh):
					cost[m] += 1.5 * autoWeights[si]
				case t.Overlaps(x0-autoSoft, q.Y-shh-autoSoft, x1, q.Y+shh+autoSoft):
					cost[m] += float32(autoWeights[si] * 0.1)
				}
			}
		}
	}

	// Goal. Ships spread a little by slot so that several autopilots do not
	// stack up on the same spot.
	spread := float32(int(pl.Slot)*2 - 3) // -3, -1, 1, 3
	goalX, goalY := float32(autoHomeX)+float32(spread*20), sy
	switch {
	case force != nil && force.Mode == ForceDetached && fx < sx && threatsBehind == 0:
		// The Force goes in front (its laser fires forward; against the boss it is launched
		// into it): a Force behind the ship is caught from behind by going round it (it follows
		// the ship's height slower than the ship moves), then touching it from its left.
		if sx > fx-forceAttachDX-10 {
			goalX, goalY = fx-forceAttachDX-40, fy-160
			if fy < 300 {
				goalY = fy + 160
			}
		} else {
			goalX, goalY = fx-forceAttachDX+20, fy
		}
	case capFound:
		goalX, goalY = capX, capY
	case haveBoss:
		goalY = weakY + float32(spread*8)
		goalX = 520 + float32(spread*30)
	case tgtFound:
		goalY = tgtY + float32(spread*10)
		if tgtX-sx < 260 {
			goalX = max(tgtX-300, autoMinX) // back off from close enemies, not into the corner
		}
	}
	if t != nil {
		goalY = corridorGoal(t, sx+scroll, sy, goalY)
	}
	// Dead band: within one step of the goal on an axis, that axis pulls no more (no
	// one-pixel dithering around the goal).
	if abs32(goalX-sx) < shipStep {
		goalX = sx
	}
	if abs32(goalY-sy) < shipStep {
		goalY = sy
	}
	// Hysteresis: the move the ship is already making (its Velocity) gets a small bonus, so
	// that near-equal choices do not flip every tick. Steady movement is also what dead
	// reckoning replicates for free (docs/PROTOCOL.md §5.3).
	cur := -1
	if v := c.Velocity.Get(self); v != nil {
		var mb Buttons
		if v.X < 0 {
			mb |= BtnLeft
		} else if v.X > 0 {
			mb |= BtnRight
		}
		if v.Y < 0 {
			mb |= BtnUp
		} else if v.Y > 0 {
			mb |= BtnDown
		}
		for m, b := range autoMoves {
			if b == mb {
				cur = m
			}
		}
	}
	best := 0
	for m := range autoMoves {
		q := &ship[m][1]
		cost[m] += float32(abs32(q.X-goalX)*0.05) + float32(abs32(q.Y-goalY)*0.2)
		if q.X < autoMinX/2 {
			cost[m] += float32((autoMinX/2 - q.X) * 0.6) // the corner is a trap
		}
		if m == cur {
			cost[m] -= autoStickiness
		}
		if cost[m] < cost[best] {
			best = m
		}
	}
	b := autoMoves[best]

	// Fire: charge a full beam against the boss without a laser ahead (none, or the Force at
	// the back, where the laser fires backward) (and one time in four otherwise) and release it
	// when full (against the boss: when the weak point is open), else tap (press 4 ticks,
	// release 4).
	laserAhead := pl.Laser != 0 && force != nil && force.Mode == ForceFront
	charge := (haveBoss && !laserAhead) || (!haveBoss && (tick/600)%4 == 3)
	switch {
	case charge && ChargeAt(pl.ChargeFrom, tick) == 255:
		if haveBoss && !weakOpen {
			b |= BtnFire // keep it for the opening
		}
	case charge && (ChargeAt(pl.ChargeFrom, tick) > 0 || tick%90 < 80):
		b |= BtnFire
	case !charge && tick%8 < 4:
		b |= BtnFire
	}

	// Force: kept at the back while enemies come from behind; otherwise launched from the
	// back (backward) to be caught in front (goal above); launched into the boss from the
	// front; recalled when it is ahead and there is no boss.
	if force != nil && tick%30 == 0 {
		switch force.Mode {
		case ForceBack:
			if threatsBehind == 0 {
				b |= BtnForce
			}
		case ForceFront:
			if haveBoss {
				b |= BtnForce
			}
		default:
			if !haveBoss && fx > sx {
				b |= BtnForce
			}
		}
	}
	return Input{Buttons: b}
}
