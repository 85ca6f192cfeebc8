package main

import (
	"image"
	"image/color"
	"math"
)

// A ramp is one material's five tones: outline, shadow, mid, light, highlight.
type ramp [5]color.RGBA

func hex(v uint32) color.RGBA {
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}
}

func mkramp(vs ...uint32) ramp {
	var r ramp
	for i := range r {
		r[i] = hex(vs[i])
	}
	return r
}

// canvas is a low-resolution pixel canvas. Primitives write a material, a surface normal and a
// primitive id per pixel; render lights every pixel from the top left, quantises it to the
// material's tones with a 2×2 ordered dither, darkens pixels just below/right of a primitive
// drawn over them (a one-pixel cast shadow) and draws a dark outline around the silhouette.
type canvas struct {
	w, h   int
	mat    []*ramp
	nx, ny []float32
	nz     []float32
	id     []int16
	tone   []int8 // >= 0: emissive, fixed tone (not lit)
	next   int16
	noLine []bool // no outline next to this pixel (glows)
}

func newCanvas(w, h int) *canvas {
	n := w * h
	c := &canvas{w: w, h: h, mat: make([]*ramp, n), nx: make([]float32, n), ny: make([]float32, n), nz: make([]float32, n),
		id: make([]int16, n), tone: make([]int8, n), noLine: make([]bool, n)}
	for i := range c.tone {
		c.tone[i] = -1
	}
	return c
}

func (c *canvas) set(x, y int, m *ramp, nx, ny, nz float32) {
	if x < 0 || y < 0 || x >= c.w || y >= c.h {
		return
	}
	i := y*c.w + x
	c.mat[i], c.nx[i], c.ny[i], c.nz[i], c.id[i], c.tone[i], c.noLine[i] = m, nx, ny, nz, c.next, -1, false
}

func (c *canvas) setTone(x, y int, m *ramp, t int, noLine bool) {
	if x < 0 || y < 0 || x >= c.w || y >= c.h {
		return
	}
	i := y*c.w + x
	c.mat[i], c.id[i], c.tone[i], c.noLine[i] = m, c.next, int8(t), noLine
}

func (c *canvas) erase(x, y int) {
	if x < 0 || y < 0 || x >= c.w || y >= c.h {
		return
	}
	c.mat[y*c.w+x] = nil
}

// ellipse fills a dome-shaded ellipse (pixel centres inside).
func (c *canvas) ellipse(m *ramp, cx, cy, rx, ry float64) {
	c.next++
	for y := int(cy - ry - 1); y <= int(cy+ry+1); y++ {
		for x := int(cx - rx - 1); x <= int(cx+rx+1); x++ {
			dx, dy := (float64(x)+0.5-cx)/rx, (float64(y)+0.5-cy)/ry
			d := dx*dx + dy*dy
			if d > 1 {
				continue
			}
			c.set(x, y, m, float32(dx*0.9), float32(dy*0.9), float32(math.Sqrt(math.Max(0.05, 1-d*0.81))))
		}
	}
}

// glow fills an emissive disc: tone 4 in the core falling to 2 at the rim.
func (c *canvas) glow(m *ramp, cx, cy, rx, ry float64, noLine bool) {
	c.next++
	for y := int(cy - ry - 1); y <= int(cy+ry+1); y++ {
		for x := int(cx - rx - 1); x <= int(cx+rx+1); x++ {
			dx, dy := (float64(x)+0.5-cx)/rx, (float64(y)+0.5-cy)/ry
			d := dx*dx + dy*dy
			if d > 1 {
				continue
			}
			t := 4
			switch {
			case d > 0.65:
				t = 2
			case d > 0.25:
				t = 3
			}
			c.setTone(x, y, m, t, noLine)
		}
	}
}

// flat fills a polygon with one emissive tone.
func (c *canvas) flat(m *ramp, t int, pts ...float64) {
	c.next++
	c.scanPoly(pts, func(x, y int, _ float64, _, _ float64) { c.setTone(x, y, m, t, false) })
}

