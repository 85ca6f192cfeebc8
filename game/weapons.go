package game

import (
	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game/rules"
)

// The arsenal: lasers fired through an attached Force, the detached Force's own fire, Bits,
// homing missiles and the capsules' cycling crystals. Distances px, speeds px/s, times ticks.
//
// Every shot here moves at a constant Velocity between rare changes (a bounce, a new terrain
// segment under a crawling laser, a missile's turn every missileSteerEvery ticks), so clients
// dead-reckon it and the server sends it about once (docs/PROTOCOL.md §5.3).
const (
	forceBehindX      = 160 // where a Force launched from the back stops (x of its centre)
	forceFireEvery    = 12  // ticks between a detached Force's own volleys
	bitDY             = 60  // px between a Bit's centre and its ship's: above (Bit 0) and below (Bit 1)
	bitFollow         = 4   // a Bit closes 1/bitFollow of the gap to its place per tick (a little lag)
	bitHitEvery       = 8   // ticks between a Bit's contact damage to an enemy it touches
	maxBits           = 2   // Bits per ship
	missileSpeed      = 900 // px/s
	missileTurn       = 420 // px/s of velocity change per steering step
	missileSteerEvery = 6   // ticks a missile keeps its velocity between two turns
	missileLife       = 240 // ticks a missile flies at most
	missileDamage     = 2
	maxMissiles       = 2    // homing missiles in flight per ship
	blueBounces       = 3    // reflections of a blue laser; the next terrain contact destroys it
	yellowRise        = 1500 // px/s: vertical speed of a yellow laser before it reaches a surface
	yellowDrift       = 300  // px/s: its forward speed meanwhile (Force attached)
	crawlSpeed        = 1200 // px/s along x of a yellow laser crawling along a surface
	laserCooldown     = 12   // ticks between two lasers through the Force in front (shots: fireCooldown)
	crystalCycle      = 90   // ticks a laser crystal shows each colour (red, blue, yellow)
)

// laserDamage is the damage of one laser shot by colour (LaserRed..LaserYellow) and level 1..3:
// the red helix is one strong shot (anti-air), blue and yellow go out several at a time.
var laserDamage = [4][4]uint16{
	LaserRed:    {0, 3, 4, 6},
	LaserBlue:   {0, 2, 2, 3},
	LaserYellow: {0, 2, 3, 4},
}

// blueAngles are the directions (1/65536 turns from straight ahead, + down) of the blue beams
// fired through an attached Force, by level: 0°, ±20° (levels 1, 2), 0°, ±20°, ±40° (level 3).
var blueAngles = [4][]int32{
	1: {0, 3641, -3641},
	2: {0, 3641, -3641},
	3: {0, 3641, -3641, 7282, -7282},
}

// angled is the velocity of speed px/s at angle a (1/65536 turns, + down) from straight ahead
// (dir 1: right, -1: left); ±a give mirror images.
func angled(speed, dir float32, a int32) (vx, vy float32) {
	sign := float32(1)
	if a < 0 {
		sign, a = -1, -a
	}
	return float32(dir*speed) * cos16(uint16(a)), float32(sign*speed) * sin16(uint16(a))
}

// arsenal holds the queries of the weapon systems (built once by NewSim).
type arsenal struct {
	qGuide   *ecs.Query3[Guide, Position, Velocity]
	qCapsule *ecs.Query2[Capsule, Kind]
}

func (a *arsenal) init(w *ecs.World) {
	a.qGuide = ecs.NewQuery3[Guide, Position, Velocity](w)
	a.qCapsule = ecs.NewQuery2[Capsule, Kind](w)
}

// forceOf returns ship sh's Force and its state, or nils when it has none.
func (s *Sim) forceOf(sh *Ship) (*Force, *ForceCtl, *Position) {
	if sh.Force == ecs.Nil {
		return nil, nil, nil
	}
	f, fc, fp := s.c.Force.Get(sh.Force), s.c.ForceCtl.Get(sh.Force), s.c.Position.Get(sh.Force)
	if f == nil || fc == nil || fp == nil {
		return nil, nil, nil
	}
	return f, fc, fp
}

