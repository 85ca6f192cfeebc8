package game

import "github.com/rtype/rtype/ecs"

// Boss geometry per variant: body size, weak point size and offset from
// the body centre, resting x.
var bossGeom = [4]struct {
	w, h  uint16
	wdx   float32
	restX float32
}{
	BossBig:   {w: 420, h: 680, wdx: -170, restX: Width - 300}, // "a huge alien": most of the screen's height
	BossSmall: {w: 240, h: 320, wdx: -100, restX: Width - 200},
	BossWall:  {w: 320, h: 720, wdx: -130, restX: Width - 160},
	BossCore:  {w: 420, h: 760, wdx: -170, restX: Width - 230},
}

// sysSpawn spawns the waves whose scroll position has been reached, then the boss.
func (s *Sim) sysSpawn() {
	scroll := s.Scroll()
	for s.spawnIdx < len(s.stage.spawns) && s.stage.spawns[s.spawnIdx].at <= scroll {
		s.spawnEnemy(&s.stage.spawns[s.spawnIdx])
		s.spawnIdx++
	}
	if !s.bossSpawned && scroll >= s.stage.Boss.At {
		s.spawnBoss()
	}
}

func (s *Sim) spawnEnemy(se *spawnEntry) {
	wv := &s.stage.Waves[se.wave]
	kind := wv.Kind
	if kind == EnemySnake && se.member > 0 {
		kind = EnemySnakeBody
	}
	d := enemyDefaults[kind]
	x, y := wv.X, se.y
	vx := -wv.Speed
	en := Enemy{
		Type: kind, Drop: se.drop, BaseY: se.y, Speed: wv.Speed, Amp: wv.Amplitude,
		Score: d.score, Surface: wv.Surface,
	}
	switch kind {
	case EnemyTurret:
		vx = -s.stage.ScrollSpeed
		if !wv.Mounted {
			y = s.groundY(wv.Surface, x, d.h)
		}
	case EnemyEngine:
		vx = -s.stage.ScrollSpeed
	case EnemyWalker, EnemyHopper:
		en.WalkVX = -wv.Speed
		vx = -wv.Speed - s.scrollVX()
		y = s.groundY(wv.Surface, x, d.h)
		en.Timer = 30
	case EnemySnake, EnemySnakeBody:
		y = s.snakeY(x, en.Amp)
	case EnemyMidboss:
		en.Timer = midbossStay
	case EnemyCarrier:
		if en.Drop == 0 {
			en.Drop = 1 + PowerRed // a carrier always carries a capsule
		}
	}
	e := s.spawn(KindEnemy, kind, x, y, vx, 0)
	hp := uint16(s.scaleHP(wv.HP))
	if kind == EnemySnakeBody {
		hp = uint16(s.scaleHP(d.hp))
	}
	s.c.Health.Set(e, Health{HP: hp, MaxHP: hp})
	fire := wv.Fire
	if kind == EnemySnakeBody {
		fire = 0
	}
	ivl := uint16(s.scaleFire(fire))
	if ivl > 0 {
		en.FireCD = ivl/2 + uint16(s.rng.intn(int(ivl)))
	}
	en.FireIvl = ivl
	s.c.Enemy.Set(e, en)
}

// scrollVX is the stage's scroll speed now (px/s): ScrollSpeed until the boss appears, then 0.
func (s *Sim) scrollVX() float32 { return s.c.Velocity.Get(s.stageEnt).X }

// groundY is the y of the centre of a ground enemy h px tall at screen x standing on the floor
// (SurfaceFloor) or hanging from the ceiling (SurfaceCeil) there; the playfield's edge when
// there is no terrain.
func (s *Sim) groundY(surface uint8, x float32, h uint16) float32 {
	t := &s.stage.Terrain
	wx := x + s.Scroll()
	if surface == SurfaceCeil {
		return t.CeilY(wx) + float32(h)/2
	}
	return t.FloorY(wx) - float32(h)/2
}

