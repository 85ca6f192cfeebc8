package art

import (
	"image"
	"image/color"
)

var (
	white  = color.RGBA{255, 255, 255, 255}
	cyan   = color.RGBA{170, 240, 255, 255}
	orange = color.RGBA{255, 140, 30, 255}
	yellow = color.RGBA{255, 235, 120, 255}
)

// Ship renders a player ship facing right (128×64 px) in body colour col.
func Ship(col color.RGBA) *image.RGBA {
	c := NewCanvas(128, 64)
	dark, light := Shade(col, 0.55), Shade(col, 1.45)
	c.Glow(orange, 0.08, 0.5, 0.1, 0.22, 1.2) // engine flame
	// wings
	c.Poly(dark, 0.18, 0.40, 0.40, 0.04, 0.55, 0.06, 0.62, 0.38)
	c.Poly(dark, 0.18, 0.60, 0.40, 0.96, 0.55, 0.94, 0.62, 0.62)
	// hull
	c.Poly(col, 0.06, 0.32, 0.50, 0.22, 0.80, 0.36, 0.99, 0.50, 0.80, 0.64, 0.50, 0.78, 0.06, 0.68)
	c.Poly(light, 0.10, 0.34, 0.50, 0.26, 0.78, 0.38, 0.90, 0.46, 0.50, 0.42, 0.10, 0.44)
	// nozzle
	c.Poly(dark, 0.02, 0.38, 0.10, 0.36, 0.10, 0.64, 0.02, 0.62)
	// cockpit
	c.Ellipse(color.RGBA{20, 40, 70, 255}, 0.64, 0.50, 0.11, 0.09)
	c.Ellipse(cyan, 0.67, 0.47, 0.05, 0.04)
	return c.Img
}

// Force renders the Force pod (64×64): an orange orb whose glow grows with level 1..3.
func Force(level int) *image.RGBA {
	c := NewCanvas(64, 64)
	c.Glow(orange, 0.5, 0.5, 0.3+0.06*float32(level), 0.3+0.06*float32(level), 1.5)
	spike := Shade(orange, 0.6)
	c.Poly(spike, 0.5, 0.02, 0.58, 0.3, 0.42, 0.3)
	c.Poly(spike, 0.5, 0.98, 0.58, 0.7, 0.42, 0.7)
	c.Poly(spike, 0.98, 0.5, 0.7, 0.58, 0.7, 0.42)
	c.Poly(spike, 0.02, 0.5, 0.3, 0.58, 0.3, 0.42)
	c.Ellipse(Shade(orange, 0.8), 0.5, 0.5, 0.3, 0.3)
	c.Ellipse(yellow, 0.5, 0.5, 0.18, 0.18)
	c.Ellipse(white, 0.45, 0.45, 0.07, 0.07)
	return c.Img
}

// Shot renders a player bullet (64×16) by variant: normal, laser1, laser2, force shot.
func Shot(variant int) *image.RGBA {
	c := NewCanvas(64, 16)
	switch variant {
	case 1:
		c.Glow(color.RGBA{80, 200, 255, 255}, 0.5, 0.5, 0.5, 0.5, 1)
		c.Ellipse(cyan, 0.55, 0.5, 0.4, 0.22)
	case 2:
		c.Glow(color.RGBA{60, 160, 255, 255}, 0.5, 0.5, 0.55, 0.6, 0.8)
		c.Poly(cyan, 0.02, 0.35, 0.98, 0.35, 0.98, 0.65, 0.02, 0.65)
		c.Poly(white, 0.05, 0.44, 0.95, 0.44, 0.95, 0.56, 0.05, 0.56)
	case 3:
		c.Glow(orange, 0.5, 0.5, 0.5, 0.6, 1)
		c.Ellipse(yellow, 0.55, 0.5, 0.3, 0.25)
	default:
		c.Glow(color.RGBA{255, 220, 80, 255}, 0.5, 0.5, 0.5, 0.6, 1)
		c.Ellipse(color.RGBA{255, 250, 200, 255}, 0.6, 0.5, 0.32, 0.28)
	}
	return c.Img
}

// EnemyBullet renders a Bydo bullet (32×32): small pink or big red-violet orb.
func EnemyBullet(big bool) *image.RGBA {
	c := NewCanvas(32, 32)
	col := color.RGBA{255, 90, 150, 255}
	if big {
		col = color.RGBA{255, 60, 90, 255}
	}
	c.Glow(col, 0.5, 0.5, 0.5, 0.5, 1.2)
	c.Ellipse(col, 0.5, 0.5, 0.28, 0.28)
	c.Ellipse(white, 0.5, 0.5, 0.13, 0.13)
	return c.Img
}

