package game

import (
	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game/rules"
)

// Safe respawns. A ship comes back at shipSpawnX, at the height of the corridor where nothing
// is about to hit it: candidate heights are scored by how long until an enemy, a boss part or
// an enemy bullet (moving as it moves now) would reach the ship's box, and the safest wins;
// among equally safe ones, heights far from the slot's last death (when it was recent) and
// near the slot's own height are preferred. It is then invulnerable for the level's InvulnMax
// ticks, a fixed grace: moving or firing does not end it (nor does the fire press that takes a
// continue: the ship that comes back after it has the same grace).

// deathSpot is where and when a slot's ship was last destroyed.
type deathSpot struct {
	y     float32
	tick  ecs.Tick
	valid bool
}

const (
	respawnCandidates = 9            // heights tried across the corridor
	respawnHorizon    = TickRate     // ticks ahead a threat is followed (1 s)
	respawnStep       = 4            // ticks between two looks along that path
	respawnMargin     = 40           // px around the ship's box a threat must stay out of
	respawnAvoidDY    = 160          // px from the last death a recent death avoids
	respawnAvoidTicks = 8 * TickRate // how long a death counts as recent
)

// respawn brings slot's dead ship back at a safe height, invulnerable.
func (s *Sim) respawn(slot int, e ecs.Entity, sh *Ship) {
	pl := s.c.Player.Mut(e)
	pl.Flags = PlayerInvulnerable
	sh.Invuln = s.rules.InvulnMax
	p := s.c.Position.Get(e)
	s.setPos(e, p, shipSpawnX, s.safeRespawnY(slot))
}

// continueTimer counts down slot's "CONTINUE?" offer: a fire press takes it (the level's lives
// again, the ship back after continueRespawn ticks, the continue counted in the results); at 0
// the player is out.
func (s *Sim) continueTimer(slot int, e ecs.Entity, sh *Ship) {
	if sh.Input&BtnFire != 0 && sh.Prev&BtnFire == 0 {
		pl := s.c.Player.Mut(e)
		pl.Flags = PlayerDead
		pl.Lives = s.rules.Lives
		sh.Respawn = continueRespawn
		s.stats[slot].Continues++
		s.emit(Event{Kind: EventContinue, Entity: e, Slot: uint8(slot), Lives: pl.Lives})
		return
	}
	if sh.Respawn > 0 {
		sh.Respawn--
	}
	if sh.Respawn == 0 {
		s.c.Player.Mut(e).Flags &^= PlayerContinue // out
	}
}

// ContinueLeft returns the ticks left to take slot's continue (0: none offered).
func (s *Sim) ContinueLeft(slot int) int {
	if slot < 0 || slot >= rules.MaxPlayers || s.ships[slot] == ecs.Nil {
		return 0
	}
	e := s.ships[slot]
	if s.c.Player.Get(e).Flags&PlayerContinue == 0 {
		return 0
	}
	return int(s.c.Ship.Get(e).Respawn)
}

// safeRespawnY is the height slot's ship reappears at (see the top of this file).
func (s *Sim) safeRespawnY(slot int) float32 {
	want := s.respawnY(slot)
	top, bottom := float32(0), float32(Height)
	t := s.terrain()
	scroll := s.Scroll()
	x0, x1 := float32(shipSpawnX-shipW), float32(shipSpawnX+shipW)
	if t != nil {
		top, bottom = t.Span(x0+scroll, x1+scroll)
	}
	lo, hi := max(top, 0)+shipH, min(bottom-shipH, ShipMaxY)
	if hi < lo {
		return want // a corridor narrower than the ship: the old rule
	}
	best, bestY, bestPref := -1, want, float32(0)
	try := func(y float32) {
		if t != nil && t.BlockAt(x0+scroll, y-shipH, x1+scroll, y+shipH) >= 0 {
			return
		}
		safe := s.safeFor(y)
		pref := -abs32(y - want) // near the slot's own height
		if d := s.lastDeath[slot]; d.valid && s.w.Tick()-d.tick < respawnAvoidTicks && abs32(y-d.y) < respawnAvoidDY {
			pref -= 10 * Height // not again where it just died
		}
		if safe > best || (safe == best && pref > bestPref) {
			best, bestY, bestPref = safe, y, pref
		}
	}
	try(clamp32(want, lo, hi))
	for i := 0; i < respawnCandidates; i++ {
		try(lo + (hi-lo)*float32(i)/(respawnCandidates-1))
	}
	return bestY
}

// safeFor returns how many ticks (up to respawnHorizon+1: never) until a threat (a Hostile kind)
// reaches a ship box at (shipSpawnX, y), each threat moving on at its current velocity.
func (s *Sim) safeFor(y float32) int {
	hw, hh := float32(shipW/2+respawnMargin), float32(shipH/2+respawnMargin)
	first := respawnHorizon + 1
	for it := s.qPK.Iter(); it.Next(); {
		p, k := it.Get()
		if !k.Kind.Info().Hostile {
			continue
		}
		e := it.Entity()
		var vx, vy float32
		if v := s.c.Velocity.Get(e); v != nil {
			vx, vy = v.X/TickRate, v.Y/TickRate
		}
		var sw, sh float32 = 32, 32
		if sz := s.c.Size.Get(e); sz != nil {
			sw, sh = float32(sz.W)/2, float32(sz.H)/2
		}
		for tk := 0; tk < first && tk <= respawnHorizon; tk += respawnStep {
			x, ty := p.X+vx*float32(tk), p.Y+vy*float32(tk)
			if abs32(x-shipSpawnX) < hw+sw && abs32(ty-y) < hh+sh {
				first = tk
				break
			}
		}
	}
	return first
}
