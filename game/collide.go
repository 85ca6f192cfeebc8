package game

import (
	"math"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game/rules"
)

// Broadphase: a uniform grid of 128 px cells over the playfield plus a
// margin (-256..Width+384, -256..Height+256); entities outside are clamped
// into the border cells. Targets (enemies, boss, weak point, enemy
// bullets, power-ups) are inserted every tick into every cell they
// overlap; probes (ships, Forces, player shots and beams) query the cells
// they overlap. All buffers are reused: no allocation in steady state.
const (
	cellSize  = 128
	gridX0    = -256
	gridY0    = -256
	gridCols  = (Width + 640) / cellSize
	gridRows  = (Height + 512 + cellSize - 1) / cellSize
	gridCells = gridCols * gridRows
)

// Target layers.
const (
	layEnemy   uint8 = 1
	layBoss    uint8 = 2
	layWeak    uint8 = 4
	layEBullet uint8 = 8
	layPower   uint8 = 16
)

type aabb struct{ minX, minY, maxX, maxY float32 }

func (a aabb) overlaps(b aabb) bool {
	return a.minX < b.maxX && b.minX < a.maxX && a.minY < b.maxY && b.minY < a.maxY
}

// inset returns a shrunk by d px on every side.
func (a aabb) inset(d float32) aabb { return aabb{a.minX + d, a.minY + d, a.maxX - d, a.maxY - d} }

// Terrain hitbox insets (px): a ship's hull is rounder than its box; bullets are fuzzy.
const (
	shipInset   = 6
	bulletInset = 2
)

// stopsAtTerrain reports whether entities of kind k are destroyed when they touch terrain:
// player shots (except the blue and yellow lasers, which bounce and crawl), beams and enemy
// bullets (KindInfo.stopsAtTerrain, VariantInfo.passesTerrain).
func stopsAtTerrain(k *Kind) bool {
	ki := k.Kind.Info()
	if !ki.stopsAtTerrain {
		return false
	}
	vi, _ := ki.Variant(k.Variant)
	return !vi.passesTerrain
}

func boxOf(p *Position, sz *Size) aabb {
	hw, hh := float32(sz.W)/2, float32(sz.H)/2
	return aabb{p.X - hw, p.Y - hh, p.X + hw, p.Y + hh}
}

type gridItem struct {
	e     ecs.Entity
	box   aabb
	layer uint8
	dead  bool // consumed this tick (bullet blocked, capsule taken)
}

type gridEntry struct{ item, next int32 }

type grid struct {
	head    [gridCells]int32
	items   []gridItem
	entries []gridEntry
	stamp   []uint32 // per item: last query that returned it
	query   uint32
	cands   []int32
}

func (g *grid) init() {
	g.items = make([]gridItem, 0, 512)
	g.entries = make([]gridEntry, 0, 1024)
	g.stamp = make([]uint32, 0, 512)
	g.cands = make([]int32, 0, 64)
	g.reset()
}

func (g *grid) reset() {
	for i := range g.head {
		g.head[i] = -1
	}
	g.items = g.items[:0]
	g.entries = g.entries[:0]
	g.stamp = g.stamp[:0]
}

func cellRange(b aabb) (c0, r0, c1, r1 int) {
	clampc := func(v float32, n int) int {
		i := int((v - gridX0) / cellSize)
		if v < gridX0 {
			i = 0
		}
		if i >= n {
			i = n - 1
		}
		return i
	}
	clampr := func(v float32, n int) int {
		i := int((v - gridY0) / cellSize)
		if v < gridY0 {
			i = 0
		}
		if i >= n {
			i = n - 1
		}
		return i
	}
	return clampc(b.minX, gridCols), clampr(b.minY, gridRows), clampc(b.maxX, gridCols), clampr(b.maxY, gridRows)
}

func (g *grid) insert(e ecs.Entity, b aabb, layer uint8) {
	idx := int32(len(g.items))
	g.items = append(g.items, gridItem{e: e, box: b, layer: layer})
	g.stamp = append(g.stamp, 0)
	c0, r0, c1, r1 := cellRange(b)
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			cell := r*gridCols + c
			g.entries = append(g.entries, gridEntry{item: idx, next: g.head[cell]})
			g.head[cell] = int32(len(g.entries) - 1)
		}
	}
}