// snakeY is the y of the snake path at screen x: it winds around the middle of the corridor
// (y = middle + amp·sin(2π·wx/snakeWave), wx the world x), so every segment of a snake, whatever
// its spawn time, lies on the same curve.
func (s *Sim) snakeY(x, amp float32) float32 { return s.snakeYAt(x+s.Scroll(), amp) }

// snakeYAt is the y of the snake path at world x wx.
func (s *Sim) snakeYAt(wx, amp float32) float32 {
	top, bottom := s.stage.Terrain.Span(wx, wx)
	mid := (top + bottom) / 2
	if amp <= 0 {
		amp = min((bottom-top)/2-60, 220)
	}
	return mid + float32(amp*sin16(uint16(int64(wx*(65536.0/snakeWave)))))
}

// Enemy behaviour tuning (px, px/s, ticks).
const (
	snakeWave    = 900  // px of world x per snake winding
	snakeSeg     = 10   // ticks per straight segment of the snake's polyline
	hopGravity   = 1500 // px/s² pulling a hopper back to its surface
	hopVY        = 760  // px/s take-off speed
	hopRest      = 50   // ticks between landing and the next jump
	hopSeg       = 6    // ticks per straight segment of a jump's polyline
	midbossStay  = 1500 // ticks a mid-boss fights before it leaves
	midbossHoldX = 1450 // screen x where a mid-boss stops
)

func (s *Sim) spawnMinion(x, y float32) {
	d := enemyDefaults[EnemyHoming]
	e := s.spawn(KindEnemy, EnemyHoming, x, y, -d.speed, 0)
	hp := uint16(s.scaleHP(d.hp))
	s.c.Health.Set(e, Health{HP: hp, MaxHP: hp})
	s.c.Enemy.Set(e, Enemy{Type: EnemyHoming, BaseY: y, Speed: d.speed, Score: d.score})
}

func (s *Sim) spawnBoss() {
	s.bossSpawned = true
	b := &s.stage.Boss
	g := bossGeom[b.Variant]
	hp := uint16(s.scaleBossHP(b.HP))
	x, y := float32(Width+g.w/2+20), float32(Height/2)
	s.boss = s.spawn(KindBoss, b.Variant, x, y, -bossEnterSpeed, 0)
	s.c.Boss.Set(s.boss, Boss{Phase: 0})
	s.weak = s.spawn(KindBossWeakPoint, 0, x+g.wdx, y, -bossEnterSpeed, 0)
	s.c.Health.Set(s.weak, Health{HP: hp, MaxHP: hp})
	bc := BossCtl{Weak: s.weak, BaseY: y}
	s.spawnParts(&bc, x, y, -bossEnterSpeed)
	s.c.BossCtl.Set(s.boss, bc)
	s.c.Stage.Mut(s.stageEnt).Section = uint8(len(s.stage.Sections))
	s.emit(Event{Kind: EventMusic, Song: b.Song})
}