// Enemy renders a Bydo enemy facing left (96×96) by variant (game.EnemyStraight..EnemyCarrier).
func Enemy(variant int) *image.RGBA {
	c := NewCanvas(96, 96)
	col := EnemyColors[variant%len(EnemyColors)]
	dark, light := Shade(col, 0.5), Shade(col, 1.4)
	eye := color.RGBA{255, 240, 80, 255}
	switch variant {
	case 0: // dart fighter
		c.Poly(dark, 0.55, 0.45, 0.95, 0.08, 0.80, 0.45)
		c.Poly(dark, 0.55, 0.55, 0.95, 0.92, 0.80, 0.55)
		c.Poly(col, 0.04, 0.5, 0.45, 0.28, 0.96, 0.36, 0.96, 0.64, 0.45, 0.72)
		c.Poly(light, 0.12, 0.48, 0.45, 0.32, 0.85, 0.40, 0.45, 0.46)
		c.Ellipse(eye, 0.38, 0.5, 0.08, 0.08)
	case 1: // flapper
		c.Poly(dark, 0.3, 0.45, 0.6, 0.02, 0.8, 0.1, 0.7, 0.45)
		c.Poly(dark, 0.3, 0.55, 0.6, 0.98, 0.8, 0.9, 0.7, 0.55)
		c.Ellipse(col, 0.5, 0.5, 0.38, 0.26)
		c.Ellipse(light, 0.45, 0.42, 0.22, 0.1)
		c.Ellipse(eye, 0.25, 0.5, 0.09, 0.09)
		c.Ellipse(color.RGBA{40, 0, 0, 255}, 0.23, 0.5, 0.04, 0.05)
	case 2: // turret
		c.Poly(dark, 0.05, 0.95, 0.95, 0.95, 0.85, 0.75, 0.15, 0.75)
		c.Ellipse(col, 0.5, 0.72, 0.34, 0.3)
		c.Poly(light, 0.42, 0.55, 0.05, 0.30, 0.10, 0.22, 0.50, 0.48)
		c.Ellipse(color.RGBA{255, 80, 60, 255}, 0.5, 0.62, 0.08, 0.08)
	case 3: // spiked mine
		for i := 0; i < 8; i++ {
			a := float64(i) * 3.14159265 / 4
			x, y := 0.5+0.48*float32(cosf(a)), 0.5+0.48*float32(sinf(a))
			lx, ly := 0.5+0.25*float32(cosf(a+0.35)), 0.5+0.25*float32(sinf(a+0.35))
			rx, ry := 0.5+0.25*float32(cosf(a-0.35)), 0.5+0.25*float32(sinf(a-0.35))
			c.Poly(dark, x, y, lx, ly, rx, ry)
		}
		c.Ellipse(col, 0.5, 0.5, 0.3, 0.3)
		c.Ellipse(light, 0.44, 0.44, 0.12, 0.12)
		c.Ellipse(eye, 0.5, 0.5, 0.1, 0.1)
	default: // armoured carrier
		c.Poly(dark, 0.02, 0.3, 0.2, 0.1, 0.98, 0.1, 0.98, 0.9, 0.2, 0.9, 0.02, 0.7)
		c.Poly(col, 0.08, 0.32, 0.24, 0.16, 0.92, 0.16, 0.92, 0.84, 0.24, 0.84, 0.08, 0.68)
		for i := 0; i < 3; i++ {
			y := 0.24 + 0.2*float32(i)
			c.Poly(light, 0.35, y, 0.88, y, 0.88, y+0.1, 0.35, y+0.1)
		}
		c.Ellipse(eye, 0.18, 0.5, 0.07, 0.1)
	}
	return c.Img
}

// Boss renders a boss body facing left (w×h px): a dark biomechanical hull with ribs and a socket
// for the weak point (drawn separately).
func Boss(w, h int) *image.RGBA {
	c := NewCanvas(w, h)
	body := color.RGBA{110, 40, 80, 255}
	dark, light := Shade(body, 0.5), Shade(body, 1.25)
	c.Poly(dark, 0.15, 0.12, 0.7, 0.0, 1.0, 0.1, 1.0, 0.9, 0.7, 1.0, 0.15, 0.88, 0.0, 0.5)
	c.Ellipse(body, 0.55, 0.5, 0.42, 0.46)
	for i := 0; i < 6; i++ {
		y := 0.14 + 0.13*float32(i)
		c.Poly(light, 0.3, y, 0.9, y-0.03, 0.92, y+0.02, 0.32, y+0.04)
	}
	c.Ellipse(color.RGBA{30, 10, 20, 255}, 0.3, 0.5, 0.16, 0.12)
	c.Poly(Shade(body, 0.7), 0.0, 0.45, 0.2, 0.38, 0.2, 0.62, 0.0, 0.55)
	return c.Img
}

