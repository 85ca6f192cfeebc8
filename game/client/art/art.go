// Package art draws every sprite of the game in code (no downloaded art) into plain RGBA images,
// with the anti-aliasing rasterizer of golang.org/x/image/vector. The client converts each image
// once at start-up into an ebiten.Image and scales it to the entity's Size component (virtual px).
// It does not import ebiten, so the sprites can be rendered and checked without a display.
package art

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	xvec "golang.org/x/image/vector"
)

// SlotColors are the ship colours of player slots 0..3 (blue, red, green, yellow). The HUD uses
// the same colours; an automated screenshot check can look for SlotColors[0] to find player 1.
var SlotColors = [4]color.RGBA{
	{60, 160, 255, 255},
	{255, 80, 80, 255},
	{80, 230, 110, 255},
	{255, 210, 60, 255},
}

// EnemyColors are the main body colours of the enemy variants (game.EnemyStraight..EnemyCarrier).
var EnemyColors = [5]color.RGBA{
	{200, 60, 220, 255},  // straight: magenta dart
	{240, 150, 40, 255},  // sine: orange flapper
	{150, 165, 120, 255}, // turret: grey-green dome (never blue-tinted like the stars)
	{230, 50, 50, 255},   // homing: red spiked mine
	{150, 120, 70, 255},  // carrier: olive armour
}

// HUDLineColor is the opaque 2 px line drawn across the whole width at y = 1016..1017 (the top
// of the in-game HUD bar), on top of every entity: a screenshot shows the game (not a menu)
// exactly when that row has this colour.
var HUDLineColor = color.RGBA{80, 100, 160, 255}

// HUDLineY is the first row of the HUD line, in virtual px.
const HUDLineY = 1016

// Canvas is an RGBA image with drawing helpers in sprite-local px.
type Canvas struct {
	Img *image.RGBA
	z   *xvec.Rasterizer
}

// NewCanvas returns a transparent w×h canvas.
func NewCanvas(w, h int) *Canvas {
	return &Canvas{Img: image.NewRGBA(image.Rect(0, 0, w, h)), z: xvec.NewRasterizer(w, h)}
}

func (c *Canvas) fill(col color.RGBA) {
	b := c.Img.Bounds()
	c.z.DrawOp = draw.Over
	c.z.Draw(c.Img, b, image.NewUniform(col), image.Point{})
	c.z.Reset(b.Dx(), b.Dy())
}

// Poly fills a polygon given as x0,y0,x1,y1,... in unit coordinates (0..1 of the canvas size).
func (c *Canvas) Poly(col color.RGBA, pts ...float32) {
	w, h := float32(c.Img.Bounds().Dx()), float32(c.Img.Bounds().Dy())
	c.z.MoveTo(pts[0]*w, pts[1]*h)
	for i := 2; i+1 < len(pts); i += 2 {
		c.z.LineTo(pts[i]*w, pts[i+1]*h)
	}
	c.z.ClosePath()
	c.fill(col)
}

// Ellipse fills an ellipse centred at (cx,cy) with radii rx,ry, in unit coordinates.
func (c *Canvas) Ellipse(col color.RGBA, cx, cy, rx, ry float32) {
	w, h := float32(c.Img.Bounds().Dx()), float32(c.Img.Bounds().Dy())
	const n = 40
	for i := 0; i <= n; i++ {
		a := 2 * math.Pi * float64(i) / n
		x := (cx + rx*float32(math.Cos(a))) * w
		y := (cy + ry*float32(math.Sin(a))) * h
		if i == 0 {
			c.z.MoveTo(x, y)
		} else {
			c.z.LineTo(x, y)
		}
	}
	c.z.ClosePath()
	c.fill(col)
}