// fireShot fires what a press of fire fires: with the Force attached in front, the laser of the
// ship's colour from the Force; with it attached at the back, the normal shot forward and the
// laser backwards from the Force; otherwise the normal shot, and a detached Force fires its
// volley. Bits fire a small shot each; with missiles, homing missiles go out until maxMissiles
// of the ship's are in flight.
func (s *Sim) fireShot(e ecs.Entity, slot int, pl *Player, sh *Ship, x, y float32) {
	sh.Cooldown = fireCooldown
	sl := uint8(slot)
	nx, ny, nvx := NormalShotAt(x, y)
	normal := bulletReq{kind: KindPlayerBullet, variant: ShotNormal, x: nx, y: ny, vx: nvx, damage: 1, slot: sl}
	f, fc, fp := s.forceOf(sh)
	switch {
	case f == nil:
		s.queue(normal)
	case f.Mode == ForceFront:
		s.fireLaser(pl.Laser, f.Level, fp.X+forceSize/2, fp.Y, 1, sl)
		if pl.Laser != LaserNone {
			sh.Cooldown = laserCooldown // lasers hit harder and fire slower than shots
		}
	case f.Mode == ForceBack:
		s.queue(normal)
		s.fireLaser(pl.Laser, f.Level, fp.X-forceSize/2, fp.Y, -1, sl)
	default:
		s.queue(normal)
		s.forceVolley(f, fc, fp, pl.Laser, sl)
		fc.FireCD = forceFireEvery
	}
	for _, be := range sh.Bits {
		if bp := s.c.Position.Get(be); be != ecs.Nil && bp != nil {
			s.queue(bulletReq{kind: KindPlayerBullet, variant: ShotForce, x: bp.X + bitSize/2 + 12, y: bp.Y, vx: shotSpeed, damage: 1, slot: sl})
		}
	}
	if pl.Missile != 0 {
		for n := s.missilesInFlight(sl); n < maxMissiles; n++ {
			// The first goes out upwards, the second downwards; they home in from their next turn.
			vy := float32(-240)
			if n == 1 {
				vy = 240
			}
			s.queue(bulletReq{kind: KindPlayerBullet, variant: ShotMissile, x: x + 8, y: y + vy/12, vx: 600, vy: vy,
				damage: missileDamage, slot: sl, guide: GuideHoming, life: missileLife})
		}
	}
}

// fireLaser fires the laser of colour at Force level lvl from (x, y), the front (dir 1) or the
// back (dir -1) of an attached Force. LaserNone (a Force without a crystal colour) fires a
// small Force shot.
func (s *Sim) fireLaser(colour, lvl uint8, x, y, dir float32, slot uint8) {
	lvl = min(max(lvl, 1), maxForceLevel)
	v := LaserShot(colour, lvl)
	sz := SizeOf(Kind{Kind: KindPlayerBullet, Variant: v})
	hw := float32(sz.W) / 2
	switch colour {
	case LaserRed:
		// One fast helix straight ahead; at level 3 it goes through what it destroys.
		s.queue(bulletReq{kind: KindPlayerBullet, variant: v, x: x + dir*hw, y: y, vx: dir * laserSpeed,
			damage: laserDamage[LaserRed][lvl], slot: slot, pierce: flag(lvl == maxForceLevel)})
	case LaserBlue:
		for _, a := range blueAngles[lvl] {
			vx, vy := angled(laserSpeed, dir, a)
			s.queue(bulletReq{kind: KindPlayerBullet, variant: v, x: x + dir*hw, y: y, vx: vx, vy: vy,
				damage: laserDamage[LaserBlue][lvl], slot: slot, guide: GuideBounce, left: blueBounces})
		}
	case LaserYellow:
		// One beam up and one down, drifting forward; they crawl along the ceiling and floor.
		for _, vy := range [2]float32{-yellowRise, yellowRise} {
			s.queue(bulletReq{kind: KindPlayerBullet, variant: v, x: x + dir*hw, y: y, vx: dir * yellowDrift, vy: vy,
				damage: laserDamage[LaserYellow][lvl], slot: slot, guide: GuideCrawl, speed: dir * crawlSpeed})
		}
	default:
		s.queue(bulletReq{kind: KindPlayerBullet, variant: ShotForce, x: x + dir*(12+8), y: y, vx: dir * shotSpeed, damage: 1, slot: slot})
	}
}