// sysAI steers enemies (by setting Velocity) and makes them and the boss fire.
// Bullets are queued and created after the iteration.
func (s *Sim) sysAI() {
	for it := s.qEnemy.Iter(); it.Next(); {
		en, p, v := it.Get()
		e := it.Entity()
		en.Age++
		vx, vy := v.X, v.Y
		switch en.Type {
		case EnemyStraight:
			vx, vy = -en.Speed, 0
		case EnemySine:
			// One period every 2 s along y = BaseY + Amp*sin(2*pi*age/120), in straight segments.
			vx, vy = -en.Speed, swayVY(vy, p.Y, en.BaseY, en.Amp, en.Age-1, 120, 15)
		case EnemyTurret:
			vx, vy = 0, 0
			if !s.bossSpawned {
				vx = -s.stage.ScrollSpeed
			}
		case EnemyHoming:
			// Fly in for 40 ticks, then steer towards the nearest ship for 4 s, turning every
			// 6th tick (a constant velocity in between is what clients dead-reckon exactly).
			if en.Age > 40 && en.Age < 280 && (en.Age-41)%homingSteerEvery == 0 {
				if tx, ty, ok := s.nearestShip(p.X, p.Y); ok && tx < p.X+40 {
					dvx, dvy := aim(p.X, p.Y, tx, ty, en.Speed)
					const turn = 14 * homingSteerEvery // px/s per steering step
					vx = approach(vx, dvx, turn)
					vy = approach(vy, dvy, turn)
				}
			}
		case EnemyCarrier:
			vx, vy = -en.Speed, swayVY(vy, p.Y, en.BaseY, 40, en.Age-1, 180, 20)
		case EnemyWalker:
			vx, vy = s.walk(e, en, p)
		case EnemyHopper:
			vx, vy = s.hop(e, en, p, v)
		case EnemySnake, EnemySnakeBody:
			// Along the snake path, in straight segments (dead-reckoned between them).
			vx = -en.Speed
			if (en.Age-1)%snakeSeg == 0 {
				// The point snakeSeg ticks ahead, in the world (the scroll moves on meanwhile).
				wx := p.X + float32((vx+s.scrollVX())*snakeSeg)/TickRate + s.Scroll()
				ty := s.snakeYAt(wx, en.Amp)
				vy = float32((ty-p.Y)*TickRate) / snakeSeg
			}
		case EnemyMidboss:
			vx, vy = s.midboss(en, p, v)
		case EnemyEngine: // bolted to the hull: moves with the terrain
			vx, vy = 0, 0
			if !s.bossSpawned {
				vx = -s.stage.ScrollSpeed
			}
		}
		s.setVel(e, v, vx, vy)
		if en.FireIvl == 0 {
			continue
		}
		if en.FireCD > 0 {
			en.FireCD--
			continue
		}
		if p.X < 80 || p.X > Width-40 || p.Y < 0 || p.Y > Height {
			continue
		}
		tx, ty, ok := s.nearestShip(p.X, p.Y)
		if !ok {
			continue
		}
		en.FireCD = en.FireIvl + uint16(s.rng.intn(int(en.FireIvl)/3+1))
		bvx, bvy := aim(p.X, p.Y, tx, ty, s.bulletSpeed(enemyBulletSpeed))
		if en.Type == EnemyStraight && tx > p.X {
			continue // only shoots forwards (left)
		}
		if (en.Surface == SurfaceFloor && ty > p.Y) || (en.Surface == SurfaceCeil && ty < p.Y) {
			continue // ground guns cannot shoot into their own ground
		}
		if en.Type == EnemyEngine {
			// A pair of aimed big bullets from its nozzle (the left end).
			for i := -1; i <= 1; i += 2 {
				mvx, mvy := aim(p.X-60, p.Y, tx, ty+float32(i*60), s.bulletSpeed(enemyBulletSpeed))
				s.queue(bulletReq{kind: KindEnemyBullet, variant: BulletBig, x: p.X - 60, y: p.Y, vx: mvx, vy: mvy})
			}
			continue
		}
		if en.Type == EnemyMidboss {
			// A spread of three aimed big bullets.
			for i := -1; i <= 1; i++ {
				mvx, mvy := aim(p.X-80, p.Y, tx, ty+float32(i*90), s.bulletSpeed(enemyBulletSpeed+40))
				s.queue(bulletReq{kind: KindEnemyBullet, variant: BulletBig, x: p.X - 80, y: p.Y, vx: mvx, vy: mvy})
			}
			continue
		}
		s.queue(bulletReq{kind: KindEnemyBullet, variant: BulletSmall, x: p.X, y: p.Y, vx: bvx, vy: bvy})
	}
	s.bossAI()
}

// homingSteerEvery is how many ticks a homing enemy keeps its velocity between two turns.
const homingSteerEvery = 6

