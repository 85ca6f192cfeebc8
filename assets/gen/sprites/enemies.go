package main

import (
	"image"
	"math"
)

// enemyFrames returns the animation cycle of an enemy variant (game.EnemyStraight ... Midboss).
func enemyFrames(v int) []*image.RGBA {
	var out []*image.RGBA
	n := []int{4, 8, 5, 4, 4, 4, 3, 2, 2, 4, 4}[v]
	for f := 0; f < n; f++ {
		out = append(out, enemy(v, f))
	}
	return out
}

func enemy(v, f int) *image.RGBA {
	r := &enemyRamps[v]
	ff := float64(f)
	switch v {
	case 0: // straight: insectoid fighter, wings flapping
		c := newCanvas(24, 18)
		flap := []float64{0, 2, 3, 1.5}[f]
		c.poly(&steel, 1, 12, 8, 18, 1+flap, 22, 1+flap, 17, 8)
		c.poly(&steel, 1, 12, 10, 18, 17-flap, 22, 17-flap, 17, 10)
		c.poly(r, 2, 1, 9, 7, 5, 16, 5.5, 22, 8, 22, 10, 16, 12.5, 7, 13)
		c.poly(&metal, 1, 14, 6, 21, 8, 21, 10, 14, 12)
		c.ellipse(&eyeYel, 6, 9, 2.2, 1.8)
		c.dot(&eyeRed, 3, 5, 9)
		return c.render()
	case 1: // sine: spinning three-bladed flyer
		c := newCanvas(20, 20)
		a := ff * 2 * math.Pi / 3 / 8
		for i := 0; i < 3; i++ {
			b := a + float64(i)*2*math.Pi/3
			c.poly(r, 1.2, rot(b, 10, 10, 10, 8.5, 18.5, 6, 19, 10, 10, 11.5)...)
		}
		c.ellipse(&steel, 10, 10, 4.5, 4.5)
		c.ellipse(&metal, 10, 10, 3.2, 3.2)
		c.glow(&eyeRed, 10, 10, 1.6+0.4*math.Sin(ff), 1.6+0.4*math.Sin(ff), false)
		return c.render()
	case 2: // turret: dome on a base, cannon angle f of 5 (left ... right over the top)
		c := newCanvas(26, 24)
		a := math.Pi + ff*math.Pi/4 // 180°..360°
		cx, cy := 13.0, 15.0
		c.line(&steel, 4, cx, cy, cx+math.Cos(a)*13, cy+math.Sin(a)*13)
		c.line(&metal, 2, cx, cy, cx+math.Cos(a)*12.5, cy+math.Sin(a)*12.5)
		c.ellipse(r, cx, cy+2, 7.5, 6)
		c.rect(&steel, 1.5, 2, 18, 22, 5)
		c.rect(&metal, 1, 4, 17, 18, 2)
		c.glow(&eyeRed, cx, cy-1, 1.8, 1.5, false)
		return c.render()
	case 3: // homing: spiked kamikaze mine with an eye, spinning
		c := newCanvas(20, 18)
		for i := 0; i < 8; i++ {
			b := ff*math.Pi/16 + float64(i)*math.Pi/4
			c.poly(&metal, 0.8, rot(b, 10, 9, 10+5, 8, 10+9.5, 9, 10+5, 10)...)
		}
		c.ellipse(r, 10, 9, 6, 5.5)
		c.ellipse(&bone, 8.5, 9, 3, 2.6)
		c.glow(&eyeRed, 7.8, 9, 1.5, 1.5, false)
		return c.render()
	case 4: // carrier: armoured transport, hatches opening and closing
		c := newCanvas(34, 28)
		c.poly(r, 3, 2, 12, 8, 4, 30, 4, 33, 8, 33, 20, 30, 24, 8, 24, 2, 16)
		for i := 0; i < 3; i++ {
			x := 11 + float64(i)*7
			c.rect(&steel, 1, x, 7, 5, 14)
			c.rect(r, 1, x+0.5, 7.5, 4, 13)
		}
		open := []float64{0, 2, 4, 2}[f]
		c.rect(&steel, 0.5, 14, 23, 8, 2+open)
		if open > 0 {
			c.glow(&eyeYel, 18, 24+open/2, 3, open/2+0.5, false)
		}
		c.ellipse(&eyeYel, 6, 14, 2, 2.5)
		c.flat(&fire, 3-f%2, 33, 11, 34, 14, 33, 17)
		return c.render()
	case 5: // walker: two-legged walking gun, step f of 4
		c := newCanvas(24, 22)
		ph := ff * math.Pi / 2
		for leg := 0; leg < 2; leg++ {
			p := ph + float64(leg)*math.Pi
			hx, hy := 12.0, 12.0
			fx := 12 + 6*math.Cos(p)
			fy := 21 - math.Max(0, 2.5*math.Sin(p))
			kx := (hx+fx)/2 - 3
			ky := (hy + fy) / 2
			m := &steel
			if leg == 1 {
				m = &metal
			}
			c.line(m, 2.2, hx, hy, kx, ky)
			c.line(m, 2, kx, ky, fx, fy)
			c.rect(m, 0.6, fx-2, fy-1, 5, 1.6)
		}
		c.poly(r, 2, 4, 5, 8, 2, 19, 2, 21, 6, 21, 12, 17, 14, 6, 14, 3, 10)
		c.tube(&steel, 0, 6, 6, 3, false)
		c.ellipse(&eyeYel, 8, 7, 1.8, 1.8)
		return c.render()
	case 6: // hopper: crouch, stretch, jump
		c := newCanvas(20, 18)
		squash := []float64{0.7, 1.0, 1.15}[f]
		h := 8 * squash
		by := 16 - h
		legs := []float64{2, 3, 5}[f]
		c.line(&steel, 2, 6, by+h-1, 3, 17-legs*0.2)
		c.line(&steel, 2, 14, by+h-1, 17, 17-legs*0.2)
		c.ellipse(r, 10, by+h/2+1, 8, h/2+1)
		c.poly(r, 1.2, 4, by+1.5, 13, by+0.5, 16, by+h/2, 6, by+h/2+1)
		c.ellipse(&sick, 10, by+h/2+2.5, 5, h/4+0.5)
		c.glow(&eyeRed, 5, by+h/2, 1.5, 1.5, false)
		c.glow(&eyeRed, 9, by+h/2-1, 1.3, 1.3, false)
		return c.render()
	case 7: // snake head: jaws open/close
		c := newCanvas(24, 24)
		open := ff * 2.5
		c.poly(&bone, 1, 2, 10-open, 10, 7, 12, 11, 3, 11-open*0.2)
		c.poly(&bone, 1, 2, 14+open, 10, 17, 12, 13, 3, 13+open*0.2)
		c.ellipse(r, 14, 12, 9, 8)
		c.ellipse(&flesh, 17, 14, 5, 3.5)
		for i := 0; i < 3; i++ {
			c.ellipse(&sick, 13+float64(i)*3.5, 6.5, 1.6, 1.4)
		}
		c.glow(&eyeYel, 10, 9, 1.8, 1.5, false)
		return c.render()
	case 8: // snake body: a ribbed segment, pulsing
		c := newCanvas(18, 18)
		p := ff * 0.5
		c.ellipse(r, 9, 9, 7.5+p, 7.5-p*0.5)
		c.ellipse(&flesh, 9, 9, 4.5, 4.5)
		c.line(&bone, 1.5, 9, 2, 9, 16)
		c.glow(&sick, 9, 9, 1.5+p, 1.5+p, false)
		return c.render()
	default: // midboss: armoured biomechanical hulk, vents pulsing
		c := newCanvas(70, 62)
		c.poly(&steel, 3, 8, 14, 24, 3, 56, 4, 68, 14, 68, 48, 56, 58, 24, 59, 8, 48, 2, 31)
		c.poly(r, 3, 12, 16, 26, 7, 54, 8, 64, 17, 64, 45, 54, 54, 26, 55, 12, 46, 7, 31)
		for i := 0; i < 4; i++ {
			y := 14 + float64(i)*10
			c.tube(&metal, 34, y, 26, 4, false)
		}
		c.ellipse(&flesh, 20, 31, 10, 12)
		c.ellipse(&bone, 20, 31, 6, 7)
		pulse := []float64{3, 3.6, 4, 3.6}[f]
		c.glow(&eyeRed, 18, 31, pulse, pulse, false)
		c.tube(&steel, 0, 20, 12, 4, false)
		c.tube(&steel, 0, 38, 12, 4, false)
		for i := 0; i < 3; i++ {
			c.glow(&sick, 46+float64(i)*6, 57, 1.5, 1+float64((f+i)%3)*0.4, false)
		}
		return c.render()
	}
}