// forceVolley is what a detached Force fires, on its own every forceFireEvery ticks and when its
// ship fires, forwards (backwards once launched from the back), by the laser colour: red (or
// none) straight shots, 1..3 by level; blue 2 diagonal beams that bounce (4 at level 3);
// yellow one beam up and one down that crawl along the ceiling and floor.
func (s *Sim) forceVolley(f *Force, fc *ForceCtl, fp *Position, colour uint8, slot uint8) {
	lvl := min(max(f.Level, 1), maxForceLevel)
	dir := float32(1)
	if fc.Back == 1 {
		dir = -1
	}
	x := fp.X + dir*(forceSize/2)
	switch colour {
	case LaserBlue:
		v := LaserShot(LaserBlue, lvl)
		angles := [4]int32{8192, -8192, 5461, -5461} // ±45°, then ±30°
		n := 2
		if lvl == maxForceLevel {
			n = 4
		}
		for _, a := range angles[:n] {
			vx, vy := angled(laserSpeed, dir, a)
			s.queue(bulletReq{kind: KindPlayerBullet, variant: v, x: x, y: fp.Y, vx: vx, vy: vy,
				damage: laserDamage[LaserBlue][lvl], slot: slot, guide: GuideBounce, left: blueBounces})
		}
	case LaserYellow:
		v := LaserShot(LaserYellow, lvl)
		for _, vy := range [2]float32{-yellowRise, yellowRise} {
			s.queue(bulletReq{kind: KindPlayerBullet, variant: v, x: x, y: fp.Y, vy: vy,
				damage: laserDamage[LaserYellow][lvl], slot: slot, guide: GuideCrawl, speed: dir * crawlSpeed})
		}
	default:
		offsets := [3]float32{0, -16, 16}
		if lvl == 2 {
			offsets = [3]float32{-10, 10}
		}
		for _, dy := range offsets[:lvl] {
			s.queue(bulletReq{kind: KindPlayerBullet, variant: ShotForce, x: x + dir*12, y: fp.Y + dy, vx: dir * shotSpeed, damage: 1, slot: slot})
		}
	}
}

// missilesInFlight counts the homing missiles of slot.
func (s *Sim) missilesInFlight(slot uint8) int {
	n := 0
	for it := s.arm.qGuide.Iter(); it.Next(); {
		if g, _, _ := it.Get(); g.Mode == GuideHoming {
			if sh := s.c.Shot.Get(it.Entity()); sh != nil && sh.Slot == slot {
				n++
			}
		}
	}
	return n
}

// forceFire makes a detached Force fire on its own every forceFireEvery ticks (called by
// sysForce once per tick for each detached Force).
func (s *Sim) forceFire(owner ecs.Entity, f *Force, fc *ForceCtl, fp *Position) {
	if fc.FireCD > 0 {
		fc.FireCD--
	}
	if fc.FireCD > 0 {
		return
	}
	fc.FireCD = forceFireEvery
	pl := s.c.Player.Get(owner)
	if pl == nil {
		return
	}
	s.forceVolley(f, fc, fp, pl.Laser, pl.Slot)
}

// giveBit gives ship e a Bit: the first above the ship, the second below; more only score.
func (s *Sim) giveBit(e ecs.Entity, sh *Ship) {
	sp := s.c.Position.Get(e)
	for i := range sh.Bits {
		if sh.Bits[i] != ecs.Nil && s.w.Alive(sh.Bits[i]) {
			continue
		}
		// It appears on the ship and glides to its place.
		sh.Bits[i] = s.spawn(KindBit, uint8(i), sp.X, sp.Y, 0, 0)
		return
	}
}

// bitPlace is where Bit i of a ship at (x, y) sits: bitDY px above (i = 0) or below (i = 1).
func bitPlace(i int, x, y float32) (float32, float32) {
	if i == 0 {
		return x, y - bitDY
	}
	return x, y + bitDY
}

// sysBits moves every Bit towards its place by its ship, closing 1/bitFollow of the gap each
// tick (within half a px it sits exactly there). Its Velocity is its ship's: clients
// dead-reckon it with the ship, the lag costs an occasional Position.
func (s *Sim) sysBits() {
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		e := s.ships[slot]
		if e == ecs.Nil {
			continue
		}
		sh := s.c.Ship.Get(e)
		if sh.Bits[0] == ecs.Nil && sh.Bits[1] == ecs.Nil {
			continue
		}
		sp, sv := s.c.Position.Get(e), s.c.Velocity.Get(e)
		for i, be := range sh.Bits {
			bp := s.c.Position.Get(be)
			if be == ecs.Nil || bp == nil {
				continue
			}
			tx, ty := bitPlace(i, sp.X, sp.Y)
			s.setPos(be, bp, follow(bp.X, tx), follow(bp.Y, ty))
			s.setVel(be, s.c.Velocity.Get(be), sv.X, sv.Y)
		}
	}
}

