package session

import (
	"math/rand/v2"
	"testing"
)

func TestInterpolatorBetweenSamples(t *testing.T) {
	var ip Interpolator
	ip.Add(3, 1, 10, 100, 200, 0)
	ip.Add(3, 1, 12, 110, 220, 0)
	cases := []struct {
		rt   float64
		x, y float32
	}{
		{9, 100, 200},  // before the first: hold the first
		{10, 100, 200}, // on a sample
		{11, 105, 210}, // halfway
		{12, 110, 220}, // newest
		{20, 110, 220}, // past the newest: hold, never extrapolate
	}
	for _, c := range cases {
		x, y, ok := ip.At(3, 1, c.rt)
		if !ok || x != c.x || y != c.y {
			t.Errorf("At(%v) = %v,%v,%v want %v,%v", c.rt, x, y, ok, c.x, c.y)
		}
	}
	if _, _, ok := ip.At(3, 2, 11); ok {
		t.Errorf("another generation of the same index must have no samples")
	}
	if _, _, ok := ip.At(4, 1, 11); ok {
		t.Errorf("unknown index must have no samples")
	}
}

func TestInterpolatorOutOfOrderAndGap(t *testing.T) {
	var ip Interpolator
	ip.Add(0, 1, 10, 0, 0, 2)
	ip.Add(0, 1, 14, 40, 0, 2) // gap of 4 ticks > 2: a hold sample at tick 12 is inserted
	if x, _, _ := ip.At(0, 1, 11); x != 0 {
		t.Errorf("entity idle until tick 12 drifted: x=%v at tick 11", x)
	}
	if x, _, _ := ip.At(0, 1, 13); x != 20 {
		t.Errorf("x at 13 = %v, want 20", x)
	}
	ip.Add(0, 1, 16, 60, 0, 2)
	ip.Add(0, 1, 15, 50, 0, 2) // late sample inserted in order
	if x, _, _ := ip.At(0, 1, 15.5); x != 55 {
		t.Errorf("x at 15.5 = %v, want 55", x)
	}
}

// Remote entity positions drawn are monotonic along their path at 30 Hz snapshots with 20 ms of
// jitter (issue: no back-steps): snapshots of an entity moving right at 300 px/s arrive every 2
// ticks with ±20 ms jitter; the renderer samples at 60 fps through the RenderClock.
func TestInterpolationMonotonicUnderJitter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type arrival struct {
		at   float64 // seconds
		tick uint32
	}
	var arr []arrival
	for tick := uint32(2); tick < 600; tick += 2 {
		at := float64(tick)/60 + 0.05 + (rng.Float64()*2-1)*0.020
		arr = append(arr, arrival{at, tick})
	}
	var ip Interpolator
	var clock RenderClock
	newest := uint32(0)
	newestAt := 0.0
	last := float32(-1)
	next := 0
	for frame := 0; frame < 600; frame++ {
		now := float64(frame) / 60
		for next < len(arr) && arr[next].at <= now {
			a := arr[next]
			next++
			ip.Add(7, 1, a.tick, float32(a.tick)*5, 540, 2)
			if a.tick > newest {
				newest, newestAt = a.tick, a.at
			}
		}
		if newest == 0 {
			continue
		}
		est := float64(newest) + (now-newestAt)*60
		rt := clock.Advance(1.0/60, est-6)
		x, _, ok := ip.At(7, 1, rt)
		if !ok {
			t.Fatal("no position")
		}
		if x < last {
			t.Fatalf("frame %d: x stepped back from %v to %v", frame, last, x)
		}
		last = x
	}
	if last < 2000 {
		t.Errorf("entity did not advance along its path: x=%v", last)
	}
}

func TestRenderClockNeverStepsBack(t *testing.T) {
	var c RenderClock
	prev := c.Advance(0, 100)
	for i := 0; i < 300; i++ {
		target := 100 + float64(i) + float64(i%7) - 3 // noisy target
		v := c.Advance(1.0/60, target)
		if v < prev {
			t.Fatalf("step %d: clock went back %v -> %v", i, prev, v)
		}
		prev = v
	}
}

// A spawn appears when the render clock reaches its first sample, not as soon as it arrives.
func TestInterpolatorUnbornUntilFirstSample(t *testing.T) {
	var ip Interpolator
	ip.Add(2, 1, 100, 10, 10, 4)
	if !ip.Unborn(2, 1, 94) {
		t.Error("an entity first seen at tick 100 is drawn at render tick 94")
	}
	if ip.Unborn(2, 1, 100) || ip.Unborn(2, 1, 120) {
		t.Error("an entity is hidden after its first sample")
	}
	if ip.Unborn(3, 1, 0) {
		t.Error("an entity without samples is reported unborn")
	}
}
