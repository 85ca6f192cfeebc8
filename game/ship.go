package game

import (
	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game/rules"
)

// MoveShip is one tick of ship movement, shared by the server and client
// prediction: 8 + 1.5·speed px/tick (480 px/s without speed-ups, speed =
// Player.Speed 0..MaxSpeed) along the held directions, diagonals normalised
// (5.656854 px/tick per axis at speed 0), opposite directions cancel, and
// the ship's centre is clamped so its 80x36 hitbox stays inside the
// 1920x1080 playfield. Pure float32 arithmetic without fused operations:
// every platform computes the same bits.
func MoveShip(x, y float32, b Buttons, speed uint8) (nx, ny float32) {
	var dx, dy float32
	if b&BtnLeft != 0 {
		dx--
	}
	if b&BtnRight != 0 {
		dx++
	}
	if b&BtnUp != 0 {
		dy--
	}
	if b&BtnDown != 0 {
		dy++
	}
	sp := min(int(speed), MaxSpeed)
	step := shipSteps[sp]
	if dx != 0 && dy != 0 {
		step = shipDiags[sp]
	}
	nx = x + float32(dx*step)
	ny = y + float32(dy*step)
	return clamp32(nx, shipW/2, Width-shipW/2), clamp32(ny, shipH/2, ShipMaxY)
}

// sysInput moves ships, fires shots and beams and handles the Force button.
func (s *Sim) sysInput() {
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		e := s.ships[slot]
		if e == ecs.Nil {
			continue
		}
		sh := s.c.Ship.Get(e)
		sh.Prev, sh.Input = sh.Input, s.inputs[slot]
		pl := s.c.Player.Get(e)
		if pl.Flags&PlayerDead != 0 {
			continue
		}
		b := sh.Input
		p := s.c.Position.Get(e)
		ox, oy := p.X, p.Y
		nx, ny := MoveShip(ox, oy, b, pl.Speed)
		s.setPos(e, p, nx, ny)
		s.setVel(e, s.c.Velocity.Get(e), float32((nx-ox)*TickRate), float32((ny-oy)*TickRate))

		// Weapons: a press fires a shot, holding charges, releasing fires the beam.
		if sh.Cooldown > 0 {
			sh.Cooldown--
		}
		fire, wasFire := b&BtnFire != 0, sh.Prev&BtnFire != 0
		switch {
		case fire && !wasFire:
			sh.Held = 1
			if sh.Cooldown == 0 {
				s.fireShot(e, slot, pl, sh, nx, ny)
			}
		case fire:
			if sh.Held < 0xFFFF {
				sh.Held++
			}
		case wasFire:
			if lvl, bx, by, bvx := BeamAt(nx, ny, int(sh.Held)); lvl > 0 {
				s.queue(bulletReq{kind: KindBeam, variant: lvl, x: bx, y: by,
					vx: bvx, damage: beamLevels[lvl].damage, slot: uint8(slot), pierce: 1})
				sh.Cooldown = fireCooldown
			}
			sh.Held = 0
		}
		// The replicated charge is the tick the hold began (Player.ChargeFrom), published once
		// the charge shows (so tapping fire never changes Player).
		from := uint32(0)
		if fire && int(sh.Held) > chargeDelay {
			from = uint32(s.w.Tick()) + 1 - uint32(sh.Held)
			if pl.ChargeFrom != 0 && sh.Held == 0xFFFF {
				from = pl.ChargeFrom // the count saturated: keep the start
			}
		}
		if from != pl.ChargeFrom {
			s.c.Player.Mut(e).ChargeFrom = from
		}

		// Force button (edge): launch an attached Force, recall a detached one.
		if b&BtnForce != 0 && sh.Prev&BtnForce == 0 && sh.Force != ecs.Nil {
			f := s.c.Force.Get(sh.Force)
			fc := s.c.ForceCtl.Get(sh.Force)
			if f != nil && fc != nil {
				if f.Mode != ForceDetached {
					// From the front it flies forward, from the back backward (sysForce).
					fc.Back = flag(f.Mode == ForceBack)
					s.c.Force.Mut(sh.Force).Mode = ForceDetached
					fc.Recall = 0
					fc.Lock = forceAttachLock
					fc.FireCD = forceFireEvery
				} else {
					fc.Recall = 1
				}
			}
		}
	}
}