// follow moves x 1/bitFollow of the way to target (exactly onto it within half a px).
func follow(x, target float32) float32 {
	d := target - x
	if abs32(d) <= 0.5 {
		return target
	}
	return x + float32(d/bitFollow)
}

// loseArsenal destroys ship sh's Force and Bits (death, leaving the game).
func (s *Sim) loseArsenal(sh *Ship) {
	if sh.Force != ecs.Nil {
		s.w.Destroy(sh.Force)
		sh.Force = ecs.Nil
	}
	for i, be := range sh.Bits {
		if be != ecs.Nil {
			s.w.Destroy(be)
			sh.Bits[i] = ecs.Nil
		}
	}
}

// spawnCapsule drops a capsule of variant (PowerRed ...) at (x, y), drifting with the scroll;
// a crystal's colour then cycles red, blue, yellow every crystalCycle ticks (sysWeapons).
func (s *Sim) spawnCapsule(variant uint8, x, y float32) ecs.Entity {
	e := s.spawn(KindPowerUp, variant, x, y, powerUpDrift, 0)
	s.c.Capsule.Set(e, Capsule{})
	return e
}

// sysWeapons runs after the movement: homing missiles steer, blue lasers reflect off the
// terrain, yellow lasers reach and crawl along the ceiling and floor (the playfield's edges
// where there is none), crystals change colour. Shots that end here are destroyed at once.
func (s *Sim) sysWeapons() {
	t, scroll := s.terrain(), s.Scroll()
	scrollV := s.c.Velocity.Get(s.stageEnt).X
	for it := s.arm.qGuide.Iter(); it.Next(); {
		g, p, v := it.Get()
		e := it.Entity()
		if g.Age < 0xFFFF {
			g.Age++
		}
		sz := s.c.Size.Get(e)
		if sz == nil {
			continue
		}
		switch g.Mode {
		case GuideHoming:
			if g.Age%missileSteerEvery == 0 {
				s.steerMissile(e, p, v)
			}
		case GuideBounce:
			s.bounce(e, g, p, v, sz, t, scroll, scrollV)
		case GuideCrawl:
			s.crawl(e, g, p, v, sz, t, scroll, scrollV)
		}
	}
	for it := s.arm.qCapsule.Iter(); it.Next(); {
		c, k := it.Get()
		c.Age++
		if c.Age%crystalCycle == 0 && k.Variant <= PowerYellow {
			s.c.Kind.Mut(it.Entity()).Variant = (k.Variant + 1) % (PowerYellow + 1)
		}
	}
	s.flushDoomed()
}

// steerMissile turns a missile towards the nearest live enemy (or the boss's weak point) by up
// to missileTurn px/s per axis.
func (s *Sim) steerMissile(e ecs.Entity, p *Position, v *Velocity) {
	var tx, ty, best float32
	found := false
	for it := s.qEnemy.Iter(); it.Next(); {
		_, ep, _ := it.Get()
		if h := s.c.Health.Get(it.Entity()); h == nil || h.HP == 0 || OutsideField(ep.X, ep.Y, -offscreenMargin) {
			continue
		}
		dx, dy := ep.X-p.X, ep.Y-p.Y
		if d := float32(dx*dx) + float32(dy*dy); !found || d < best {
			found, best, tx, ty = true, d, ep.X, ep.Y
		}
	}
	if s.weak != ecs.Nil {
		if wp := s.c.Position.Get(s.weak); wp != nil {
			dx, dy := wp.X-p.X, wp.Y-p.Y
			if d := float32(dx*dx) + float32(dy*dy); !found || d < best {
				found, tx, ty = true, wp.X, wp.Y
			}
		}
	}
	if !found {
		return
	}
	dvx, dvy := aim(p.X, p.Y, tx, ty, missileSpeed)
	s.setVel(e, v, approach(v.X, dvx, missileTurn), approach(v.Y, dvy, missileTurn))
}

// surfaces returns the ceiling's and the floor's y over world x wx0..wx1: the terrain's, or the
// playfield's top (0) and bottom (Height) edges where there is none.
func surfaces(t *Terrain, wx0, wx1 float32) (ceil, floor float32) {
	if t == nil {
		return 0, Height
	}
	return t.Span(wx0, wx1)
}

// slopeAt is Terrain.Slope, 0 without terrain.
func slopeAt(t *Terrain, wx float32, floor bool) float32 {
	if t == nil {
		return 0
	}
	return t.Slope(wx, floor)
}

