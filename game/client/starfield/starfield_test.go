package starfield

import "testing"

func TestDeterministic(t *testing.T) {
	a, b := New(7, DefaultLayers, 50), New(7, DefaultLayers, 50)
	if len(a.Stars) != 200 {
		t.Fatalf("stars %d", len(a.Stars))
	}
	for i := range a.Stars {
		if a.Stars[i] != b.Stars[i] {
			t.Fatal("same seed gave a different sky")
		}
		s := a.Stars[i]
		if s.X < 0 || s.X >= Width || s.Y < 0 || s.Y >= Height {
			t.Fatalf("star off the playfield: %+v", s)
		}
	}
	if New(8, DefaultLayers, 50).Stars[0] == a.Stars[0] {
		t.Fatal("different seed gave the same first star")
	}
}

func TestParallaxNearLayersMoveFaster(t *testing.T) {
	f := &Field{Layers: DefaultLayers}
	const scroll = 100
	prev := float32(0)
	for l := range f.Layers {
		s := Star{X: 1000, Y: 10, Layer: uint8(l)}
		moved := 1000 - f.ScreenX(s, scroll)
		if moved <= prev {
			t.Fatalf("layer %d moved %v px, not more than the farther layer (%v)", l, moved, prev)
		}
		if want := f.Layers[l].Factor * scroll; moved < want-0.01 || moved > want+0.01 {
			t.Fatalf("layer %d moved %v px, want %v", l, moved, want)
		}
		prev = moved
	}
}

func TestWrapAround(t *testing.T) {
	f := &Field{Layers: []Layer{{Factor: 1}}}
	s := Star{X: 10}
	if x := f.ScreenX(s, 20); x != Width-10 {
		t.Fatalf("wrapped x = %v, want %v", x, Width-10)
	}
	if x := f.ScreenX(s, 10+Width*3); x != 0 {
		t.Fatalf("x = %v, want 0", x)
	}
	for _, v := range []float32{-1e-7, -Width, 5 * Width, 1919.9999} {
		if w := Wrap(v); w < 0 || w >= Width {
			t.Fatalf("Wrap(%v) = %v", v, w)
		}
	}
}

func TestTwinkleRange(t *testing.T) {
	for i := 0; i < 500; i++ {
		v := Twinkle(Star{Phase: 0.3}, i)
		if v < 0.6 || v > 1.0001 {
			t.Fatalf("twinkle %v", v)
		}
	}
}