// poly fills a polygon (x0,y0,x1,y1,...) with a flat top and bevelled edges bevel px wide.
func (c *canvas) poly(m *ramp, bevel float64, pts ...float64) {
	c.next++
	c.scanPoly(pts, func(x, y int, d float64, ex, ey float64) {
		k := 0.0
		if bevel > 0 && d < bevel {
			k = 1 - d/bevel
		}
		nx, ny := ex*k*0.85, ey*k*0.85
		c.set(x, y, m, float32(nx), float32(ny), float32(math.Sqrt(math.Max(0.05, 1-nx*nx-ny*ny))))
	})
}

// rect is poly for an axis-aligned rectangle.
func (c *canvas) rect(m *ramp, bevel, x, y, w, h float64) {
	c.poly(m, bevel, x, y, x+w, y, x+w, y+h, x, y+h)
}

// tube fills a horizontal (vertical false) or vertical cylinder shaded across its axis.
func (c *canvas) tube(m *ramp, x, y, w, h float64, vertical bool) {
	c.next++
	for py := int(y); py < int(math.Ceil(y+h)); py++ {
		for px := int(x); px < int(math.Ceil(x+w)); px++ {
			var u float64
			if vertical {
				u = (float64(px)+0.5-x)/w*2 - 1
				c.set(px, py, m, float32(u*0.95), 0, float32(math.Sqrt(math.Max(0.05, 1-u*u*0.9))))
			} else {
				u = (float64(py)+0.5-y)/h*2 - 1
				c.set(px, py, m, 0, float32(u*0.95), float32(math.Sqrt(math.Max(0.05, 1-u*u*0.9))))
			}
		}
	}
}

// line draws a bevelled stroke of width wd from (x0,y0) to (x1,y1).
func (c *canvas) line(m *ramp, wd, x0, y0, x1, y1 float64) {
	dx, dy := x1-x0, y1-y0
	l := math.Hypot(dx, dy)
	if l == 0 {
		return
	}
	nx, ny := -dy/l*wd/2, dx/l*wd/2
	c.poly(m, wd/2, x0+nx, y0+ny, x1+nx, y1+ny, x1-nx, y1-ny, x0-nx, y0-ny)
}

// mask fills the pixels where in(x, y) holds as one bevelled primitive: the normal leans towards
// the nearest pixel outside the mask within bevel px.
func (c *canvas) mask(m *ramp, bevel int, in func(x, y int) bool) {
	c.next++
	for y := 0; y < c.h; y++ {
		for x := 0; x < c.w; x++ {
			if !in(x, y) {
				continue
			}
			best, bx, by := float64(bevel+1), 0.0, 0.0
			for dy := -bevel; dy <= bevel; dy++ {
				for dx := -bevel; dx <= bevel; dx++ {
					if in(x+dx, y+dy) {
						continue
					}
					if d := math.Hypot(float64(dx), float64(dy)); d < best {
						best, bx, by = d, float64(dx)/d, float64(dy)/d
					}
				}
			}
			k := math.Max(0, 1-(best-0.5)/float64(bevel))
			nx, ny := bx*k*0.85, by*k*0.85
			c.set(x, y, m, float32(nx), float32(ny), float32(math.Sqrt(math.Max(0.05, 1-nx*nx-ny*ny))))
		}
	}
}

// dot sets one emissive pixel.
func (c *canvas) dot(m *ramp, t int, x, y int) {
	c.next++
	c.setTone(x, y, m, t, false)
}