// swayVY is the vertical speed in px/s of an entity swaying along y = base + amp*sin(2*pi*t/period)
// (t in ticks) as a polyline: at every seg-th tick it aims straight at the curve's point seg
// ticks ahead and keeps that speed until then; between those ticks it returns vy unchanged. A
// constant speed over each segment is what clients dead-reckon exactly (docs/PROTOCOL.md §5.3),
// so a swaying entity costs one ENTITY per segment instead of one per snapshot.
func swayVY(vy, y, base, amp float32, t uint32, period, seg uint32) float32 {
	if t%seg != 0 {
		return vy
	}
	ty := base + float32(amp*sin16(uint16(uint64(t+seg)*65536/uint64(period))))
	return float32((ty-y)*TickRate) / float32(seg)
}

// phaseFor returns the fight phase 1..n for the weak point's HP.
func (s *Sim) phaseFor(hp, max uint16) uint8 {
	ph := uint8(1)
	for i, p := range s.stage.Boss.Phases {
		if int(hp)*100 <= p.Below*int(max) {
			ph = uint8(i + 1)
		}
	}
	return ph
}

func (s *Sim) bossAI() {
	if s.boss == ecs.Nil {
		return
	}
	b, bc := s.c.Boss.Get(s.boss), s.c.BossCtl.Get(s.boss)
	p, v := s.c.Position.Get(s.boss), s.c.Velocity.Get(s.boss)
	g := bossGeom[s.stage.Boss.Variant]
	wp, wv := s.c.Position.Get(s.weak), s.c.Velocity.Get(s.weak)
	bc.Age++
	switch b.Phase {
	case BossPhaseDying:
		s.setVel(s.boss, v, 0, 30)
		s.setVel(s.weak, wv, 0, 30)
		if bc.Dying%12 == 0 {
			s.explosion(p.X+s.rng.rangef(-float32(g.w)/2, float32(g.w)/2), p.Y+s.rng.rangef(-float32(g.h)/2, float32(g.h)/2), ExplosionBoss)
		}
		if bc.Dying > 0 {
			bc.Dying--
		}
		s.moveParts(bc, b.Phase, p, v)
		if bc.Dying == 0 {
			for i := 0; i < int(bc.Parts); i++ {
				s.w.Destroy(s.parts[i])
				s.parts[i] = ecs.Nil
			}
			s.w.Destroy(s.weak)
			s.w.Destroy(s.boss)
			s.boss, s.weak = ecs.Nil, ecs.Nil
			s.bossDead = true
		}
		return
	case 0:
		s.moveParts(bc, 0, p, v)
		if p.X <= g.restX {
			s.setPos(s.boss, p, g.restX, p.Y)
			s.setVel(s.boss, v, 0, 0)
			s.setVel(s.weak, wv, 0, 0)
			s.setPos(s.weak, wp, g.restX+g.wdx, p.Y)
			s.c.Boss.Mut(s.boss).Phase = 1
			bc.PhaseAt = bc.Age
			bc.FireCD = 60
			bc.OpenCD = uint16(s.stage.Boss.Phases[0].Closed)
		}
		return
	}
	// Fighting.
	h := s.c.Health.Get(s.weak)
	if ph := s.phaseFor(h.HP, h.MaxHP); ph != b.Phase {
		s.c.Boss.Mut(s.boss).Phase = ph
		bc.PhaseAt = bc.Age
		bc.FireCD = 40
	}
	spec := &s.stage.Boss.Phases[b.Phase-1]
	// Sway along y = BaseY + Sway*sin(2*pi*t/240), in straight segments of 20 ticks.
	vy := v.Y
	if t := bc.Age - bc.PhaseAt; t > 0 { // t is 0 on the tick the phase changes
		vy = swayVY(vy, p.Y, bc.BaseY, spec.Sway, t-1, 240, 20)
	}
	s.setVel(s.boss, v, 0, vy)
	s.setVel(s.weak, wv, 0, vy)
	s.moveParts(bc, b.Phase, p, v)
	// Weak point opening.
	if spec.Closed == 0 {
		if b.WeakOpen == 0 {
			s.setWeak(1)
		}
	} else if bc.OpenCD > 0 {
		bc.OpenCD--
	} else if b.WeakOpen == 1 {
		s.setWeak(0)
		bc.OpenCD = uint16(spec.Closed)
	} else {
		s.setWeak(1)
		bc.OpenCD = uint16(spec.Open)
	}
	// Volleys; the interval shrinks the longer the fight lasts (x7200/(7200+age)).
	if bc.FireCD > 0 {
		bc.FireCD--
		return
	}
	ivl := s.scaleFire(spec.Interval) * 7200 / (7200 + int(bc.Age))
	if ivl < 4 {
		ivl = 4
	}
	bc.FireCD = uint16(ivl)
	ox, oy := wp.X-weakPointSize/2, wp.Y
	switch spec.Pattern {
	case PatternFan:
		n := spec.Bullets
		for i := 0; i < n; i++ {
			// 60 degrees centred on "left" (angle 32768).
			a := uint16(32768 - 5461)
			if n > 1 {
				a += uint16(10922 * i / (n - 1))
			}
			s.queue(bulletReq{kind: KindEnemyBullet, variant: BulletBig, x: ox, y: oy,
				vx: float32(spec.Speed * cos16(a)), vy: float32(spec.Speed * sin16(a))})
		}
	case PatternAimed:
		tx, ty, ok := s.nearestShip(ox, oy)
		if !ok {
			return
		}
		for i := 0; i < spec.Bullets; i++ {
			bvx, bvy := aim(ox, oy, tx, ty+float32((i-spec.Bullets/2)*40), s.bulletSpeed(spec.Speed))
			s.queue(bulletReq{kind: KindEnemyBullet, variant: BulletBig, x: ox - float32(i*20), y: oy, vx: bvx, vy: bvy})
		}
	case PatternRing:
		n := spec.Bullets
		bc.Angle += 2048
		for i := 0; i < n; i++ {
			a := bc.Angle + uint16(65536*i/n)
			s.queue(bulletReq{kind: KindEnemyBullet, variant: BulletBig, x: p.X, y: p.Y,
				vx: float32(spec.Speed * cos16(a)), vy: float32(spec.Speed * sin16(a))})
		}
	case PatternSpawn:
		for i := 0; i < spec.Bullets; i++ {
			y := p.Y + float32((i-spec.Bullets/2)*90)
			s.queue(bulletReq{kind: KindEnemy, variant: EnemyHoming, x: p.X - float32(g.w)/2, y: clamp32(y, 40, Height-40)})
		}
	}
}

