package wire

import "math"

// Motion (component 10, docs/PROTOCOL.md §4) carries an entity's Position and Velocity in one
// 8-byte record of fixed-point numbers: x, y as i16 in 1/8 virtual px (range ±4095.875 px) and
// vx, vy as i16 in 1/16 px/s (range ±2047.9375 px/s), each rounded to the nearest step. It
// replaces a Position record and a Velocity record (2 × 18 bytes) by one of 18 bytes.
const (
	// MotionPosScale is the number of Motion position units per virtual px.
	MotionPosScale = 8
	// MotionVelScale is the number of Motion velocity units per px/s.
	MotionVelScale = 16
)

func quant(v float32, scale float64) (int16, bool) {
	q := math.Round(float64(v) * scale)
	if !(q >= math.MinInt16 && q <= math.MaxInt16) { // also false for NaN
		return 0, false
	}
	return int16(q), true
}

// QuantizeMotion returns the values a receiver decodes from the Motion record of position
// (x, y) px and velocity (vx, vy) px/s, and ok=false when one of them is out of range (the
// sender then uses separate Position and Velocity records).
func QuantizeMotion(x, y, vx, vy float32) (qx, qy, qvx, qvy float32, ok bool) {
	a, ok1 := quant(x, MotionPosScale)
	b, ok2 := quant(y, MotionPosScale)
	c, ok3 := quant(vx, MotionVelScale)
	d, ok4 := quant(vy, MotionVelScale)
	if !(ok1 && ok2 && ok3 && ok4) {
		return 0, 0, 0, 0, false
	}
	return float32(a) / MotionPosScale, float32(b) / MotionPosScale, float32(c) / MotionVelScale, float32(d) / MotionVelScale, true
}

// AppendMotion appends the 8 data bytes of a Motion record (without its component header) for
// position (x, y) px and velocity (vx, vy) px/s. ok is false, and nothing is appended, when a
// value is out of range or NaN.
func AppendMotion(buf []byte, x, y, vx, vy float32) ([]byte, bool) {
	a, ok1 := quant(x, MotionPosScale)
	b, ok2 := quant(y, MotionPosScale)
	c, ok3 := quant(vx, MotionVelScale)
	d, ok4 := quant(vy, MotionVelScale)
	if !(ok1 && ok2 && ok3 && ok4) {
		return buf, false
	}
	buf = le.AppendUint16(buf, uint16(a))
	buf = le.AppendUint16(buf, uint16(b))
	buf = le.AppendUint16(buf, uint16(c))
	return le.AppendUint16(buf, uint16(d)), true
}

// ParseMotion decodes the 8 data bytes of a Motion record into position (x, y) px and velocity
// (vx, vy) px/s. Every bit pattern is valid. b must hold at least 8 bytes.
func ParseMotion(b []byte) (x, y, vx, vy float32) {
	_ = b[7]
	return float32(int16(le.Uint16(b))) / MotionPosScale, float32(int16(le.Uint16(b[2:]))) / MotionPosScale,
		float32(int16(le.Uint16(b[4:]))) / MotionVelScale, float32(int16(le.Uint16(b[6:]))) / MotionVelScale
}