// find returns the items of the given layers overlapping b, each once, in
// insertion order. The slice is reused by the next call.
func (g *grid) find(b aabb, layers uint8) []int32 {
	g.query++
	g.cands = g.cands[:0]
	c0, r0, c1, r1 := cellRange(b)
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			for i := g.head[r*gridCols+c]; i >= 0; i = g.entries[i].next {
				it := g.entries[i].item
				if g.stamp[it] == g.query {
					continue
				}
				g.stamp[it] = g.query
				item := &g.items[it]
				if item.layer&layers == 0 || item.dead || !item.box.overlaps(b) {
					continue
				}
				g.cands = append(g.cands, it)
			}
		}
	}
	// Insertion sort: candidate lists are short.
	for i := 1; i < len(g.cands); i++ {
		for j := i; j > 0 && g.cands[j] < g.cands[j-1]; j-- {
			g.cands[j], g.cands[j-1] = g.cands[j-1], g.cands[j]
		}
	}
	return g.cands
}

// probeClass is how a probe collides (KindInfo.probe); sysCollide resolves the classes in this
// order.
type probeClass uint8

const (
	probeNone probeClass = iota // not a probe
	probeForce
	probeBit
	probeShot
	probeShip
)

type probe struct {
	e     ecs.Entity
	box   aabb
	class probeClass
}

type pickup struct {
	ship    ecs.Entity
	capsule ecs.Entity
	variant uint8
}

// sysCollide fills the grid and resolves every overlap: Forces and Bits first (they
// block bullets), then player shots and beams, then ships.
func (s *Sim) sysCollide() {
	g := &s.grid
	g.reset()
	s.probes = s.probes[:0]
	terr, scroll := s.terrain(), s.Scroll()
	for it := s.qPK.Iter(); it.Next(); {
		p, k := it.Get()
		e := it.Entity()
		sz := s.c.Size.Get(e)
		if sz == nil {
			continue
		}
		b := boxOf(p, sz)
		if terr != nil && stopsAtTerrain(k) && terr.terrainBox(b.inset(bulletInset), scroll) != HitNone {
			// Shots, beams and enemy bullets stop at terrain.
			s.doomed = append(s.doomed, e)
			continue
		}
		switch ki := k.Kind.Info(); {
		case ki.target != 0:
			g.insert(e, b, ki.target)
		case ki.probe == probeShip: // a ship collides while it is alive
			if pl := s.c.Player.Get(e); pl != nil && pl.Flags&PlayerDead == 0 {
				s.probes = append(s.probes, probe{e, b, probeShip})
			}
		case ki.probe != probeNone:
			s.probes = append(s.probes, probe{e, b, ki.probe})
		}
	}
	for class := probeForce; class <= probeShip; class++ {
		for i := range s.probes {
			pr := &s.probes[i]
			if pr.class != class {
				continue
			}
			switch class {
			case probeForce:
				s.collideForce(pr)
			case probeBit:
				s.collideBit(pr)
			case probeShot:
				s.collideShot(pr)
			case probeShip:
				s.collideShip(pr)
			}
		}
	}
}

func (s *Sim) bossOpen() bool {
	if s.boss == ecs.Nil {
		return false
	}
	b := s.c.Boss.Get(s.boss)
	return b.WeakOpen == 1 && b.Phase != 0 && b.Phase != BossPhaseDying
}

func (s *Sim) collideForce(pr *probe) {
	f := s.c.Force.Get(pr.e)
	slot := -1
	if pl := s.c.Player.Get(f.Owner); pl != nil {
		slot = int(pl.Slot)
	}
	// A bigger Force hurts more.
	s.shieldContact(pr, slot, s.w.Tick()%forceHitEvery == 0, uint16(max(f.Level, 1)))
}

// shieldContact is what an indestructible shield (the Force, a Bit) does to what it touches:
// it destroys enemy bullets and, on hit ticks, deals dmg to enemies and to an open weak point,
// credited to slot (-1: nobody).
func (s *Sim) shieldContact(pr *probe, slot int, hitTick bool, dmg uint16) {
	for _, ci := range s.grid.find(pr.box, layEBullet|layEnemy|layWeak) {
		item := &s.grid.items[ci]
		switch item.layer {
		case layEBullet:
			item.dead = true
			s.doomed = append(s.doomed, item.e)
		case layEnemy:
			if hitTick {
				s.damageEnemy(item.e, dmg, slot)
			}
		case layWeak:
			if hitTick && s.bossOpen() {
				s.damageBoss(dmg, slot)
			}
		}
	}
}

// collideBit: a Bit blocks enemy bullets and hurts enemies (and an open weak point) it touches,
// 1 damage every bitHitEvery ticks, credited to its ship's slot. It cannot be destroyed.
func (s *Sim) collideBit(pr *probe) {
	slot := -1
	for i := range s.ships {
		if sh := s.c.Ship.Get(s.ships[i]); s.ships[i] != ecs.Nil && sh != nil && (sh.Bits[0] == pr.e || sh.Bits[1] == pr.e) {
			slot = i
			break
		}
	}
	s.shieldContact(pr, slot, s.w.Tick()%bitHitEvery == 0, 1)
}

