package main

import (
	"image"
	"math"
)

// Every sprite is drawn in low-resolution pixels (1 px = Scale virtual px), centred on the
// entity's position. Ships face right, enemies left.

// ship draws a player ship; bank -2..2 (negative: climbing, the upper wing foreshortens).
func ship(r *ramp, bank float64) *image.RGBA {
	c := newCanvas(36, 18)
	cy := 9.0 + bank*0.25
	wt, wb := 4.0+bank*0.9, 4.0-bank*0.9
	sq := 1 - math.Abs(bank)*0.08 // hull seen edge-on while banking
	// wings (behind the hull)
	c.poly(&steel, 1.2, 6, cy-2, 11, cy-2-wt, 17, cy-2-wt, 20, cy-2)
	c.poly(&steel, 1.2, 6, cy+2, 11, cy+2+wb, 17, cy+2+wb, 20, cy+2)
	c.poly(r, 1, 8, cy-2, 12, cy-1.5-wt, 15.5, cy-1.5-wt, 17, cy-2)
	c.poly(r, 1, 8, cy+2, 12, cy+1.5+wb, 15.5, cy+1.5+wb, 17, cy+2)
	// engine block and nozzles
	c.rect(&metal, 1.5, 2, cy-3.5*sq, 8, 7*sq)
	c.rect(&steel, 0.8, 0, cy-2.5*sq, 3, 2)
	c.rect(&steel, 0.8, 0, cy+0.5*sq, 3, 2)
	// hull
	c.poly(r, 2.2, 7, cy-3.5*sq, 16, cy-4*sq, 24, cy-3*sq, 31, cy-1.2*sq, 35, cy, 31, cy+1.5*sq, 24, cy+3*sq, 16, cy+3.5*sq, 7, cy+3.5*sq)
	c.poly(&metal, 0.8, 9, cy+1*sq, 26, cy+1.2*sq, 24, cy+2.4*sq, 9, cy+2.6*sq)
	// canopy
	c.ellipse(&canopy, 21, cy-2.2*sq, 4.5, 1.9*sq)
	c.dot(&canopy, 4, 20, int(cy-3*sq))
	// nose tip and panel lights
	c.dot(&eyeYel, 3, 33, int(cy))
	c.dot(&eyeRed, 3, 11, int(cy-2))
	return c.render()
}

// flame is the ship's thruster plume, frame f of 3.
func flame(f int) *image.RGBA {
	c := newCanvas(10, 6)
	l := []float64{7, 9, 5.5}[f]
	c.flat(&fire, 2, 10, 0.8, 10, 5.2, 10-l, 3)
	c.flat(&fire, 3, 10, 1.6, 10, 4.4, 10-l*0.7, 3)
	c.flat(&fire, 4, 10, 2.4, 10, 3.6, 10-l*0.4, 3)
	return c.render()
}

// force draws the Force at level 1..3, animation frame f of 4.
func force(level, f int) *image.RGBA {
	s := 16 + 4*level
	c := newCanvas(s, s)
	m := float64(s) / 2
	R := 4.5 + float64(level)
	spin := float64(f) * math.Pi / 8
	// claws
	n := 2 * level
	for i := 0; i < n; i++ {
		a := spin + float64(i)*2*math.Pi/float64(n)
		pts := rot(a, m, m, m+R-1, m-2, m+R+2.5+float64(level)*0.6, m, m+R-1, m+2)
		c.poly(&metal, 1, pts...)
	}
	c.ellipse(&steel, m, m, R+0.8, R+0.8)
	c.glow(&forceR, m, m, R-0.6, R-0.6, false)
	pulse := []float64{0.45, 0.55, 0.6, 0.5}[f]
	c.glow(&fire, m, m, R*pulse, R*pulse, true)
	hx, hy := m+math.Cos(spin*2-2.2)*(R-2), m+math.Sin(spin*2-2.2)*(R-2)
	c.dot(&fire, 4, int(hx), int(hy))
	return c.render()
}

// bit draws a Bit, frame f of 4.
func bit(f int) *image.RGBA {
	c := newCanvas(14, 14)
	c.ellipse(&steel, 7, 7, 6, 6)
	c.glow(&forceR, 7, 7, 4, 4, false)
	a := float64(f) * math.Pi / 4
	c.line(&metal, 1.6, 7-math.Cos(a)*6, 7-math.Sin(a)*6, 7+math.Cos(a)*6, 7+math.Sin(a)*6)
	c.glow(&fire, 7, 7, 1.8, 1.8, true)
	return c.render()
}

func shotNormal(f int) *image.RGBA {
	c := newCanvas(13, 5)
	c.flat(&eyeYel, 2, 0, 2.5, 5, 0.5, 13, 1.5, 13, 3.5, 5, 4.5)
	c.flat(&eyeYel, 3+f%2, 3, 2.5, 7, 1.5, 12.5, 2, 12.5, 3, 7, 3.5)
	return c.render()
}