func (s *Sim) setWeak(open uint8) {
	s.c.Boss.Mut(s.boss).WeakOpen = open
	s.c.Kind.Mut(s.weak).Variant = open
}

// walk is a walker's velocity: it walks along its surface in the world towards the nearest
// ship's x (turning with a 120 px dead band), following the slope of the ground; the screen
// velocity adds the scroll. The velocity changes only where the slope or the direction
// changes (dead reckoning sends nothing in between); y is kept on the surface.
func (s *Sim) walk(e ecs.Entity, en *Enemy, p *Position) (vx, vy float32) {
	if tx, _, ok := s.nearestShip(p.X, p.Y); ok && en.Age%30 == 0 {
		switch {
		case tx < p.X-120 && en.WalkVX > 0:
			en.WalkVX = -en.WalkVX
		case tx > p.X+120 && en.WalkVX < 0:
			en.WalkVX = -en.WalkVX
		}
	}
	return s.onSurface(e, en, p, en.WalkVX)
}

// onSurface keeps a ground enemy on its surface and returns its screen velocity for a world
// x speed of wvx px/s.
func (s *Sim) onSurface(e ecs.Entity, en *Enemy, p *Position, wvx float32) (vx, vy float32) {
	t := &s.stage.Terrain
	sz := enemyDefaults[en.Type].h
	// Stay on the surface (a correction within the dead-reckoning bound costs nothing).
	s.setPos(e, p, p.X, s.groundY(en.Surface, p.X, sz))
	wx := p.X + s.Scroll()
	slope := t.Slope(wx, en.Surface == SurfaceFloor) // d(surface y)/d(world x)
	return wvx - s.scrollVX(), float32(slope * wvx)
}