func (s *Sim) collideShot(pr *probe) {
	shot := s.c.Shot.Get(pr.e)
	slot := int(shot.Slot)
	consumed := false
	if cands := s.grid.find(pr.box, layWeak); len(cands) > 0 {
		if s.bossOpen() {
			s.shotHit(pr.e, shot)
			s.damageBoss(shot.Damage, slot)
		}
		consumed = true
	}
	if !consumed {
		for _, ci := range s.grid.find(pr.box, layEnemy|layBoss) {
			item := &s.grid.items[ci]
			if item.layer == layBoss {
				consumed = true
				break
			}
			h := s.c.Health.Get(item.e)
			if h == nil || h.HP == 0 {
				continue
			}
			if shot.Pierce == 0 && s.armoured(item.e) {
				consumed = true // armour: only a charged beam (or the Force) hurts it
				break
			}
			if shot.Pierce == 1 {
				en := s.c.Enemy.Get(item.e)
				if en.HitBy == pr.e {
					continue
				}
				en.HitBy = pr.e
			}
			s.shotHit(pr.e, shot)
			if !s.damageEnemy(item.e, shot.Damage, slot) || shot.Pierce == 0 {
				consumed = true
				break
			}
		}
	}
	if consumed {
		s.doomed = append(s.doomed, pr.e)
	}
}

func (s *Sim) collideShip(pr *probe) {
	pl := s.c.Player.Get(pr.e)
	vulnerable := pl.Flags&PlayerInvulnerable == 0
	hit := false
	if t := s.terrain(); t != nil {
		if t.terrainBox(pr.box.inset(shipInset), s.Scroll()) != HitNone {
			if vulnerable {
				hit = true // touching the terrain destroys the ship
			} else {
				s.pushOut(pr.e, t)
			}
		}
	}
	for _, ci := range s.grid.find(pr.box, layEnemy|layBoss|layWeak|layEBullet|layPower) {
		item := &s.grid.items[ci]
		switch item.layer {
		case layPower:
			item.dead = true
			s.pickups = append(s.pickups, pickup{ship: pr.e, capsule: item.e, variant: s.c.Kind.Get(item.e).Variant})
		case layEBullet:
			if vulnerable {
				item.dead = true
				s.doomed = append(s.doomed, item.e)
				hit = true
			}
		case layEnemy:
			if vulnerable {
				if h := s.c.Health.Get(item.e); h != nil && h.HP > 0 {
					s.damageEnemy(item.e, 4, -1)
					hit = true
				}
			}
		case layBoss, layWeak:
			if vulnerable {
				hit = true
			}
		}
	}
	if hit {
		s.deaths = append(s.deaths, int(pl.Slot))
	}
}

// armoured reports whether enemy e shrugs off normal shots and lasers (the mid-boss).
func (s *Sim) armoured(e ecs.Entity) bool {
	en := s.c.Enemy.Get(e)
	return en != nil && en.Type == EnemyMidboss
}

// damageEnemy removes hp; it returns true if the enemy was destroyed (the
// kill is recorded once, credited to slot, -1 for none).
func (s *Sim) damageEnemy(e ecs.Entity, dmg uint16, slot int) bool {
	h := s.c.Health.Get(e)
	if h == nil || h.HP == 0 {
		return false
	}
	h = s.c.Health.Mut(e)
	if dmg >= h.HP {
		h.HP = 0
		s.kills = append(s.kills, killReq{e: e, slot: slot})
		return true
	}
	h.HP -= dmg
	return false
}

// damageBoss damages the weak point (caller checked it is open).
func (s *Sim) damageBoss(dmg uint16, slot int) {
	h := s.c.Health.Mut(s.weak)
	if h.HP == 0 {
		return
	}
	if dmg >= h.HP {
		h.HP = 0
	} else {
		h.HP -= dmg
	}
	if h.HP == 0 {
		b := s.c.Boss.Mut(s.boss)
		b.Phase, b.WeakOpen = BossPhaseDying, 0
		s.c.Kind.Mut(s.weak).Variant = 0
		s.c.BossCtl.Get(s.boss).Dying = bossDyingTicks
		s.addScore(slot, bossScore)
		s.addKill(slot)
		s.bossKilled = true
	}
}

