//go:build display

package client

import (
	"github.com/rtype/rtype/game"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestPlaceTagRegression: the float32 case that froze the client for good (a tag 47.999996 px
// from the placed one after its move, moved to the same x forever).
func TestPlaceTagRegression(t *testing.T) {
	placed := [][2]float32{{-51.073505, 100}}
	x, moves := placeTag(placed, -99.0735+30, 100)
	if moves != 1 || x != placed[0][0]-tagStepW {
		t.Fatalf("placeTag = %v after %d moves, want %v after 1", x, moves, placed[0][0]-tagStepW)
	}
	if x, moves := placeTag(placed, -99.0735, 100); moves != 0 || x != -99.0735 {
		t.Fatalf("a tag 47.999996 px away moved: %v after %d moves", x, moves)
	}
}

// TestPlaceTagRandom places millions of random tag sets as drawGameUI does (up to three other
// players, each placed against the ones before): every placement ends within len(placed) moves
// and leaves the tag clear of every placed one (or, only when rounding is coarser than a pixel,
// at the cap).
func TestPlaceTagRandom(t *testing.T) {
	cases := 2_000_000
	if testing.Short() {
		cases = 200_000
	}
	rng := rand.New(rand.NewPCG(18, 1))
	coord := func() float32 {
		switch rng.IntN(8) {
		case 0: // teammates bunched at the left edge, as in the freeze
			return -60 + rng.Float32()*20
		case 1: // exact multiples of the step: ties at the overlap bound
			return float32(rng.IntN(20)-10) * tagStepW
		case 2:
			return float32(rng.NormFloat64() * 1e6)
		case 3: // the bad floats
			return [...]float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), math.MaxFloat32, -math.MaxFloat32}[rng.IntN(5)]
		default: // on screen
			return -100 + rng.Float32()*1500
		}
	}
	start := time.Now()
	for c := 0; c < cases; c++ {
		var placed [3][2]float32
		n := 0
		for k := 0; k < 1+rng.IntN(4); k++ {
			tx, ty := coord(), float32(0)
			if rng.IntN(2) == 0 {
				ty = rng.Float32() * 30
			}
			x, moves := placeTag(placed[:n], tx, ty)
			if moves > n {
				t.Fatalf("case %d: %d moves against %d placed tags %v (tag %v,%v)", c, moves, n, placed[:n], tx, ty)
			}
			if math.Abs(float64(x)) < 1e6 { // float32 still finer than a pixel here: the tag is clear
				for _, p := range placed[:n] {
					if abs32(p[0]-x) < tagOverlapW && abs32(p[1]-ty) < tagH {
						t.Fatalf("case %d: tag at %v,%v overlaps placed %v (placed %v, wanted %v)", c, x, ty, p, placed[:n], tx)
					}
				}
			}
			if n < len(placed) {
				placed[n] = [2]float32{x, ty}
				n++
			}
		}
	}
	t.Logf("%d tag sets in %v", cases, time.Since(start))
}

// TestTextLoopsEnd: the loops that shorten or wrap text end even when the room is narrower than
// one character (a tiny window, a wide glyph).
func TestTextLoopsEnd(t *testing.T) {
	u := sharedUI()
	for _, width := range []float64{-1, 0, 1, 3} {
		for _, s := range []string{"", "a", "日本語のチャット", "averyveryverylongwordwithoutspaces ok", "é"} {
			done := make(chan []string, 1)
			go func() { done <- wrapText(s, u.small, width) }()
			select {
			case lines := <-done:
				if got := len(lines); got > len(s)+1 {
					t.Errorf("wrapText(%q, %v): %d lines", s, width, got)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("wrapText(%q, %v) did not end", s, width)
			}
			if got := u.clip(s, u.small, width); len(got) > len(s)+len("…") {
				t.Errorf("clip(%q, %v) = %q", s, width, got)
			}
		}
	}
}

// A respawned ship blinks; with reduced flashing it is steadily faded instead (no frame-to-frame
// change in opacity), and a ship that is not invulnerable is always opaque.
func TestShipAlphaReducedFlash(t *testing.T) {
	changes := map[bool]int{}
	for _, calm := range []bool{false, true} {
		prev := shipAlpha(true, calm, 0)
		for f := 1; f < 120; f++ {
			a := shipAlpha(true, calm, f)
			if a != prev {
				changes[calm]++
			}
			prev = a
			if shipAlpha(false, calm, f) != 1 {
				t.Fatalf("calm=%v frame %d: a ship that is not invulnerable is not opaque", calm, f)
			}
		}
	}
	if changes[false] < 20 {
		t.Errorf("the respawn blink changed opacity %d times in 2 s, want ≥ 20 (7.5 Hz)", changes[false])
	}
	if changes[true] != 0 || shipAlpha(true, true, 0) >= 1 {
		t.Errorf("reduced flashing: opacity changed %d times (want 0), alpha %v (want < 1)", changes[true], shipAlpha(true, true, 0))
	}
}

// A ground enemy hangs from the ceiling when it is nearer the ceiling's edge than the floor's,
// also where the ceiling dips below mid-screen (stage 2), not by which half of the screen it is
// in; without terrain, the upper half.
func TestGroundEnemyHangs(t *testing.T) {
	tr := &game.Terrain{Step: 1000, Ceil: []float32{650, 650}, Floor: []float32{100, 100}} // ceiling edge at y 650, floor at 980
	if !hangs(tr, 500, 690) {
		t.Error("an enemy just under a ceiling at y 650 is not hanging")
	}
	if hangs(tr, 500, 950) {
		t.Error("an enemy on the floor is hanging")
	}
	if !hangs(nil, 0, 300) || hangs(nil, 0, 800) {
		t.Error("without terrain: the upper half hangs, the lower stands")
	}
}