// hop is a hopper's velocity: it rests on its surface, then jumps away from it towards the
// nearest ship and falls back (a parabola flown as straight segments of hopSeg ticks).
func (s *Sim) hop(e ecs.Entity, en *Enemy, p *Position, v *Velocity) (vx, vy float32) {
	dir := float32(1) // away from the floor is up (-y)
	if en.Surface == SurfaceCeil {
		dir = -1
	}
	switch en.State {
	case 0: // resting
		if en.Timer > 0 {
			en.Timer--
			return s.onSurface(e, en, p, 0)
		}
		en.State, en.Timer = 1, 0
		en.WalkVX = -en.Speed
		if tx, _, ok := s.nearestShip(p.X, p.Y); ok && tx > p.X {
			en.WalkVX = en.Speed
		}
		fallthrough
	default: // flying: straight segments towards the parabola's point hopSeg ticks ahead
		t := en.Timer
		en.Timer++
		if t%hopSeg != 0 {
			return v.X, v.Y
		}
		ground := s.groundY(en.Surface, p.X, enemyDefaults[en.Type].h)
		// Height above the take-off surface after u ticks: hopVY·u − g·u²/2 (u in s).
		u0, u1 := float32(t)/TickRate, float32(t+hopSeg)/TickRate
		h0 := float32(hopVY*u0) - float32(hopGravity*u0*u0)/2
		h1 := float32(hopVY*u1) - float32(hopGravity*u1*u1)/2
		if t > 0 && h1 <= 0 {
			// Landing: back on the surface, rest.
			en.State, en.Timer = 0, hopRest
			s.setPos(e, p, p.X, ground)
			return s.onSurface(e, en, p, 0)
		}
		_ = h0
		ty := ground - float32(dir*h1)
		return en.WalkVX - s.scrollVX(), float32((ty-p.Y)*TickRate) / hopSeg
	}
}

// midboss: flies in, holds its x swaying for midbossStay ticks while it fires, then leaves
// to the left.
func (s *Sim) midboss(en *Enemy, p *Position, v *Velocity) (vx, vy float32) {
	if en.Timer > 0 {
		en.Timer--
	}
	switch {
	case en.Timer == 0:
		return -en.Speed * 3, 0 // leaves
	case p.X > midbossHoldX:
		return -en.Speed * 4, 0
	}
	return 0, swayVY(v.Y, p.Y, en.BaseY, 140, en.Age-1, 300, 20)
}

// Boss parts: the stage-1 boss's tail and the stage-2 boss's tentacles are chains of
// KindBossPart entities. Each chain hangs from an anchor on the body; segment i points at the
// angle base + Σ_{j≤i} (curl + amp·sin(2π·t/period − i·lag)) (forward kinematics), so a wave
// runs down the chain and the tip whips. The amplitude and the speed grow with the fight's
// phase. Parts move as straight segments of partSeg ticks (every partSeg ticks each aims at
// where the chain will be partSeg ticks later), which clients dead-reckon exactly: a chain of
// 12 parts costs 12·60/partSeg motion records per second, not 12·30.
const (
	maxBossParts = 24
	partSeg      = 15 // ticks per straight segment of a part's path
)

