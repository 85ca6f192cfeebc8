//go:build display

package client

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"
)

// TestFitLetterboxes: the 16:9 playfield fills a 16:9 window and is centred with bars in
// any other.
func TestFitLetterboxes(t *testing.T) {
	for _, c := range []struct {
		w, h      int
		k, ox, oy float32
	}{
		{1280, 720, 2.0 / 3, 0, 0},
		{1920, 1080, 1, 0, 0},
		{1920, 1200, 1, 0, 60},  // 16:10: bars top and bottom
		{2560, 1080, 1, 320, 0}, // ultrawide: bars left and right
	} {
		v := fit(c.w, c.h)
		if math.Abs(float64(v.k-c.k)) > 1e-6 || v.ox != c.ox || v.oy != c.oy {
			t.Errorf("fit(%d,%d) = %+v, want k=%v ox=%v oy=%v", c.w, c.h, v, c.k, c.ox, c.oy)
		}
	}
}

// TestPixelsStayWhole: a source pixel always covers a whole number of screen pixels (crisp
// pixel art and text at any window size), at least one, and mirroring is kept.
func TestPixelsStayWhole(t *testing.T) {
	v := fit(1280, 720)
	for _, c := range []struct{ s, want float32 }{{3, 2}, {4, 3}, {8, 5}, {-3, -2}, {0.5, 1}, {1, 1}} {
		if got := v.pix(c.s); got != c.want {
			t.Errorf("pix(%v) at 1280x720 = %v, want %v", c.s, got, c.want)
		}
	}
	if got := (xf{k: 1.0 / 3}).pix(3); got != 1 {
		t.Errorf("world image: an art pixel is %v px, want 1", got)
	}
}

// recSurface records where each glyph lands.
type recSurface struct {
	nullSurface
	at []image.Point
}

func (s *recSurface) DrawImage(img *ebiten.Image, op *ebiten.DrawImageOptions) {
	s.at = append(s.at, image.Pt(int(op.GeoM.Element(0, 2)), int(op.GeoM.Element(1, 2))))
}

// TestTextAlignment: text is placed on whole screen pixels and centred / right-aligned on x by
// its measured width, at the window's scale; a rune the font lacks still takes a glyph.
func TestTextAlignment(t *testing.T) {
	u := sharedUI()
	defer func(old xf) { u.xf = old }(u.xf)
	u.xf = fit(1280, 720)
	w := u.textWidth("HELLO", u.small) // virtual px
	if w <= 0 {
		t.Fatal("no width")
	}
	for _, c := range []struct {
		al    align
		start float64 // virtual x of the first glyph
	}{{alignStart, 960}, {alignCenter, 960 - w/2}, {alignEnd, 960 - w}} {
		s := &recSurface{}
		u.text(s, "HELLO", u.small, 960, 300, c.al, color.RGBA{255, 255, 255, 255})
		if len(s.at) != 5 {
			t.Fatalf("%d glyphs drawn, want 5", len(s.at))
		}
		wantX := int(math.Round(c.start * 2 / 3))
		if d := s.at[0].X - wantX; d < -1 || d > 1 {
			t.Errorf("align %d: first glyph at x=%d, want %d", c.al, s.at[0].X, wantX)
		}
		if s.at[0].Y != 200 {
			t.Errorf("align %d: top at y=%d, want 200", c.al, s.at[0].Y)
		}
	}
	s := &recSurface{}
	u.text(s, "a€b", u.small, 0, 0, alignStart, color.RGBA{255, 255, 255, 255})
	if len(s.at) != 3 {
		t.Errorf("%d glyphs for \"a€b\", want 3 (a replacement for €)", len(s.at))
	}
}