// scanPoly calls fn for every pixel centre inside the polygon with its distance to the nearest
// edge and that edge's outward normal.
func (c *canvas) scanPoly(pts []float64, fn func(x, y int, d, ex, ey float64)) {
	n := len(pts) / 2
	minX, minY, maxX, maxY := pts[0], pts[1], pts[0], pts[1]
	area := 0.0
	for i := 0; i < n; i++ {
		x, y := pts[2*i], pts[2*i+1]
		minX, maxX, minY, maxY = math.Min(minX, x), math.Max(maxX, x), math.Min(minY, y), math.Max(maxY, y)
		j := (i + 1) % n
		area += pts[2*i]*pts[2*j+1] - pts[2*j]*pts[2*i+1]
	}
	sign := 1.0
	if area < 0 {
		sign = -1
	}
	for y := int(math.Floor(minY)); y <= int(math.Ceil(maxY)); y++ {
		for x := int(math.Floor(minX)); x <= int(math.Ceil(maxX)); x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			in := false
			best, bx, by := math.Inf(1), 0.0, 0.0
			for i := 0; i < n; i++ {
				j := (i + 1) % n
				x0, y0, x1, y1 := pts[2*i], pts[2*i+1], pts[2*j], pts[2*j+1]
				if (y0 > py) != (y1 > py) && px < x0+(py-y0)*(x1-x0)/(y1-y0) {
					in = !in
				}
				ex, ey := x1-x0, y1-y0
				l2 := ex*ex + ey*ey
				t := 0.0
				if l2 > 0 {
					t = math.Max(0, math.Min(1, ((px-x0)*ex+(py-y0)*ey)/l2))
				}
				d := math.Hypot(px-(x0+t*ex), py-(y0+t*ey))
				if d < best {
					l := math.Sqrt(l2)
					if l > 0 {
						best, bx, by = d, sign*ey/l, -sign*ex/l
					}
				}
			}
			if in {
				fn(x, y, best, bx, by)
			}
		}
	}
}

var light = func() [3]float64 {
	x, y, z := -0.55, -0.65, 0.55
	l := math.Sqrt(x*x + y*y + z*z)
	return [3]float64{x / l, y / l, z / l}
}()

var bayer = [2][2]float64{{-0.03, 0.01}, {0.03, -0.01}}

// render lights and outlines the canvas into an RGBA image.
func (c *canvas) render() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, c.w, c.h))
	tones := make([]int8, c.w*c.h)
	for y := 0; y < c.h; y++ {
		for x := 0; x < c.w; x++ {
			i := y*c.w + x
			if c.mat[i] == nil {
				tones[i] = -1
				continue
			}
			if c.tone[i] >= 0 {
				tones[i] = c.tone[i]
				continue
			}
			d := float64(c.nx[i])*light[0] + float64(c.ny[i])*light[1] + float64(c.nz[i])*light[2]
			v := 0.2 + 0.8*math.Max(0, d) + bayer[y&1][x&1]
			t := int8(1)
			switch {
			case v > 0.93:
				t = 4
			case v > 0.71:
				t = 3
			case v > 0.42:
				t = 2
			}
			// cast shadow: a primitive drawn over this one just above or to the left
			if (y > 0 && c.mat[i-c.w] != nil && c.id[i-c.w] > c.id[i] && c.tone[i-c.w] < 0) ||
				(x > 0 && c.mat[i-1] != nil && c.id[i-1] > c.id[i] && c.tone[i-1] < 0) {
				t = max(1, t-1)
			}
			tones[i] = t
		}
	}
	for y := 0; y < c.h; y++ {
		for x := 0; x < c.w; x++ {
			i := y*c.w + x
			if tones[i] >= 0 {
				img.SetRGBA(x, y, c.mat[i][tones[i]])
				continue
			}
			// outline: the darkest tone of an opaque 4-neighbour
			for _, o := range [4][2]int{{0, -1}, {-1, 0}, {1, 0}, {0, 1}} {
				nx, ny := x+o[0], y+o[1]
				if nx < 0 || ny < 0 || nx >= c.w || ny >= c.h {
					continue
				}
				j := ny*c.w + nx
				if tones[j] >= 0 && !c.noLine[j] {
					img.SetRGBA(x, y, c.mat[j][0])
					break
				}
			}
		}
	}
	return img
}

// rot rotates the points (x0,y0,...) by a radians around (cx,cy).
func rot(a, cx, cy float64, pts ...float64) []float64 {
	s, co := math.Sin(a), math.Cos(a)
	out := make([]float64, len(pts))
	for i := 0; i+1 < len(pts); i += 2 {
		x, y := pts[i]-cx, pts[i+1]-cy
		out[i], out[i+1] = cx+x*co-y*s, cy+x*s+y*co
	}
	return out
}

// rng is a small deterministic xorshift generator (the sheets must be reproducible).
type rng uint64

func (r *rng) f() float64 {
	*r ^= *r << 13
	*r ^= *r >> 7
	*r ^= *r << 17
	return float64(uint64(*r)>>11) / float64(1<<53)
}