// bounce reflects a blue laser off the ceiling or floor it touches (off the surface's slope, in
// the world's frame, which scrolls at scrollV px/s) or off a block (its side: vx flips; its
// top or bottom: vy flips), back where it was before this tick's move. Without bounces left,
// touching terrain destroys it; so does ending up inside it.
func (s *Sim) bounce(e ecs.Entity, g *Guide, p *Position, v *Velocity, sz *Size, t *Terrain, scroll, scrollV float32) {
	b := boxOf(p, sz).inset(bulletInset)
	wx0, wx1 := b.minX+scroll, b.maxX+scroll
	ceil, floor := surfaces(t, wx0, wx1)
	hit := HitNone
	switch {
	case b.minY < ceil:
		hit = HitCeil
	case b.maxY > floor:
		hit = HitFloor
	case t.BlockAt(wx0, b.minY, wx1, b.maxY) >= 0:
		hit = HitBlock
	default:
		return
	}
	wx := p.X + scroll
	wvx, vy := v.X+scrollV, v.Y // velocity in the world's frame
	// Where it was before this tick's move: inside the terrain already (fired into it), it ends.
	pwx, py := wx-float32(wvx/TickRate), p.Y-float32(vy/TickRate)
	c, f := surfaces(t, pwx, pwx)
	if g.Left == 0 || py < c || py > f {
		s.doomed = append(s.doomed, e)
		return
	}
	switch hit {
	case HitCeil, HitFloor:
		sl := slopeAt(t, wx, hit == HitFloor)
		// Moving into the surface y = c(x) means vy - sl*wvx < 0 for a ceiling, > 0 for a floor.
		into := vy - float32(sl*wvx)
		if (hit == HitCeil && into >= 0) || (hit == HitFloor && into <= 0) {
			return // already leaving it
		}
		// Reflect about the surface's direction (1, sl): v' = 2(v·d)/(d·d) d - v.
		k := float32(2*(wvx+float32(sl*vy))) / (1 + float32(sl*sl))
		wvx, vy = k-wvx, float32(k*sl)-vy
	case HitBlock:
		blk := &t.Blocks[t.BlockAt(wx0, b.minY, wx1, b.maxY)]
		// Where it came from: above or below the block (vy flips) or beside it (vx flips).
		pwx0, pwx1 := wx0-wvx/TickRate, wx1-wvx/TickRate
		if pwx0 < blk.X+blk.W && blk.X < pwx1 {
			vy = -vy
		} else {
			wvx = -wvx
		}
	}
	g.Left--
	s.setPos(e, p, p.X-v.X/TickRate, p.Y-v.Y/TickRate)
	s.setVel(e, v, wvx-scrollV, vy)
}

// crawl runs a yellow laser: in flight it goes up or down until it reaches the ceiling or the
// floor (the playfield's edges where there is none); then its variant becomes the crawling one
// (CrawlShot), its Velocity (g.Speed, 0) and it runs along that surface: every tick its y is
// CrawlY at its world x. Clients place a crawling laser the same way from the terrain and the
// scroll, so after that one change nothing of it is sent (docs/PROTOCOL.md §5.8). A block in
// its way destroys it.
func (s *Sim) crawl(e ecs.Entity, g *Guide, p *Position, v *Velocity, sz *Size, t *Terrain, scroll, scrollV float32) {
	b := boxOf(p, sz).inset(bulletInset)
	if t.BlockAt(b.minX+scroll, b.minY, b.maxX+scroll, b.maxY) >= 0 {
		s.doomed = append(s.doomed, e)
		return
	}
	k := s.c.Kind.Get(e)
	wx := p.X + scroll
	if g.Surf == SurfNone {
		hh := float32(sz.H) / 2
		ceil, floor := surfaces(t, wx, wx)
		switch {
		case v.Y <= 0 && p.Y-hh <= ceil:
			g.Surf = SurfCeil
		case v.Y >= 0 && p.Y+hh >= floor:
			g.Surf = SurfFloor
		default:
			return
		}
		_, lvl, _ := LaserOf(k.Variant)
		s.c.Kind.Mut(e).Variant = CrawlShot(g.Surf, lvl)
		s.setVel(e, v, g.Speed, 0)
	}
	if y, ok := CrawlY(t, k.Variant, wx); ok {
		s.setPos(e, p, p.X, y)
	}
}