// capsule draws a power-up, frame f of 4. Crystals (red, blue, yellow) are faceted gems; the B,
// S and M capsules are metal pods showing their letter.
func capsule(v, f int) *image.RGBA {
	c := newCanvas(18, 18)
	if v < 3 {
		cr := &crystalC[v]
		c.poly(cr, 2.5, 9, 1, 16, 9, 9, 17, 2, 9)
		c.flat(cr, 3, 9, 3, 12, 9, 9, 9, 6, 9)
		c.flat(cr, 4, 9, 4, 10, 7, 9, 8, 8, 7)
		sp := [][2]int{{5, 5}, {13, 6}, {12, 13}, {6, 12}}[f]
		c.dot(cr, 4, sp[0], sp[1])
		return c.render()
	}
	c.ellipse(&metal, 9, 9, 8, 7)
	c.ellipse(&steel, 9, 9, 6, 5)
	col := []*ramp{&laserBlu, &eyeYel, &eyeRed}[v-3]
	t := 4
	if f%2 == 1 {
		t = 3
	}
	glyph := glyphs[[]rune{'B', 'S', 'M'}[v-3]]
	for gy, row := range glyph {
		for gx, ch := range row {
			if ch == '#' {
				c.dot(col, t, 7+gx, 6+gy)
			}
		}
	}
	return c.render()
}

