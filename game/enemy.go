package game

import "github.com/rtype/rtype/ecs"

// Boss geometry per variant: body size, weak point size and offset from
// the body centre, resting x.
var bossGeom = [3]struct {
	w, h  uint16
	wdx   float32
	restX float32
}{
	BossBig:   {w: 360, h: 560, wdx: -150, restX: Width - 280},
	BossSmall: {w: 240, h: 320, wdx: -100, restX: Width - 200},
	BossWall:  {w: 320, h: 720, wdx: -130, restX: Width - 160},
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
	d := enemyDefaults[wv.Kind]
	vx := -wv.Speed
	if wv.Kind == EnemyTurret {
		vx = -s.stage.ScrollSpeed
	}
	e := s.spawn(KindEnemy, wv.Kind, wv.X, se.y, vx, 0)
	hp := uint16(s.scaleHP(wv.HP))
	s.c.Health.Set(e, Health{HP: hp, MaxHP: hp})
	ivl := uint16(s.scaleFire(wv.Fire))
	cd := uint16(0)
	if ivl > 0 {
		cd = ivl/2 + uint16(s.rng.intn(int(ivl)))
	}
	s.c.Enemy.Set(e, Enemy{
		Type: wv.Kind, Drop: se.drop, BaseY: se.y, Speed: wv.Speed, Amp: wv.Amplitude,
		FireCD: cd, FireIvl: ivl, Score: d.score,
	})
}

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
	hp := uint16(s.scaleHP(b.HP))
	x, y := float32(Width+g.w/2+20), float32(Height/2)
	s.boss = s.spawn(KindBoss, b.Variant, x, y, -bossEnterSpeed, 0)
	s.c.Boss.Set(s.boss, Boss{Phase: 0})
	s.weak = s.spawn(KindBossWeakPoint, 0, x+g.wdx, y, -bossEnterSpeed, 0)
	s.c.Health.Set(s.weak, Health{HP: hp, MaxHP: hp})
	s.c.BossCtl.Set(s.boss, BossCtl{Weak: s.weak, BaseY: y})
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
		bvx, bvy := aim(p.X, p.Y, tx, ty, enemyBulletSpeed)
		if en.Type == EnemyStraight && tx > p.X {
			continue // only shoots forwards (left)
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
		if bc.Dying == 0 {
			s.w.Destroy(s.weak)
			s.w.Destroy(s.boss)
			s.boss, s.weak = ecs.Nil, ecs.Nil
			s.bossDead = true
		}
		return
	case 0:
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
			bvx, bvy := aim(ox, oy, tx, ty+float32((i-spec.Bullets/2)*40), spec.Speed)
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