// Weak renders the boss weak point (64×64): a lidded eye, glowing red when open.
func Weak(open bool) *image.RGBA {
	c := NewCanvas(64, 64)
	if open {
		c.Glow(color.RGBA{255, 60, 40, 255}, 0.5, 0.5, 0.5, 0.5, 1)
		c.Ellipse(color.RGBA{255, 220, 200, 255}, 0.5, 0.5, 0.36, 0.3)
		c.Ellipse(color.RGBA{220, 20, 20, 255}, 0.5, 0.5, 0.2, 0.24)
		c.Ellipse(color.RGBA{20, 0, 0, 255}, 0.5, 0.5, 0.06, 0.16)
	} else {
		c.Ellipse(color.RGBA{90, 70, 90, 255}, 0.5, 0.5, 0.38, 0.32)
		c.Poly(color.RGBA{50, 30, 50, 255}, 0.14, 0.48, 0.86, 0.48, 0.86, 0.54, 0.14, 0.54)
	}
	return c.Img
}

// PowerUp renders a capsule (64×64): force (orange core) or laser (blue bar).
func PowerUp(laser bool) *image.RGBA {
	c := NewCanvas(64, 64)
	c.Glow(white, 0.5, 0.5, 0.5, 0.5, 2)
	c.Ellipse(color.RGBA{200, 200, 215, 255}, 0.5, 0.5, 0.38, 0.3)
	c.Ellipse(color.RGBA{60, 60, 80, 255}, 0.5, 0.5, 0.3, 0.22)
	if laser {
		c.Poly(color.RGBA{90, 200, 255, 255}, 0.25, 0.44, 0.75, 0.44, 0.75, 0.56, 0.25, 0.56)
	} else {
		c.Ellipse(orange, 0.5, 0.5, 0.14, 0.14)
		c.Ellipse(yellow, 0.5, 0.5, 0.07, 0.07)
	}
	return c.Img
}

// Beam renders the charged beam (256×64), stretched to the beam's Size: a blue-white spiral core.
func Beam() *image.RGBA {
	c := NewCanvas(256, 64)
	c.Glow(color.RGBA{80, 160, 255, 255}, 0.5, 0.5, 0.6, 0.55, 0.7)
	for i := 0; i < 8; i++ {
		x := 0.06 + 0.12*float32(i)
		c.Ellipse(color.RGBA{150, 210, 255, 255}, x, 0.5, 0.05, 0.3)
	}
	c.Poly(white, 0.0, 0.42, 1.0, 0.44, 1.0, 0.56, 0.0, 0.58)
	return c.Img
}

// Background renders the deep-space backdrop (w×h, drawn scaled to the 1920×1080 playfield):
// a dark blue base with a few soft nebulae. It tiles horizontally (nebulae wrap around the
// left/right edges) so the client can scroll it for a slow parallax.
func Background(w, h int) *image.RGBA {
	c := NewCanvas(w, h)
	base := color.RGBA{5, 7, 20, 255}
	for i := 0; i < len(c.Img.Pix); i += 4 {
		c.Img.Pix[i], c.Img.Pix[i+1], c.Img.Pix[i+2], c.Img.Pix[i+3] = base.R, base.G, base.B, 255
	}
	neb := []struct {
		x, y, r float32
		col     color.RGBA
	}{
		{0.16, 0.23, 0.26, color.RGBA{60, 20, 90, 255}},
		{0.68, 0.74, 0.31, color.RGBA{10, 40, 90, 255}},
		{0.94, 0.19, 0.21, color.RGBA{70, 20, 40, 255}},
		{0.45, 0.35, 0.15, color.RGBA{20, 30, 70, 255}},
	}
	aspect := float32(w) / float32(h) // radii are fractions of the width: scale y to stay round
	for _, n := range neb {
		for _, dx := range []float32{-1, 0, 1} { // wrap around the edges
			col := n.col
			col.A = 90
			c.Glow(col, n.x+dx, n.y, n.r, n.r*aspect, 1.6)
		}
	}
	return c.Img
}