// tiny 3×5 glyphs for the capsule letters
var glyphs = map[rune][]string{
	'B': {"## ", "# #", "## ", "# #", "## "},
	'S': {" ##", "#  ", " # ", "  #", "## "},
	'M': {"# #", "###", "###", "# #", "# #"},
}

// boss draws the stage 1 boss body (v 0), the small boss (1) or the wall boss (2), frame f of 2.
func boss(v, f int) *image.RGBA {
	breath := float64(f)
	switch v {
	case 1:
		c := newCanvas(82, 108)
		c.poly(&steel, 4, 20, 6, 60, 2, 80, 20, 80, 88, 60, 106, 20, 102, 4, 70, 2, 38)
		c.poly(&flesh, 4, 24, 10, 58, 7, 75, 23, 75, 85, 58, 100, 24, 98, 9, 68, 8, 40)
		for i := 0; i < 6; i++ {
			y := 18 + float64(i)*13
			c.tube(&bone, 36, y, 34, 5, false)
		}
		c.ellipse(&steel, 26, 54, 14, 14+breath)
		c.ellipse(&sick, 26, 54, 10, 10+breath)
		return c.render()
	case 2:
		c := newCanvas(110, 242)
		c.rect(&brown, 6, 30, 0, 80, 242)
		for i := 0; i < 11; i++ {
			y := 4 + float64(i)*22
			c.poly(&bone, 3, 110, y, 40, y+6+breath, 18, y+12, 40, y+14, 110, y+12)
		}
		c.ellipse(&flesh, 52, 121, 36, 64+breath*2)
		c.ellipse(&sick, 46, 121, 22, 40+breath*2)
		for i := 0; i < 5; i++ {
			y := 70 + float64(i)*25
			c.line(&flesh, 2, 20, y, 60, y+8)
		}
		c.ellipse(&steel, 36, 121, 14, 14)
		return c.render()
	}
	// stage 1: a towering biomechanical alien (head, ribbed torso, arm), facing left
	c := newCanvas(160, 253) // 480×759 virtual px: it fills most of the screen
	k := &scaled{c: c, kx: 160.0 / 122, ky: 253.0 / 188}
	// back armour
	k.poly(&steel, 5, 40, 4, 100, 0, 122, 30, 122, 160, 100, 188, 40, 184, 26, 150, 30, 40)
	// spine plates
	for i := 0; i < 7; i++ {
		y := 16 + float64(i)*24
		k.poly(&metal, 3, 96, y, 121, y+6, 121, y+18, 96, y+22, 88, y+11)
	}
	// torso
	k.poly(&flesh, 6, 36, 30, 90, 20, 104, 60, 104, 130, 90, 170, 40, 168, 22, 120, 20, 70)
	// ribs
	for i := 0; i < 7; i++ {
		y := 44 + float64(i)*16
		k.poly(&bone, 2, 32, y+breath, 88, y-6, 94, y-2, 40, y+6+breath)
	}
	// belly socket (the weak point sits here, drawn separately)
	k.ellipse(&steel, 30, 110, 18, 18+breath)
	k.ellipse(&flesh, 30, 110, 13, 13+breath)
	// head
	k.poly(&sick, 4, 30, 6, 62, 0, 78, 14, 70, 34, 44, 40, 18, 30, 6, 18)
	k.poly(&bone, 2, 6, 18, 18, 22, 30, 30, 16, 32, 2, 26)
	k.glow(&eyeYel, 36, 16, 4, 3, false)
	k.glow(&eyeYel, 52, 12, 3, 2.4, false)
	// arm
	k.line(&steel, 10, 48, 70, 14, 80)
	k.line(&sick, 6, 14, 80, 4, 66)
	k.poly(&bone, 1, 4, 66, 0, 58, 8, 62)
	k.poly(&bone, 1, 4, 66, 0, 72, 8, 70)
	return c.render()
}

