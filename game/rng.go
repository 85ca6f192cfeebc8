package game

import "math"

// rng is a splitmix64 generator; its single uint64 state is part of the
// world hash.
type rng struct{ state uint64 }

func (r *rng) next() uint64 {
	r.state += 0x9E3779B97F4A7C15
	z := r.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// intn returns a value in [0, n) (0 if n <= 0).
func (r *rng) intn(n int) int {
	if n <= 0 {
		return 0
	}
	return int((r.next() >> 32) * uint64(n) >> 32)
}

// rangef returns a float32 in [lo, hi).
func (r *rng) rangef(lo, hi float32) float32 {
	f := float32(r.next()>>40) / (1 << 24)
	return lo + float32(f*(hi-lo))
}

// sinTab holds sin(2*pi*i/1024) rounded to float32. Angles are in
// 1/65536 of a turn (uint16), so wrap-around is free.
var sinTab = func() (t [1024]float32) {
	for i := range t {
		t[i] = float32(math.Sin(2 * math.Pi * float64(i) / 1024))
	}
	return t
}()

func sin16(a uint16) float32 { return sinTab[a>>6] }
func cos16(a uint16) float32 { return sinTab[(a+16384)>>6] }

// sqrt32 is the correctly rounded float32 square root (deterministic on every platform).
func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// aim returns a velocity of length speed pointing from (x,y) to (tx,ty);
// straight left if the points coincide. Explicit float32 conversions
// forbid fused multiply-add so every platform computes the same bits.
func aim(x, y, tx, ty, speed float32) (vx, vy float32) {
	dx, dy := tx-x, ty-y
	d2 := float32(dx*dx) + float32(dy*dy)
	if d2 < 1 {
		return -speed, 0
	}
	d := sqrt32(d2)
	return float32(dx*speed) / d, float32(dy*speed) / d
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

func clamp32(x, lo, hi float32) float32 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// approach moves x towards target by at most step.
func approach(x, target, step float32) float32 {
	if x < target {
		if target-x < step {
			return target
		}
		return x + step
	}
	if x-target < step {
		return target
	}
	return x - step
}
