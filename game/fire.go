package game

// Fire rules a client needs to predict its own ship's shots (net/session): the same values the
// server's sysInput and fireShot use.

// FireCooldown is the ticks (60 Hz) after a normal shot or a beam before a press fires again
// (Ship.Cooldown): a press fires when the cooldown, decremented once per tick before the press is
// looked at, is 0.
const FireCooldown = fireCooldown

// LaserCooldown is the ticks after a laser fired through a Force attached in front.
const LaserCooldown = laserCooldown

// NormalShotAt is where the normal shot (KindPlayerBullet, ShotNormal) of a ship whose centre is
// at (x, y) virtual px after its move of the tick starts, and its speed vx px/s: 12 px in front of
// the ship's nose. The shot moves once in the tick it is fired (sysMove runs after the spawn),
// so at the end of tick T+n it is at sx + vx·(n+1)/60.
func NormalShotAt(x, y float32) (sx, sy, vx float32) { return x + shipW/2 + 12, y, shotSpeed }

// BeamAt is the beam released by a ship at (x, y) that held fire for held ticks (Ship.Held): its
// level (KindBeam's Variant 1..3; 0: not charged, no beam), its start (its centre) and speed
// vx px/s.
func BeamAt(x, y float32, held int) (level uint8, sx, sy, vx float32) {
	lvl := ChargeLevel(chargeOf(held))
	if lvl == 0 {
		return 0, 0, 0, 0
	}
	return uint8(lvl), x + shipW/2 + float32(beamLevels[lvl].w/2), y, beamSpeed
}
