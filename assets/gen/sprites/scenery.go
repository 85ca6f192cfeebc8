package main

import (
	"image"
	"image/color"
	"image/draw"
	"math"
)

// tile renders a seamlessly repeating w×h tile: fn draws once per copy offset on a 3×3 canvas
// and the centre is kept.
func tile(w, h int, wrapY bool, fn func(c *canvas, ox, oy float64)) *image.RGBA {
	c := newCanvas(3*w, 3*h)
	for _, oy := range []float64{0, float64(h), float64(2 * h)} {
		if !wrapY && oy != float64(h) {
			continue
		}
		for _, ox := range []float64{0, float64(w), float64(2 * w)} {
			fn(c, ox, oy)
		}
	}
	full := c.render()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(out, out.Bounds(), full, image.Pt(w, h), draw.Src)
	return out
}

// terrainFill is the repeating 32×32 texture inside the ceiling, floor and blocks of a theme.
func terrainFill(theme int) *image.RGBA {
	if theme == 2 {
		return warshipFill()
	}
	if theme == 0 { // base: riveted metal plates, a pipe, dark seams
		return tile(32, 32, true, func(c *canvas, ox, oy float64) {
			c.rect(&steel, 0, ox, oy, 32, 32)
			c.rect(&metal, 2, ox+1, oy+1, 15, 14)
			c.rect(&metal, 2, ox+17, oy+1, 14, 14)
			c.rect(&steel, 1.5, ox+1, oy+17, 30, 5)
			c.tube(&metal, ox, oy+23, 32, 5, false)
			for _, p := range [][2]float64{{3, 3}, {13, 3}, {3, 12}, {13, 12}, {19, 3}, {28, 3}, {19, 12}, {28, 12}} {
				c.ellipse(&metal, ox+p[0]+0.5, oy+p[1]+0.5, 1.1, 1.1)
			}
			c.rect(&steel, 0.5, ox+8, oy+29, 3, 3)
			c.rect(&steel, 0.5, ox+24, oy+29, 3, 3)
		})
	}
	// organic: flesh with bumps, veins and bone
	return tile(32, 32, true, func(c *canvas, ox, oy float64) {
		c.rect(&flesh, 0, ox, oy, 32, 32)
		rg := rng(99)
		for i := 0; i < 9; i++ {
			x, y, r := rg.f()*32, rg.f()*32, 2+rg.f()*4
			c.ellipse(&flesh, ox+x, oy+y, r, r*0.8)
		}
		c.line(&brown, 1.3, ox+0, oy+8, ox+12, oy+14)
		c.line(&brown, 1.3, ox+12, oy+14, ox+32, oy+8)
		c.line(&brown, 1, ox+12, oy+14, ox+16, oy+26)
		c.ellipse(&bone, ox+24, oy+24, 4, 2.5)
		c.ellipse(&sick, ox+6, oy+24, 2, 2)
	})
}

// terrainLip is the repeating 32×10 edge strip along the surface of the floor (the ceiling
// draws it flipped): row 0 faces the open corridor.
func terrainLip(theme int) *image.RGBA {
	if theme == 2 {
		return warshipLip()
	}
	if theme == 0 {
		return tile(32, 10, false, func(c *canvas, ox, oy float64) {
			c.rect(&steel, 0.5, ox, oy+4, 32, 6)
			c.tube(&metal, ox, oy+1, 32, 4, false)
			c.rect(&eyeYel, 0.5, ox+3, oy+6, 6, 2)
			c.rect(&steel, 0.5, ox+3, oy+6, 3, 2)
			for _, x := range []float64{14, 22, 30} {
				c.ellipse(&metal, ox+x, oy+7, 1, 1)
			}
		})
	}
	return tile(32, 10, false, func(c *canvas, ox, oy float64) {
		c.rect(&flesh, 1, ox, oy+4, 32, 6)
		for i := 0; i < 4; i++ {
			x := ox + float64(i)*8
			c.poly(&bone, 1, x+1, oy+6, x+4, oy+0.5, x+7, oy+6)
		}
		c.tube(&sick, ox, oy+5, 32, 2, false)
	})
}

// layer images (low-res 640×360, drawn at Scale): far is opaque, mid and near keep their content
// in the top and bottom bands (rows 0..bandH and 360-bandH..360) so the client only draws
// those.
const (
	layerW, layerH = 640, 360
	bandH          = 110
)

func put(img *image.RGBA, x, y int, col color.RGBA) {
	x = ((x % layerW) + layerW) % layerW
	if y >= 0 && y < img.Bounds().Dy() {
		img.SetRGBA(x, y, col)
	}
}

func mix(a, b color.RGBA, t float64) color.RGBA {
	t = math.Max(0, math.Min(1, t))
	l := func(x, y uint8) uint8 { return uint8(float64(x) + (float64(y)-float64(x))*t) }
	return color.RGBA{l(a.R, b.R), l(a.G, b.G), l(a.B, b.B), 255}
}