// weak draws the weak point: 0 closed, 1 opening, 2 open, 3 open (pulse).
func weak(f int) *image.RGBA {
	c := newCanvas(26, 26)
	c.ellipse(&steel, 13, 13, 12, 11)
	open := []float64{0, 0.45, 1, 1}[f]
	if open > 0 {
		c.ellipse(&bone, 13, 13, 9, 8*open)
		r := 4.5 + float64(f/3)
		c.glow(&eyeRed, 13, 13, r, r*open, false)
		c.flat(&steel, 1, 12.2, 13-5*open, 13.8, 13-5*open, 13.8, 13+5*open, 12.2, 13+5*open)
	}
	lid := 8 * (1 - open)
	if lid > 0.5 {
		c.poly(&flesh, 2, 2, 13-lid, 24, 13-lid, 24, 13, 2, 13)
		c.poly(&flesh, 2, 2, 13, 24, 13, 24, 13+lid, 2, 13+lid)
		c.line(&bone, 1, 3, 13, 23, 13)
	}
	return c.render()
}

// part draws a boss part: 0 tail segment, 1 tail tip, 2 tentacle segment, 3 tentacle tip.
func part(v, f int) *image.RGBA {
	ff := float64(f)
	switch v {
	case 0:
		c := newCanvas(24, 24)
		c.ellipse(&steel, 12, 12, 11, 11)
		c.ellipse(&flesh, 12, 12, 8, 8)
		c.line(&bone, 2, 12, 3, 12, 21)
		c.glow(&sick, 12, 12, 2+ff*0.5, 2+ff*0.5, false)
		return c.render()
	case 1:
		c := newCanvas(26, 26)
		c.ellipse(&steel, 13, 13, 10, 10)
		for i := 0; i < 3; i++ {
			a := math.Pi + (float64(i)-1)*0.6 + ff*0.1
			c.poly(&bone, 1, rot(a, 13, 13, 16, 11, 26, 13, 16, 15)...)
		}
		c.glow(&eyeRed, 13, 13, 3.5, 3.5, false)
		return c.render()
	case 2:
		c := newCanvas(20, 20)
		c.ellipse(&flesh, 10, 10, 9, 8.5-ff*0.5)
		c.ellipse(&sick, 10, 10, 5, 4)
		return c.render()
	}
	c := newCanvas(22, 22)
	c.ellipse(&flesh, 12, 11, 9, 8)
	c.poly(&bone, 1, 5, 6-ff, 0, 11, 5, 16+ff, 8, 11)
	c.glow(&sick, 13, 11, 3, 3, false)
	return c.render()
}