func (s *Sim) addScore(slot int, pts uint32) {
	if slot < 0 || slot >= rules.MaxPlayers || s.ships[slot] == ecs.Nil {
		return
	}
	pl := s.c.Player.Mut(s.ships[slot])
	before := s.rules.ExtraLivesAt(pl.Score)
	if pl.Score > math.MaxUint32-pts {
		pl.Score = math.MaxUint32
	} else {
		pl.Score += pts
	}
	for n := s.rules.ExtraLivesAt(pl.Score) - before; n > 0; n-- {
		if pl.Lives < maxLives {
			pl.Lives++
			s.stats[slot].ExtraLives++
			s.emit(Event{Kind: EventExtraLife, Entity: s.ships[slot], Slot: uint8(slot), Lives: pl.Lives})
		}
	}
}

// maxLives is the most lives a player can hold (extra lives beyond it are not given).
const maxLives = 9

// sysDamage applies the results of the collisions: destroyed enemies
// (score, explosion, capsule drop), capsules taken, ships destroyed,
// consumed bullets; on the boss's death every enemy bullet vanishes.
func (s *Sim) sysDamage() {
	for _, k := range s.kills {
		e := k.e
		if !s.w.Alive(e) {
			continue
		}
		en, p := s.c.Enemy.Get(e), s.c.Position.Get(e)
		s.addScore(k.slot, uint32(en.Score))
		s.addKill(k.slot)
		s.explosion(p.X, p.Y, ExplosionSmall)
		if en.Drop > 0 {
			s.spawnCapsule(en.Drop-1, p.X, p.Y)
		}
		s.w.Destroy(e)
	}
	s.kills = s.kills[:0]
	for _, pu := range s.pickups {
		if !s.w.Alive(pu.ship) || !s.w.Alive(pu.capsule) {
			continue
		}
		s.w.Destroy(pu.capsule)
		sh := s.c.Ship.Get(pu.ship)
		pl := s.c.Player.Get(pu.ship)
		switch pu.variant {
		case PowerRed, PowerBlue, PowerYellow:
			// A crystal: the first gives the Force; one of the laser's colour levels the Force
			// up; another colour changes the laser.
			colour := pu.variant - PowerRed + LaserRed
			if pl.Laser == colour || pl.Laser == LaserNone || sh.Force == ecs.Nil {
				s.giveForce(pu.ship, sh)
			}
			if pl.Laser != colour {
				s.c.Player.Mut(pu.ship).Laser = colour
			}
		case PowerSpeed:
			if pl.Speed < MaxSpeed {
				s.c.Player.Mut(pu.ship).Speed++
			}
		case PowerMissile:
			if pl.Missile == 0 {
				s.c.Player.Mut(pu.ship).Missile = 1
			}
		case PowerBit:
			s.giveBit(pu.ship, sh)
		}
		s.addScore(int(s.c.Player.Get(pu.ship).Slot), 100)
	}
	s.pickups = s.pickups[:0]
	for _, slot := range s.deaths {
		s.killShip(slot)
	}
	s.deaths = s.deaths[:0]
	if s.bossKilled {
		s.bossKilled = false
		for it := s.qPK.Iter(); it.Next(); {
			if _, k := it.Get(); k.Kind == KindEnemyBullet {
				s.doomed = append(s.doomed, it.Entity())
			}
		}
	}
	s.flushDoomed()
	s.flushPending()
}

// killShip destroys the ship of slot: explosion, one life less, the Force, the Bits, the laser
// colour, the speed-ups and the missiles are lost, respawn after respawnDelay if lives are left.
func (s *Sim) killShip(slot int) {
	e := s.ships[slot]
	if e == ecs.Nil {
		return
	}
	pl := s.c.Player.Mut(e)
	if pl.Flags&PlayerDead != 0 {
		return
	}
	if pl.Lives > 0 && !s.infinite {
		pl.Lives--
	}
	s.stats[slot].Deaths++
	pl.Flags = PlayerDead
	pl.ChargeFrom, pl.Laser, pl.Speed, pl.Missile = 0, 0, 0, 0
	sh := s.c.Ship.Get(e)
	sh.Held, sh.Cooldown, sh.Invuln = 0, 0, 0
	switch {
	case pl.Lives > 0:
		sh.Respawn = respawnDelay
	case s.stats[slot].Continues < s.rules.Continues:
		pl.Flags |= PlayerContinue // "CONTINUE? 9…"
		sh.Respawn = continueTicks
	}
	s.loseArsenal(sh) // the Force and the Bits
	p := s.c.Position.Get(e)
	s.lastDeath[slot] = deathSpot{y: p.Y, tick: s.w.Tick(), valid: true}
	s.explosion(p.X, p.Y, ExplosionBig)
	s.setVel(e, s.c.Velocity.Get(e), 0, 0)
	s.emit(Event{Kind: EventDeath, Entity: e, Slot: uint8(slot), Lives: pl.Lives})
}