var bayer4 = [4][4]float64{{0, 8, 2, 10}, {12, 4, 14, 6}, {3, 11, 1, 9}, {15, 7, 13, 5}}

// dither picks one of a palette of colours for v in 0..1 with a 4×4 ordered dither.
func dither(pal []color.RGBA, v float64, x, y int) color.RGBA {
	v = math.Max(0, math.Min(0.999, v)) * float64(len(pal)-1)
	i := int(v)
	if v-float64(i) > (bayer4[y&3][x&3]+0.5)/16 && i+1 < len(pal) {
		i++
	}
	return pal[i]
}

// farLayer is the distant backdrop of a theme: deep space with a planet and nebulae (base) or
// the glowing depths of a living cave (organic). It wraps horizontally.
func farLayer(theme int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, layerW, layerH))
	pal := []color.RGBA{hex(0x03040c), hex(0x060a1c), hex(0x0c1430), hex(0x142048), hex(0x24306a), hex(0x3a3c88)}
	if theme == 1 {
		pal = []color.RGBA{hex(0x070206), hex(0x12050e), hex(0x200a18), hex(0x321022), hex(0x4a1a2c), hex(0x682a38)}
	}
	if theme == 2 { // warship: open space lit by a sickly green nebula
		pal = []color.RGBA{hex(0x020406), hex(0x050c10), hex(0x0a1618), hex(0x122420), hex(0x1e362a), hex(0x30503a)}
	}
	// a wrapping noise field from a few sine octaves
	noise := func(x, y float64) float64 {
		u := x / layerW * 2 * math.Pi
		v := 0.0
		v += 0.5 * math.Sin(u*1+y*0.015+0.3) * math.Cos(y*0.01+u*2)
		v += 0.25 * math.Sin(u*3+y*0.04+1.7)
		v += 0.12 * math.Sin(u*7-y*0.09+0.4) * math.Sin(y*0.05)
		v += 0.06 * math.Sin(u*17+y*0.21)
		return v
	}
	for y := 0; y < layerH; y++ {
		for x := 0; x < layerW; x++ {
			n := noise(float64(x), float64(y))
			base := 0.12 + 0.1*math.Sin(float64(y)/layerH*math.Pi)
			v := base + math.Max(0, n)*0.55
			img.SetRGBA(x, y, dither(pal, v, x, y))
		}
	}
	rg := rng(7)
	if theme == 2 {
		for i := 0; i < 260; i++ {
			x, y := int(rg.f()*layerW), int(rg.f()*layerH)
			put(img, x, y, mix(hex(0x507060), hex(0xe0fff0), rg.f()))
		}
		return img
	}
	if theme == 0 {
		// planet with a lit limb and a ring
		pcx, pcy, pr := 470.0, 250.0, 70.0
		ppal := []color.RGBA{hex(0x05060e), hex(0x10142a), hex(0x1c2448), hex(0x2c3c6c), hex(0x4a6496), hex(0x88a8cc)}
		for y := int(pcy - pr); y <= int(pcy+pr); y++ {
			for x := int(pcx - pr); x <= int(pcx+pr); x++ {
				dx, dy := (float64(x)-pcx)/pr, (float64(y)-pcy)/pr
				d := dx*dx + dy*dy
				if d > 1 {
					continue
				}
				nz := math.Sqrt(1 - d)
				l := math.Max(0, -0.6*dx-0.5*dy+0.45*nz)
				bands := 0.08 * math.Sin(dy*14+dx*2)
				put(img, x, y, dither(ppal, l*0.95+bands+0.05, x, y))
			}
		}
		for a := 0.0; a < 2*math.Pi; a += 0.002 {
			x, y := pcx+math.Cos(a)*pr*1.7, pcy+math.Sin(a)*pr*0.32
			if math.Sin(a) < 0 && math.Hypot((x-pcx)/pr, (y-pcy)/pr) < 1 {
				continue // behind the planet
			}
			put(img, int(x), int(y), hex(0x5a6c9c))
			put(img, int(x), int(y)+1, hex(0x2c3c6c))
		}
		// distant stars baked in (the client adds twinkling ones on top)
		for i := 0; i < 220; i++ {
			x, y := int(rg.f()*layerW), int(rg.f()*layerH)
			put(img, x, y, mix(hex(0x6070a0), hex(0xd0e0ff), rg.f()))
		}
	} else {
		// glowing spores in the depths
		for i := 0; i < 90; i++ {
			x, y := int(rg.f()*layerW), int(rg.f()*layerH)
			c := mix(hex(0x6a8a30), hex(0xd0f070), rg.f())
			put(img, x, y, c)
			if rg.f() < 0.3 {
				put(img, x+1, y, mix(c, pal[2], 0.5))
				put(img, x, y+1, mix(c, pal[2], 0.5))
			}
		}
	}
	return img
}