// bossChain is one tail or tentacle of a boss variant. Angles are in 1/65536 turns (y down:
// 16384 points down).
type bossChain struct {
	n       int     // segments
	ax, ay  float32 // anchor, px from the body's centre
	length  float32 // px between segment centres
	base    int32   // direction of the first segment
	curl    int32   // constant bend per segment
	lag     int32   // phase lag per segment
	variant uint8   // part variant of the segments (the last one is variant+1, the tip)
}

var bossChains = [4][]bossChain{
	BossBig: {{n: 12, ax: -125, ay: 200, length: 50, base: 24000, curl: 1300, lag: 5200, variant: PartTail}},
	BossWall: {
		{n: 9, ax: -90, ay: -250, length: 50, base: 32768 - 2500, curl: 700, lag: 6000, variant: PartTentacle},
		{n: 9, ax: -90, ay: 250, length: 50, base: 32768 + 2500, curl: -700, lag: 6000, variant: PartTentacle},
	},
}

// partMotion is the chain's swing by fight phase: amplitude per segment (1/65536 turns) and
// period (ticks). Phase 0 is the entrance, BossPhaseDying the death.
func partMotion(phase uint8) (amp float32, period uint32) {
	switch {
	case phase == BossPhaseDying:
		return 0, 240
	case phase <= 1:
		return 1300, 240
	case phase == 2:
		return 2000, 160
	}
	return 2600, 110
}

// chainPoints calls f with the position of every part of the boss at age t (ticks) for a body
// centre (bx, by) and fight phase.
func (s *Sim) chainPoints(t uint32, phase uint8, bx, by float32, f func(i int, x, y float32)) {
	amp, period := partMotion(phase)
	idx := 0
	for _, ch := range bossChains[s.stage.Boss.Variant] {
		x, y := bx+ch.ax, by+ch.ay
		phi := ch.base
		w := uint16(uint64(t) * 65536 / uint64(period))
		for i := 0; i < ch.n; i++ {
			a := float32(amp * sin16(w-uint16(int32(i)*ch.lag)))
			phi += ch.curl + int32(a)
			if phase == BossPhaseDying {
				phi = phi + (16384-phi)/4 // droops
			}
			x += float32(ch.length * cos16(uint16(phi)))
			y += float32(ch.length * sin16(uint16(phi)))
			f(idx, x, y)
			idx++
		}
	}
}

// spawnParts creates the boss's tail or tentacles around a body at (x, y) moving at vx px/s.
func (s *Sim) spawnParts(bc *BossCtl, x, y, vx float32) {
	n := 0
	for _, ch := range bossChains[s.stage.Boss.Variant] {
		for i := 0; i < ch.n && n < maxBossParts; i++ {
			v := ch.variant
			if i == ch.n-1 {
				v++ // the tip
			}
			s.parts[n] = s.spawn(KindBossPart, v, x, y, vx, 0)
			n++
		}
	}
	bc.Parts = uint8(n)
	s.chainPoints(0, 0, x, y, func(i int, px, py float32) {
		if i < n {
			p := s.c.Position.Get(s.parts[i])
			s.setPos(s.parts[i], p, px, py)
		}
	})
}

// moveParts steers the parts every partSeg ticks towards where the chain will be partSeg
// ticks later, for the body at p moving at v.
func (s *Sim) moveParts(bc *BossCtl, phase uint8, p *Position, v *Velocity) {
	if bc.Parts == 0 || bc.Age%partSeg != 0 {
		return
	}
	bx := p.X + float32(v.X*partSeg)/TickRate
	by := p.Y + float32(v.Y*partSeg)/TickRate
	s.chainPoints(bc.Age+partSeg, phase, bx, by, func(i int, x, y float32) {
		if i >= int(bc.Parts) {
			return
		}
		e := s.parts[i]
		pp, pv := s.c.Position.Get(e), s.c.Velocity.Get(e)
		s.setVel(e, pv, float32((x-pp.X)*TickRate)/partSeg, float32((y-pp.Y)*TickRate)/partSeg)
	})
}
