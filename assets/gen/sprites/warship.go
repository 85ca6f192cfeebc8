package main

import (
	"image"
	"math"
)

// Stage 3: the Bydo warship. Its hull is terrain of theme "warship" (tile-warship-*.png): dark
// green-grey armour plates with seams, rivets and rows of lit ports; its engines (enemy/10) and
// its reactor core (boss/3, the finale) are sprites.

var (
	hull     = mkramp(0x05070a, 0x1a2426, 0x34443f, 0x5c6e63, 0x9aae9c) // armour (52,68,63)
	hullDark = mkramp(0x030405, 0x10171a, 0x222d2c, 0x3a4843, 0x60726a)
	engineR  = mkramp(0x0c1014, 0x2e3c46, 0x56707c, 0x8ca8b4, 0xd4ecf4) // engine: steel blue (86,112,124)
	plasma   = mkramp(0x001030, 0x1050c0, 0x40c0ff, 0xb0f0ff, 0xffffff)
)

// warshipFill is the hull's 96×64 armour: staggered strakes of plates of several lengths, a
// vent grille, a few lit ports, rivets at the plate corners and a Bydo growth in one seam. It is
// big (288×192 virtual px) so that the hull does not read as a wall of small tiles.
func warshipFill() *image.RGBA {
	type plate struct{ x, y, w, h float64 }
	plates := []plate{
		{1, 1, 46, 14}, {49, 1, 30, 14}, {81, 1, 14, 14},
		{1, 17, 22, 14}, {25, 17, 40, 14}, {67, 17, 28, 14},
		{1, 33, 34, 14}, {37, 33, 20, 14}, {59, 33, 36, 14},
		{1, 49, 14, 14}, {17, 49, 44, 14}, {63, 49, 32, 14},
	}
	return tile(96, 64, true, func(c *canvas, ox, oy float64) {
		c.rect(&hullDark, 0, ox, oy, 96, 64)
		for i, p := range plates {
			m := &hull
			if i%5 == 3 {
				m = &hullDark // a darker replacement plate here and there
			}
			c.rect(m, 2, ox+p.x, oy+p.y, p.w, p.h)
			for _, q := range [][2]float64{{p.x + 2, p.y + 2}, {p.x + p.w - 3, p.y + 2}, {p.x + 2, p.y + p.h - 3}, {p.x + p.w - 3, p.y + p.h - 3}} {
				c.ellipse(&steel, ox+q[0]+0.5, oy+q[1]+0.5, 0.8, 0.8)
			}
		}
		for i := 0; i < 5; i++ { // vent grille
			c.rect(&steel, 0.5, ox+29+float64(i)*6, oy+20, 3, 8)
		}
		for i := 0; i < 3; i++ { // ports
			c.glow(&eyeYel, ox+64+float64(i)*5, oy+40, 0.9, 0.8, true)
		}
		c.ellipse(&sick, ox+16, oy+48, 3, 1.6) // a Bydo growth creeping along a seam
		c.ellipse(&sick, ox+20, oy+48.5, 2, 1.2)
	})
}

// warshipLip is the hull's edge: an armoured rail with red warning lights.
func warshipLip() *image.RGBA {
	return tile(32, 10, false, func(c *canvas, ox, oy float64) {
		c.rect(&hullDark, 0.5, ox, oy+5, 32, 5)
		c.tube(&metal, ox, oy+1, 32, 4, false)
		c.rect(&steel, 0.5, ox+10, oy+5, 12, 3)
		c.glow(&eyeRed, ox+4, oy+7, 1.2, 1, false)
		c.glow(&eyeRed, ox+28, oy+7, 1.2, 1, false)
	})
}

// engine draws a warship engine pod, frame f of 4: a ribbed cylinder bolted to the hull with a
// nozzle at its left end whose plasma pulses.
func engine(f int) *image.RGBA {
	c := newCanvas(56, 40)
	ff := float64(f)
	c.rect(&hullDark, 2, 14, 2, 40, 36) // mounting
	c.poly(&engineR, 3, 10, 6, 48, 4, 54, 10, 54, 30, 48, 36, 10, 34)
	for i := 0; i < 5; i++ {
		x := 16 + float64(i)*7
		c.tube(&steel, x, 6, 3, 28, true)
	}
	c.ellipse(&steel, 10, 20, 9, 15)
	c.ellipse(&hullDark, 9, 20, 6.5, 11.5)
	r := 4.5 + 0.8*math.Sin(ff*math.Pi/2)
	c.glow(&plasma, 8, 20, r, r*1.8, false)
	c.glow(&eyeRed, 44, 10, 1.5, 1.2, false)
	c.glow(&eyeRed, 44, 30, 1.5, 1.2, false)
	return c.render()
}

// core draws the warship's reactor core (boss/3), frame f of 2: the stern tower of the hull,
// armour ribs, conduits and the reactor socket (the weak point sits in it, drawn separately) on
// its left face, the exhausts on its right.
func core(f int) *image.RGBA {
	c := newCanvas(140, 254)
	b := float64(f)
	// the tower: a stepped armour silhouette, widest in the middle
	c.poly(&hullDark, 5, 40, 0, 120, 0, 140, 30, 140, 224, 120, 254, 40, 254, 20, 200, 8, 150, 4, 127, 8, 104, 20, 54)
	c.poly(&hull, 5, 44, 6, 116, 6, 132, 34, 132, 220, 116, 248, 44, 248, 28, 198, 16, 150, 12, 127, 16, 104, 28, 56)
	// armour ribs
	for i := 0; i < 9; i++ {
		y := 20 + float64(i)*26
		c.poly(&steel, 2, 56, y, 128, y-4, 132, y+6, 60, y+10)
	}
	// conduits to the reactor
	for _, y := range []float64{60, 92, 162, 194} {
		c.line(&metal, 4, 16+math.Abs(127-y)*0.15, y, 70, 127+(y-127)*0.4)
	}
	// reactor socket
	c.ellipse(&steel, 30, 127, 26, 34+b)
	c.ellipse(&hullDark, 30, 127, 20, 27+b)
	c.glow(&plasma, 30, 127, 9+b, 12+b, false)
	// gun barrels, antenna, exhausts
	c.tube(&metal, 0, 40, 30, 5, false)
	c.tube(&metal, 0, 214, 30, 5, false)
	c.line(&steel, 2, 80, 6, 70, 0)
	for i := 0; i < 4; i++ {
		y := 70 + float64(i)*38
		c.glow(&fire, 136, y, 2.5, 3+b, false)
	}
	for i := 0; i < 6; i++ {
		c.glow(&eyeRed, 96, 30+float64(i)*40, 1.4, 1.2, false)
	}
	return c.render()
}