// bandLayer is a mid (near false) or near parallax layer: silhouettes hanging from the top band
// and rising from the bottom band, transparent elsewhere.
func bandLayer(theme int, near bool) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, layerW, layerH))
	var pal []color.RGBA
	switch {
	case theme == 2 && !near: // warship: distant escort hulls
		pal = []color.RGBA{hex(0x060a0c), hex(0x0c1416), hex(0x141f20), hex(0x22302e)}
	case theme == 2:
		pal = []color.RGBA{hex(0x080c0e), hex(0x121a1c), hex(0x1e2a2a), hex(0x32423e)}
	case theme == 0 && !near:
		pal = []color.RGBA{hex(0x080c1c), hex(0x101830), hex(0x1a2644), hex(0x2a3a60)}
	case theme == 0:
		pal = []color.RGBA{hex(0x0a0e18), hex(0x161e30), hex(0x26324a), hex(0x3c4c6a)}
	case !near:
		pal = []color.RGBA{hex(0x12060c), hex(0x240c18), hex(0x381424), hex(0x4e2032)}
	default:
		pal = []color.RGBA{hex(0x1a0a0c), hex(0x301418), hex(0x4a2026), hex(0x6a3036)}
	}
	seed := uint64(3 + theme*10)
	if near {
		seed += 5
	}
	rg := rng(seed)
	// column profile: height of the silhouette at each x, top and bottom
	profile := func(bottom bool) []float64 {
		h := make([]float64, layerW)
		x := 0
		for x < layerW {
			w := 8 + int(rg.f()*40)
			top := 20 + rg.f()*float64(bandH-30)
			if near {
				top = 10 + rg.f()*float64(bandH-60)
			}
			if theme == 2 { // warship: the long low hulls of distant escorts, gaps between them
				w = 40 + int(rg.f()*120)
				top = 10 + rg.f()*36
				if rg.f() < 0.3 {
					top = 0
				}
			}
			for i := 0; i < w && x+i < layerW; i++ {
				v := top
				if theme == 1 { // organic: rounded lumps and tendrils
					t := float64(i) / float64(w)
					v = top * (0.3 + 0.7*math.Sin(t*math.Pi))
				}
				h[x+i] = v
			}
			x += w
		}
		// wrap: blend the seam
		for i := 0; i < 8; i++ {
			h[layerW-1-i] = h[layerW-1-i]*(float64(i)/8) + h[0]*(1-float64(i)/8)
		}
		return h
	}
	for band := 0; band < 2; band++ {
		bottom := band == 1
		h := profile(bottom)
		for x := 0; x < layerW; x++ {
			for d := 0; d < int(h[x]); d++ {
				y := d
				if bottom {
					y = layerH - 1 - d
				}
				// lit edge facing the corridor, windows/veins inside
				edge := float64(int(h[x])-d) < 2.5
				v := 0.25 + 0.35*float64(d)/float64(bandH)
				if edge {
					v = 0.95
				}
				col := dither(pal, v, x, y)
				if theme != 1 && !edge && (x/3)%5 == 0 && (d/4)%4 == 1 && rg.f() < 0.6 && (theme == 0 || rg.f() < 0.15) {
					col = mix(hex(0x6080c0), hex(0xc0d8ff), rg.f()) // lit windows
				}
				if theme == 1 && !edge && math.Mod(float64(x)*0.7+float64(d)*1.3, 23) < 1 {
					col = hex(0x7a3a2a) // veins
				}
				put(img, x, y, col)
			}
		}
	}
	return img
}

// logo draws the title logo "R-TYPE" in chunky bevelled metal letters (5×7 cells, each cell
// cell×cell px) with a blue underline.
func logo() *image.RGBA {
	const cell = 5
	text := []rune("R-TYPE")
	font := map[rune][]string{
		'R': {"#### ", "#   #", "#   #", "#### ", "# #  ", "#  # ", "#   #"},
		'-': {"     ", "     ", "     ", "#### ", "     ", "     ", "     "},
		'T': {"#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  "},
		'Y': {"#   #", "#   #", " # # ", "  #  ", "  #  ", "  #  ", "  #  "},
		'P': {"#### ", "#   #", "#   #", "#### ", "#    ", "#    ", "#    "},
		'E': {"#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#####"},
	}
	w := len(text)*6*cell + 16
	c := newCanvas(w, 7*cell+14)
	for i, r := range text {
		g := font[r]
		m := &metal
		if r == 'R' {
			m = &shipRamps[0]
		}
		x0 := 4 + i*6*cell
		c.mask(m, 2, func(x, y int) bool {
			gy := (y - 3) / cell
			if y < 3 || gy >= 7 {
				return false
			}
			gx := (x - x0 - (6-gy)*6/5) // italic: rows shift right towards the top
			if gx < 0 || gx >= 5*cell {
				return false
			}
			return g[gy][gx/cell] == '#'
		})
	}
	c.flat(&beamR, 2, 4, 7*cell+6, float64(w-4), 7*cell+6, float64(w-8), 7*cell+9, 0, 7*cell+9)
	c.flat(&beamR, 4, 10, 7*cell+7, float64(w-10), 7*cell+7, float64(w-12), 7*cell+8, 8, 7*cell+8)
	return c.render()
}