// Glow adds a radial gradient centred at (cx,cy) with radius r (unit coordinates of the width),
// alpha falling off as (1-d)^p.
func (c *Canvas) Glow(col color.RGBA, cx, cy, rx, ry float32, p float64) {
	b := c.Img.Bounds()
	w, h := float64(b.Dx()), float64(b.Dy())
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			dx := ((float64(x)+0.5)/w - float64(cx)) / float64(rx)
			dy := ((float64(y)+0.5)/h - float64(cy)) / float64(ry)
			d := math.Sqrt(dx*dx + dy*dy)
			if d >= 1 {
				continue
			}
			a := math.Pow(1-d, p) * float64(col.A) / 255
			src := color.RGBA{uint8(float64(col.R) * a), uint8(float64(col.G) * a), uint8(float64(col.B) * a), uint8(255 * a)}
			dst := c.Img.RGBAAt(x, y)
			inv := 1 - a
			c.Img.SetRGBA(x, y, color.RGBA{
				uint8(math.Min(255, float64(src.R)+float64(dst.R)*inv)),
				uint8(math.Min(255, float64(src.G)+float64(dst.G)*inv)),
				uint8(math.Min(255, float64(src.B)+float64(dst.B)*inv)),
				uint8(math.Min(255, float64(src.A)+float64(dst.A)*inv)),
			})
		}
	}
}

// Shade returns col scaled by f (f<1 darker, f>1 lighter), alpha kept.
func Shade(col color.RGBA, f float64) color.RGBA {
	s := func(v uint8) uint8 {
		x := float64(v) * f
		if f > 1 {
			x = float64(v) + (255-float64(v))*(f-1)
		}
		return uint8(math.Max(0, math.Min(255, x)))
	}
	return color.RGBA{s(col.R), s(col.G), s(col.B), col.A}
}

// Sheet is every pre-rendered sprite. Sprites face the direction they fly (ships right,
// enemies left) and are scaled to the entity's Size when drawn.
type Sheet struct {
	Ship        [4]*image.RGBA // by slot
	Force       [3]*image.RGBA // by level-1
	Shot        [4]*image.RGBA // by game.ShotNormal..ShotForce
	EnemyBullet [2]*image.RGBA // small, big
	Enemy       [5]*image.RGBA // by enemy variant
	Boss        [2]*image.RGBA // big, small
	Weak        [2]*image.RGBA // closed, open
	PowerUp     [2]*image.RGBA // force, laser
	Beam        *image.RGBA    // stretched to the beam's Size
	Glow        *image.RGBA    // white radial glow, tinted for particles, explosions and stars
	Ring        *image.RGBA    // white ring (shock waves)
}

// NewSheet renders every sprite (a few ms).
func NewSheet() *Sheet {
	s := &Sheet{}
	for i := range s.Ship {
		s.Ship[i] = Ship(SlotColors[i])
	}
	for i := range s.Force {
		s.Force[i] = Force(i + 1)
	}
	for i := range s.Shot {
		s.Shot[i] = Shot(i)
	}
	s.EnemyBullet[0] = EnemyBullet(false)
	s.EnemyBullet[1] = EnemyBullet(true)
	for i := range s.Enemy {
		s.Enemy[i] = Enemy(i)
	}
	s.Boss[0] = Boss(360, 560)
	s.Boss[1] = Boss(240, 320)
	s.Weak[0] = Weak(false)
	s.Weak[1] = Weak(true)
	s.PowerUp[0] = PowerUp(false)
	s.PowerUp[1] = PowerUp(true)
	s.Beam = Beam()
	g := NewCanvas(64, 64)
	g.Glow(color.RGBA{255, 255, 255, 255}, 0.5, 0.5, 0.5, 0.5, 2)
	s.Glow = g.Img
	r := NewCanvas(128, 128)
	for y := 0; y < 128; y++ {
		for x := 0; x < 128; x++ {
			d := math.Hypot(float64(x)-63.5, float64(y)-63.5) / 64
			a := math.Max(0, 1-math.Abs(d-0.85)/0.12)
			v := uint8(255 * a)
			r.Img.SetRGBA(x, y, color.RGBA{v, v, v, v})
		}
	}
	s.Ring = r.Img
	return s
}
