// Package starfield computes the parallax star background: several layers of stars, each layer
// scrolling at its own fraction of the stage scroll (the stage singleton's Position X, virtual px), wrapped
// around the 1920 px wide playfield. It is pure maths (no ebiten) so it is unit-tested; the client
// draws each star at ScreenX/Y.
package starfield

import "math"

// Width and Height are the virtual playfield size in px (game.Width, game.Height).
const Width, Height = 1920, 1080

// Layer is one parallax plane.
type Layer struct {
	Factor     float32 // screen px moved per px of stage scroll (far layers < 1, near layers >= 1)
	Size       float32 // star radius in virtual px
	Brightness float32 // 0..1
}

// DefaultLayers are four planes from far and dim to near and bright.
var DefaultLayers = []Layer{
	{Factor: 0.12, Size: 1.2, Brightness: 0.35},
	{Factor: 0.3, Size: 1.6, Brightness: 0.55},
	{Factor: 0.65, Size: 2.2, Brightness: 0.8},
	{Factor: 1.4, Size: 3.0, Brightness: 1},
}

// Star is one star at its unscrolled position (virtual px).
type Star struct {
	X, Y  float32
	Layer uint8
	Phase float32 // 0..1, twinkle phase
}

// Field is a deterministic star field.
type Field struct {
	Layers []Layer
	Stars  []Star
}

// New places perLayer stars on each layer from seed (the same seed always gives the same sky).
func New(seed uint64, layers []Layer, perLayer int) *Field {
	f := &Field{Layers: layers, Stars: make([]Star, 0, perLayer*len(layers))}
	s := seed | 1
	next := func() float32 { // xorshift64*
		s ^= s >> 12
		s ^= s << 25
		s ^= s >> 27
		return float32((s*2685821657736338717)>>40) / float32(1<<24)
	}
	for l := range layers {
		for i := 0; i < perLayer; i++ {
			f.Stars = append(f.Stars, Star{X: next() * Width, Y: next() * Height, Layer: uint8(l), Phase: next()})
		}
	}
	return f
}

// Wrap maps x into [0, Width).
func Wrap(x float32) float32 {
	x = float32(math.Mod(float64(x), Width))
	if x < 0 {
		x += Width
	}
	if x >= Width { // float rounding of a tiny negative
		x = 0
	}
	return x
}

// ScreenX is where star s is drawn for a stage scroll (px): its layer moves left by
// Factor*scroll, wrapping around the screen.
func (f *Field) ScreenX(s Star, scroll float32) float32 {
	return Wrap(s.X - f.Layers[s.Layer].Factor*scroll)
}

// Twinkle is the brightness multiplier (0.6..1) of star s at frame t (60 Hz frames).
func Twinkle(s Star, t int) float32 {
	return 0.8 + 0.2*float32(math.Sin(2*math.Pi*(float64(s.Phase)+float64(t)/97.0)))
}