// sysForce moves every Force: attached ones stick to their ship; detached ones fly ahead (to
// forceAheadX, or the boss's front) when launched from the front, back to forceBehindX when
// launched from the back, follow the ship vertically and fire on their own (forceFire);
// recalled ones home in and re-attach on the side they touch.
func (s *Sim) sysForce() {
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		e := s.ships[slot]
		if e == ecs.Nil {
			continue
		}
		sh := s.c.Ship.Get(e)
		if sh.Force == ecs.Nil {
			continue
		}
		fe := sh.Force
		f, fc, fp := s.c.Force.Get(fe), s.c.ForceCtl.Get(fe), s.c.Position.Get(fe)
		sp := s.c.Position.Get(e)
		ox, oy := fp.X, fp.Y
		nx, ny := ox, oy
		if fc.Lock > 0 {
			fc.Lock--
		}
		attached := false
		switch {
		case f.Mode != ForceDetached:
			nx, ny, attached = AttachedForcePos(f.Mode, sp.X, sp.Y)
		case fc.Recall == 1:
			vx, vy := aim(ox, oy, sp.X, sp.Y, forceRecallSpeed)
			nx, ny = ox+vx/TickRate, oy+vy/TickRate
			// Do not overshoot the ship.
			if abs32(sp.X-ox) <= abs32(vx/TickRate) {
				nx = sp.X
			}
			if abs32(sp.Y-oy) <= abs32(vy/TickRate) {
				ny = sp.Y
			}
		case fc.Back == 1:
			// Launched from the back: fly backward to forceBehindX (never forward).
			if ox > forceBehindX {
				nx = approach(ox, forceBehindX, forceLaunchSpeed/TickRate)
			}
			ny = approach(oy, sp.Y, forceFollowSpeed/TickRate)
		default:
			// Fly ahead to forceAheadX, or to the boss's front (slightly
			// overlapping it, so it touches the weak point).
			limit := float32(forceAheadX)
			if s.boss != ecs.Nil {
				bp, bs := s.c.Position.Get(s.boss), s.c.Size.Get(s.boss)
				if l := bp.X - float32(bs.W)/2 - forceSize/2 + 14; l < limit {
					limit = l
				}
			}
			if ox < limit {
				nx = ox + forceLaunchSpeed/TickRate
				if nx > limit {
					nx = limit
				}
			} else if ox > limit+1 {
				nx = approach(ox, limit, forceLaunchSpeed/TickRate)
			}
			ny = approach(oy, sp.Y, forceFollowSpeed/TickRate)
		}
		// Touching the ship re-attaches (not while just launched).
		if f.Mode == ForceDetached && fc.Lock == 0 &&
			abs32(nx-sp.X) <= (shipW+forceSize)/2+4 && abs32(ny-sp.Y) <= (shipH+forceSize)/2+4 {
			m := s.c.Force.Mut(fe)
			m.Mode = ForceBack
			if nx >= sp.X {
				m.Mode = ForceFront
			}
			nx, ny, attached = AttachedForcePos(m.Mode, sp.X, sp.Y)
			fc.Recall, fc.Back = 0, 0
		}
		if !attached {
			s.forceFire(e, f, fc, fp)
		}
		s.setPos(fe, fp, nx, ny)
		if attached {
			// Carried by its ship: the Force's own Velocity is 0 and clients place it from the
			// ship (AttachedForcePos), so its Position is not sent (docs/PROTOCOL.md §5.7).
			s.setVel(fe, s.c.Velocity.Get(fe), 0, 0)
		} else {
			s.setVel(fe, s.c.Velocity.Get(fe), float32((nx-ox)*TickRate), float32((ny-oy)*TickRate))
		}
	}
}

// AttachedForcePos is where a Force attached in mode (ForceFront or ForceBack) to a ship at
// (shipX, shipY) is, in virtual px: 70 px in front of or behind the ship's centre. ok is false
// for ForceDetached. Server and clients place attached Forces with it (docs/PROTOCOL.md §5.7).
func AttachedForcePos(mode uint8, shipX, shipY float32) (x, y float32, ok bool) {
	switch mode {
	case ForceFront:
		return shipX + forceAttachDX, shipY, true
	case ForceBack:
		return shipX - forceAttachDX, shipY, true
	}
	return 0, 0, false
}

// giveForce spawns the Force for ship e (flying in from the left edge,
// homing to the ship) or levels it up.
func (s *Sim) giveForce(e ecs.Entity, sh *Ship) {
	if sh.Force != ecs.Nil && s.w.Alive(sh.Force) {
		f := s.c.Force.Get(sh.Force)
		if f.Level < maxForceLevel {
			s.c.Force.Mut(sh.Force).Level++
			s.c.Kind.Mut(sh.Force).Variant = f.Level
		}
		return
	}
	sp := s.c.Position.Get(e)
	fe := s.spawn(KindForce, 1, -forceSize, sp.Y, 0, 0)
	s.c.Force.Set(fe, Force{Owner: e, Mode: ForceDetached, Level: 1})
	s.c.ForceCtl.Set(fe, ForceCtl{Recall: 1})
	sh.Force = fe
}

// Ship steps per tick by speed-ups taken: straight and diagonal (step/sqrt 2), px/tick.
var (
	shipSteps = [MaxSpeed + 1]float32{shipStep, 9.5, 11, 12.5}
	shipDiags = [MaxSpeed + 1]float32{shipDiag, 6.717514, 7.778175, 8.838835}
)