// explosion draws frame f of n of an explosion of radius R (px): a fireball that swells,
// cools from white to red and ends in smoke puffs.
func explosion(R float64, f, n int, seed uint64) *image.RGBA {
	s := int(2*R + 4)
	c := newCanvas(s, s)
	m := float64(s) / 2
	k := float64(f) / float64(n-1)
	rg := rng(seed)
	puffs := 7 + int(R/4)
	for i := 0; i < puffs; i++ {
		a := rg.f() * 2 * math.Pi
		d := rg.f() * R * 0.55 * (0.4 + k)
		pr := R * (0.25 + 0.25*rg.f()) * (0.5 + 0.7*k)
		x, y := m+math.Cos(a)*d, m+math.Sin(a)*d
		if k > 0.55 {
			c.ellipse(&smoke, x, y, pr*(1.2-k*0.4), pr*(1.2-k*0.4))
		} else {
			c.glow(&fire, x, y, pr, pr, false)
		}
	}
	if k < 0.75 {
		core := R * 0.35 * (1 - k)
		c.glow(&eyeYel, m, m, core+1, core+1, true)
	}
	if k > 0.3 { // holes in the cooling cloud
		for i := 0; i < int(k*12); i++ {
			x, y := m+(rg.f()-0.5)*R*1.6, m+(rg.f()-0.5)*R*1.6
			hr := 1 + rg.f()*R*0.15*k
			for yy := int(y - hr); yy <= int(y+hr); yy++ {
				for xx := int(x - hr); xx <= int(x+hr); xx++ {
					if math.Hypot(float64(xx)-x, float64(yy)-y) <= hr {
						c.erase(xx, yy)
					}
				}
			}
		}
	}
	// sparks
	for i := 0; i < 6; i++ {
		a := rg.f() * 2 * math.Pi
		d := R * (0.3 + 0.8*k)
		c.dot(&fire, 4-int(k*2), int(m+math.Cos(a)*d), int(m+math.Sin(a)*d))
	}
	return c.render()
}

// scaled draws on c with every coordinate scaled by (kx, ky) (line widths and bevels by the
// smaller factor): the stage-1 boss is drawn in the coordinates of its first, smaller design.
type scaled struct {
	c      *canvas
	kx, ky float64
}

func (k *scaled) pts(p []float64) []float64 {
	out := make([]float64, len(p))
	for i, v := range p {
		if i%2 == 0 {
			out[i] = v * k.kx
		} else {
			out[i] = v * k.ky
		}
	}
	return out
}

func (k *scaled) poly(m *ramp, bevel float64, p ...float64) {
	k.c.poly(m, bevel*min(k.kx, k.ky), k.pts(p)...)
}

func (k *scaled) ellipse(m *ramp, cx, cy, rx, ry float64) {
	k.c.ellipse(m, cx*k.kx, cy*k.ky, rx*k.kx, ry*k.ky)
}

func (k *scaled) glow(m *ramp, cx, cy, rx, ry float64, noLine bool) {
	k.c.glow(m, cx*k.kx, cy*k.ky, rx*k.kx, ry*k.ky, noLine)
}

func (k *scaled) line(m *ramp, wd, x0, y0, x1, y1 float64) {
	k.c.line(m, wd*min(k.kx, k.ky), x0*k.kx, y0*k.ky, x1*k.kx, y1*k.ky)
}
