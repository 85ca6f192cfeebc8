package wire

import (
	"math"
	"testing"
)

// Motion rounds to the nearest 1/8 px and 1/16 px/s, decodes to exactly what QuantizeMotion
// predicts, and refuses values out of its range instead of wrapping them.
func TestMotionQuantization(t *testing.T) {
	cases := []struct {
		x, y, vx, vy     float32
		wx, wy, wvx, wvy float32
		ok               bool
	}{
		{100.5, 200.25, -300, 12.5, 100.5, 200.25, -300, 12.5, true},
		{1.06, -0.07, 339.411, -0.03, 1.0, -0.125, 339.4375, 0, true}, // -0.48 units round to 0
		{4095.875, -4096, 2047.9375, -2048, 4095.875, -4096, 2047.9375, -2048, true},
		{4096, 0, 0, 0, 0, 0, 0, 0, false},
		{0, 0, 2048, 0, 0, 0, 0, 0, false},
		{float32(math.NaN()), 0, 0, 0, 0, 0, 0, 0, false},
		{0, 0, 0, float32(math.Inf(-1)), 0, 0, 0, 0, false},
	}
	for _, c := range cases {
		qx, qy, qvx, qvy, ok := QuantizeMotion(c.x, c.y, c.vx, c.vy)
		b, ok2 := AppendMotion(nil, c.x, c.y, c.vx, c.vy)
		if ok != c.ok || ok2 != c.ok {
			t.Errorf("%v: ok %v/%v, want %v", c, ok, ok2, c.ok)
			continue
		}
		if !ok {
			if len(b) != 0 {
				t.Errorf("%v: appended % x out of range", c, b)
			}
			continue
		}
		if qx != c.wx || qy != c.wy || qvx != c.wvx || qvy != c.wvy {
			t.Errorf("%v: quantized to %v %v %v %v", c, qx, qy, qvx, qvy)
		}
		x, y, vx, vy := ParseMotion(b)
		if len(b) != 8 || x != qx || y != qy || vx != qvx || vy != qvy {
			t.Errorf("%v: decoded %v %v %v %v from % x", c, x, y, vx, vy, b)
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		var buf [8]byte
		b, _ := AppendMotion(buf[:0], 1, 2, 3, 4)
		_, _, _, _ = ParseMotion(b)
	}); n != 0 {
		t.Errorf("Motion encode+decode allocates %v times", n)
	}
}