func shotForce(f int) *image.RGBA {
	c := newCanvas(10, 6)
	c.glow(&fire, 5.5, 3, 4.5-float64(f)*0.4, 2.6, false)
	c.flat(&fire, 1, 0, 3, 2, 2, 2, 4)
	return c.render()
}

func shotMissile(f int) *image.RGBA {
	c := newCanvas(12, 5)
	c.flat(&fire, 3-f, 0, 2.5, 3, 1, 3, 4)
	c.tube(&metal, 3, 1, 6, 3, false)
	c.poly(&eyeRed, 0.6, 9, 1, 12, 2.5, 9, 4)
	c.poly(&steel, 0.5, 3, 0, 5, 1, 5, 4, 3, 5)
	return c.render()
}

// helix draws the red laser at level 1..3, frame f of 4: two twisting ribbons.
func helix(level, f int) *image.RGBA {
	w, h := []int{0, 22, 27, 32}[level], []int{0, 10, 14, 19}[level]
	c := newCanvas(w, h)
	A := float64(h)/2 - 1.5
	lam := float64(w) / 1.5
	for strand := 0; strand < 2; strand++ {
		for x := 0; x < w; x++ {
			ph := 2*math.Pi*float64(x)/lam + float64(f)*math.Pi/2 + float64(strand)*math.Pi
			y := float64(h)/2 + A*math.Sin(ph)
			front := math.Cos(ph) > 0
			t := 2
			if front {
				t = 4
			}
			th := 1 + level/2
			for d := 0; d < th+1; d++ {
				c.dot(&laserRed, max(1, t-d), x, int(y)+d-th/2)
			}
		}
	}
	return c.render()
}

// bar draws the blue (reflecting) laser at level 1..3, frame f of 2.
func bar(level, f int) *image.RGBA {
	w, h := []int{0, 14, 18, 22}[level], []int{0, 4, 6, 7}[level]
	c := newCanvas(w, h)
	fh := float64(h)
	c.flat(&laserBlu, 2, 0, fh/2, 2, 0, float64(w)-1, 0, float64(w), fh/2, float64(w)-1, fh, 2, fh)
	c.flat(&laserBlu, 3, 1, fh/2, 3, fh*0.25, float64(w)-2, fh*0.25, float64(w)-1, fh/2, float64(w)-2, fh*0.75, 3, fh*0.75)
	c.flat(&laserBlu, 4, 3+float64(f), fh/2-0.6, float64(w)-3, fh/2-0.6, float64(w)-3, fh/2+0.6, 3+float64(f), fh/2+0.6)
	return c.render()
}

// crawler draws the yellow (ground) laser at level 1..3, frame f of 3: a zig-zag wave.
func crawler(level, f int) *image.RGBA {
	w, h := []int{0, 12, 15, 18}[level], []int{0, 5, 6, 8}[level]
	c := newCanvas(w, h)
	for x := 0; x < w; x++ {
		y := float64(h)/2 + (float64(h)/2-1)*math.Sin(float64(x)*1.3+float64(f)*2.1)
		for d := -1; d <= 1; d++ {
			c.dot(&laserYel, 4-abs(d)-(x*2/w), x, int(y)+d)
		}
	}
	return c.render()
}

// beam draws the wave-cannon beam at level 1..3, frame f of 4.
func beam(level, f int) *image.RGBA {
	w, h := []int{0, 40, 67, 100}[level], []int{0, 8, 15, 24}[level]
	c := newCanvas(w, h)
	fh, fw := float64(h), float64(w)
	c.flat(&beamR, 2, 0, fh*0.3, fw-3, fh*0.1, fw, fh/2, fw-3, fh*0.9, 0, fh*0.7)
	c.flat(&beamR, 3, 0, fh*0.4, fw-4, fh*0.28, fw-1, fh/2, fw-4, fh*0.72, 0, fh*0.6)
	c.flat(&beamR, 4, 0, fh*0.46, fw-6, fh*0.42, fw-2, fh/2, fw-6, fh*0.58, 0, fh*0.54)
	// coils
	step := fh * 0.9
	for x := -step + math.Mod(float64(f)*step/4, step); x < fw-4; x += step {
		for y := 0; y < h; y++ {
			u := (float64(y) + 0.5) / fh
			cx := x + math.Sin(u*math.Pi)*step*0.5
			if cx >= 0 && cx < fw-3 {
				c.dot(&beamR, 4, int(cx), y)
				c.dot(&beamR, 3, int(cx)+1, y)
			}
		}
	}
	return c.render()
}

func enemyBullet(big bool, f int) *image.RGBA {
	s, r := 8, 3.0
	if big {
		s, r = 10, 4.2
	}
	c := newCanvas(s, s)
	m := float64(s) / 2
	c.glow(&bulletR, m, m, r, r, false)
	a := float64(f) * math.Pi / 2
	c.dot(&bulletR, 4, int(m+math.Cos(a)*r*0.5), int(m+math.Sin(a)*r*0.5))
	c.dot(&bulletR, 1, int(m-math.Cos(a)*r*0.6), int(m-math.Sin(a)*r*0.6))
	return c.render()
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
