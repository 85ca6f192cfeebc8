package client

import (
	"image"
	"image/color"
	"math"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/rtype/rtype/game/client/art"
)

// How a frame is drawn (the frame must stay cheap for software renderers such as Mesa
// llvmpipe, where the cost is the number of pixels written):
//
//  1. the game world (parallax, terrain, entities, particles) is drawn at the art's native
//     resolution, one art pixel per pixel, into the 640×360 world image (worldW×worldH), with
//     positions rounded to whole pixels;
//  2. that image is drawn once onto the screen, scaled up with nearest filtering into the
//     letterboxed 16:9 view (with copyKage, the cheapest fragment program);
//  3. HUD, text and menus are drawn on top at the screen's own resolution.
//
// The screen is the window's real size (app.LayoutF), so ebiten's final pass is a 1:1 copy.
// Everything is placed in virtual px of the 1920×1080 playfield: an xf maps them to the pixels
// of a destination image.

// xf maps virtual px (the 1920×1080 playfield) to the px of a destination image:
// dst = virtual×k + (ox, oy).
type xf struct{ k, ox, oy float32 }

// fit is the letterboxed view of the playfield in a w×h px image (bars left/right or top/bottom
// when the aspect ratio is not 16:9).
func fit(w, h int) xf {
	k := min(float32(w)/Width, float32(h)/Height)
	return xf{k: k, ox: float32(math.Floor(float64(float32(w)-Width*k) / 2)), oy: float32(math.Floor(float64(float32(h)-Height*k) / 2))}
}

// pix is how many whole destination px one source pixel covers when drawn s virtual px big (at
// least 1; the sign of s is kept, so a negative s still mirrors).
func (t xf) pix(s float32) float32 {
	p := max(1, float32(math.Round(float64(abs32(s)*t.k))))
	if s < 0 {
		return -p
	}
	return p
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

func round32(x float32) float32 { return float32(math.Round(float64(x))) }

// surface is what a frame is drawn on: an *ebiten.Image (the world image, the screenshot
// canvas) or ebiten's final screen (app.DrawFinalScreen).
type surface interface {
	Bounds() image.Rectangle
	DrawImage(img *ebiten.Image, op *ebiten.DrawImageOptions)
	DrawTriangles(v []ebiten.Vertex, i []uint16, img *ebiten.Image, op *ebiten.DrawTrianglesOptions)
	DrawRectShader(w, h int, sh *ebiten.Shader, op *ebiten.DrawRectShaderOptions)
	DrawTrianglesShader(v []ebiten.Vertex, i []uint16, sh *ebiten.Shader, op *ebiten.DrawTrianglesShaderOptions)
}

// The passes that write the most pixels (the world's scale-up, the far layer, the layer bands,
// stars and debris) use these fragment programs instead of ebiten's built-in one: a software
// renderer runs the program for every pixel written, and ebiten's converts pixel coordinates to
// texels and multiplies a colour scale first. In texel units, nearest filtering (the textures'
// filter), they read the same texel: the picture is the same.
const (
	// copyKage writes its source unchanged (opaque passes: BlendCopy).
	copyKage = `//kage:unit texels

package main

func Fragment(dstPos vec4, srcPos vec2, color vec4) vec4 {
	return imageSrc0UnsafeAt(srcPos)
}
`
	// tintKage multiplies its source by the vertex colour (premultiplied, as ebiten's
	// ColorScale is).
	tintKage = `//kage:unit texels

package main

func Fragment(dstPos vec4, srcPos vec2, color vec4) vec4 {
	return imageSrc0UnsafeAt(srcPos) * color
}
`
)

// mustShader compiles one of these programs (they are constants: an error is a bug).
func mustShader(src string) *ebiten.Shader {
	sh, err := ebiten.NewShader([]byte(src))
	if err != nil {
		panic(err)
	}
	return sh
}

// mesh is a reusable triangle list for one source image (terrain, layer strips, stars,
// debris): many rectangles in one draw call instead of one DrawImage each.
type mesh struct {
	v  []ebiten.Vertex
	i  []uint16
	op ebiten.DrawTrianglesShaderOptions // drawShader's (its own: a draw onto a batch draws the batch's mesh first)
}

func (m *mesh) reset() { m.v, m.i = m.v[:0], m.i[:0] }

// rect appends the source rectangle src (px of the image the mesh is drawn from) drawn over
// (x0,y0)-(x1,y1) (px of the destination), multiplied by c (premultiplied, as
// ebiten.ColorScale's R, G, B, A).
func (m *mesh) rect(x0, y0, x1, y1 float32, src image.Rectangle, c *ebiten.ColorScale) {
	n := uint16(len(m.v))
	r, g, b, a := c.R(), c.G(), c.B(), c.A()
	u0, v0, u1, v1 := float32(src.Min.X), float32(src.Min.Y), float32(src.Max.X), float32(src.Max.Y)
	m.v = append(m.v,
		ebiten.Vertex{DstX: x0, DstY: y0, SrcX: u0, SrcY: v0, ColorR: r, ColorG: g, ColorB: b, ColorA: a},
		ebiten.Vertex{DstX: x1, DstY: y0, SrcX: u1, SrcY: v0, ColorR: r, ColorG: g, ColorB: b, ColorA: a},
		ebiten.Vertex{DstX: x1, DstY: y1, SrcX: u1, SrcY: v1, ColorR: r, ColorG: g, ColorB: b, ColorA: a},
		ebiten.Vertex{DstX: x0, DstY: y1, SrcX: u0, SrcY: v1, ColorR: r, ColorG: g, ColorB: b, ColorA: a})
	m.i = append(m.i, n, n+1, n+2, n, n+2, n+3)
}

// sub is the sub-image r of the atlas, known to batches (inAtlas).
func (sp *sprites) sub(r image.Rectangle) *ebiten.Image {
	img := sp.atlas.SubImage(r).(*ebiten.Image)
	sp.inAtlas[img] = true
	return img
}

// batch is a surface over dst that gathers the frame's draws of atlas images (sprites, glyphs,
// rectangles: nearly every DrawImage of a frame) into one mesh, drawn with tintKage in one call
// per run of draws with the same blend, instead of one DrawImage each: less of ebiten's
// per-call work, a cheaper fragment program. It gathers only what it draws exactly as
// DrawImage would (axis-aligned, whole-pixel corners, a whole number of pixels per source
// pixel, nearest filtering; the client never sets a ColorM); any other draw first draws what
// was gathered, so the order of the picture is kept. flush draws the rest: before dst is read
// (the world image before the scale-up) and at the end of the frame.
type batch struct {
	dst   surface
	sp    *sprites
	m     mesh
	blend ebiten.Blend
}

// on makes b draw onto dst (b must be empty: flushed).
func (b *batch) on(dst surface, sp *sprites) *batch {
	b.dst, b.sp = dst, sp
	return b
}

func (b *batch) flush() { b.m.drawShader(b.dst, b.sp.atlas, b.sp.tintProg, b.blend) }

func (b *batch) Bounds() image.Rectangle { return b.dst.Bounds() }

func (b *batch) DrawImage(img *ebiten.Image, op *ebiten.DrawImageOptions) {
	if b.gather(img, op) {
		return
	}
	b.flush()
	b.dst.DrawImage(img, op)
}

func (b *batch) DrawTriangles(v []ebiten.Vertex, i []uint16, img *ebiten.Image, op *ebiten.DrawTrianglesOptions) {
	b.flush()
	b.dst.DrawTriangles(v, i, img, op)
}

func (b *batch) DrawRectShader(w, h int, sh *ebiten.Shader, op *ebiten.DrawRectShaderOptions) {
	b.flush()
	b.dst.DrawRectShader(w, h, sh, op)
}

func (b *batch) DrawTrianglesShader(v []ebiten.Vertex, i []uint16, sh *ebiten.Shader, op *ebiten.DrawTrianglesShaderOptions) {
	b.flush()
	b.dst.DrawTrianglesShader(v, i, sh, op)
}

// gather adds the draw to the mesh if it is one a batch draws exactly as DrawImage would.
func (b *batch) gather(img *ebiten.Image, op *ebiten.DrawImageOptions) bool {
	g := &op.GeoM
	sa, sd, tx, ty := g.Element(0, 0), g.Element(1, 1), g.Element(0, 2), g.Element(1, 2)
	if !b.sp.inAtlas[img] || op.Filter != ebiten.FilterNearest || g.Element(0, 1) != 0 || g.Element(1, 0) != 0 ||
		sa == 0 || sd == 0 || !whole(sa) || !whole(sd) || !whole(tx) || !whole(ty) {
		return false
	}
	if len(b.m.i) > 0 && op.Blend != b.blend {
		b.flush()
	}
	b.blend = op.Blend
	r := img.Bounds()
	x0, y0 := float32(tx), float32(ty)
	x1, y1 := x0+float32(sa)*float32(r.Dx()), y0+float32(sd)*float32(r.Dy())
	u0, v0, u1, v1 := float32(r.Min.X), float32(r.Min.Y), float32(r.Max.X), float32(r.Max.Y)
	cs := &op.ColorScale
	cr, cg, cb, ca := cs.R(), cs.G(), cs.B(), cs.A()
	m := &b.m
	n := uint16(len(m.v))
	m.v = append(m.v, // DrawImage's quad: corners in this order, split along the same diagonal
		ebiten.Vertex{DstX: x0, DstY: y0, SrcX: u0, SrcY: v0, ColorR: cr, ColorG: cg, ColorB: cb, ColorA: ca},
		ebiten.Vertex{DstX: x1, DstY: y0, SrcX: u1, SrcY: v0, ColorR: cr, ColorG: cg, ColorB: cb, ColorA: ca},
		ebiten.Vertex{DstX: x0, DstY: y1, SrcX: u0, SrcY: v1, ColorR: cr, ColorG: cg, ColorB: cb, ColorA: ca},
		ebiten.Vertex{DstX: x1, DstY: y1, SrcX: u1, SrcY: v1, ColorR: cr, ColorG: cg, ColorB: cb, ColorA: ca})
	m.i = append(m.i, n, n+1, n+2, n+1, n+2, n+3)
	if len(m.v) > 60000 { // a uint16 index must reach every vertex
		b.flush()
	}
	return true
}

// whole reports whether x is a whole number.
func whole(x float64) bool { return x == math.Trunc(x) }

// drawShader draws the mesh from img onto dst with the program sh and blend, then empties it.
func (m *mesh) drawShader(dst surface, img *ebiten.Image, sh *ebiten.Shader, blend ebiten.Blend) {
	if len(m.i) > 0 {
		op := &m.op
		op.Images[0], op.Blend = img, blend
		dst.DrawTrianglesShader(m.v, m.i, sh, op)
		op.Images[0] = nil
	}
	m.reset()
}

// painter draws on dst in virtual px through its xf. Rectangles are drawn from a white pixel of
// the sprite atlas (white), so they batch with sprites and text.
type painter struct {
	dst surface
	xf
}

// white is a white sub-image of the sprite atlas (set by newUI): rectangles and bars.
var whitePx *ebiten.Image

var drawOp ebiten.DrawImageOptions

func resetOp(op *ebiten.DrawImageOptions) *ebiten.DrawImageOptions {
	op.GeoM.Reset()
	op.ColorScale.Reset()
	op.Blend = ebiten.Blend{}
	op.Filter = ebiten.FilterNearest
	return op
}

// frame draws an atlas frame centred at (cx,cy), each art pixel sx×sy virtual px (rounded to
// whole destination px; a negative sx or sy mirrors it), its top-left corner on a whole pixel;
// alpha fades it, flash (0..1) adds white on top (hit flash).
func (p painter) frame(img *ebiten.Image, cx, cy, sx, sy, alpha, flash float32) {
	op := resetOp(&drawOp)
	b := img.Bounds()
	w, h := float32(b.Dx()), float32(b.Dy())
	px, py := p.pix(sx), p.pix(sy)
	W, H := w*abs32(px), h*abs32(py)
	op.GeoM.Translate(float64(-w/2), float64(-h/2))
	op.GeoM.Scale(float64(px), float64(py))
	op.GeoM.Translate(float64(round32(cx*p.k+p.ox-W/2)+W/2), float64(round32(cy*p.k+p.oy-H/2)+H/2))
	if alpha < 1 {
		op.ColorScale.ScaleAlpha(alpha)
	}
	p.dst.DrawImage(img, op)
	if flash > 0 {
		op.Blend = ebiten.BlendLighter
		op.ColorScale.Reset()
		op.ColorScale.ScaleAlpha(min(1, flash*1.5))
		p.dst.DrawImage(img, op)
	}
}

// frameRot is frame rotated by angle radians around the centre.
func (p painter) frameRot(img *ebiten.Image, cx, cy, s float32, angle float64) {
	op := resetOp(&drawOp)
	b := img.Bounds()
	op.GeoM.Translate(-float64(b.Dx())/2, -float64(b.Dy())/2)
	ps := float64(p.pix(s))
	op.GeoM.Scale(ps, ps)
	op.GeoM.Rotate(angle)
	op.GeoM.Translate(float64(round32(cx*p.k+p.ox)), float64(round32(cy*p.k+p.oy)))
	p.dst.DrawImage(img, op)
}

// tinted draws img stretched to w×h virtual px (whole destination px, at least 1) centred at
// (cx,cy), tinted col, additive when add.
func (p painter) tinted(img *ebiten.Image, cx, cy, w, h float32, col color.RGBA, alpha float32, add bool) {
	op := resetOp(&drawOp)
	if add {
		op.Blend = ebiten.BlendLighter
	}
	b := img.Bounds()
	x, y, W, H := p.box(cx, cy, w, h)
	op.GeoM.Scale(float64(W)/float64(b.Dx()), float64(H)/float64(b.Dy()))
	op.GeoM.Translate(float64(x), float64(y))
	tint(&op.ColorScale, col, alpha)
	p.dst.DrawImage(img, op)
}

// tintedRect is tinted (not additive) as a rectangle of m: the source rectangle src of the
// image m is drawn from.
func (p painter) tintedRect(m *mesh, src image.Rectangle, cx, cy, w, h float32, col color.RGBA, alpha float32) {
	x, y, W, H := p.box(cx, cy, w, h)
	var cs ebiten.ColorScale
	tint(&cs, col, alpha)
	m.rect(x, y, x+W, y+H, src, &cs)
}

// box is where tinted draws: the w×h virtual px rectangle centred at (cx,cy) in whole
// destination px (x, y and size W×H, at least 1×1).
func (p painter) box(cx, cy, w, h float32) (x, y, W, H float32) {
	W, H = max(1, round32(w*p.k)), max(1, round32(h*p.k))
	return round32(cx*p.k + p.ox - W/2), round32(cy*p.k + p.oy - H/2), W, H
}

// tint multiplies cs by col at opacity alpha (premultiplied).
func tint(cs *ebiten.ColorScale, col color.RGBA, alpha float32) {
	cs.Scale(float32(col.R)/255*alpha, float32(col.G)/255*alpha, float32(col.B)/255*alpha, alpha)
}

// rect fills the rectangle (x,y)-(x+w,y+h) in virtual px (edges on whole destination px) with
// col (premultiplied, as color.RGBA is).
func (p painter) rect(x, y, w, h float32, col color.RGBA) {
	x0, y0 := round32(x*p.k+p.ox), round32(y*p.k+p.oy)
	x1, y1 := round32((x+w)*p.k+p.ox), round32((y+h)*p.k+p.oy)
	p.pxRect(x0, y0, max(1, x1-x0), max(1, y1-y0), col)
}

// pxRect fills a rectangle given in destination px.
func (p painter) pxRect(x, y, w, h float32, col color.RGBA) {
	op := resetOp(&drawOp)
	b := whitePx.Bounds()
	op.GeoM.Scale(float64(w)/float64(b.Dx()), float64(h)/float64(b.Dy()))
	op.GeoM.Translate(float64(x), float64(y))
	scaleRGBA(&op.ColorScale, col)
	p.dst.DrawImage(whitePx, op)
}

// strokeRect outlines the rectangle with a line width virtual px wide (at least 1 px), inside
// the rectangle.
func (p painter) strokeRect(x, y, w, h, width float32, col color.RGBA) {
	x0, y0 := round32(x*p.k+p.ox), round32(y*p.k+p.oy)
	x1, y1 := round32((x+w)*p.k+p.ox), round32((y+h)*p.k+p.oy)
	lw := max(1, round32(width*p.k))
	p.pxRect(x0, y0, x1-x0, lw, col)
	p.pxRect(x0, y1-lw, x1-x0, lw, col)
	p.pxRect(x0, y0+lw, lw, y1-y0-2*lw, col)
	p.pxRect(x1-lw, y0+lw, lw, y1-y0-2*lw, col)
}

// scaleRGBA multiplies cs by the premultiplied colour c (ColorScale.ScaleWithColor without
// the interface conversion, which allocates).
func scaleRGBA(cs *ebiten.ColorScale, c color.RGBA) {
	cs.Scale(float32(c.R)/255, float32(c.G)/255, float32(c.B)/255, float32(c.A)/255)
}

// face is a size of the UI pixel font (art.Set.Glyphs): each font pixel is Scale virtual px,
// rounded to whole screen px so the text stays crisp at every window size.
type face struct {
	Scale float32
	// Mono gives every glyph the same advance (tables, the F3 overlay).
	Mono bool
}

// monoAdvance is the advance of a Mono face in font px.
const monoAdvance = 6

// lineHeight is the distance between the tops of two lines of text in font px.
const lineHeight = art.GlyphHeight + 4

// pixFont is the UI font uploaded: one sub-image of the sprite atlas per glyph, so text batches
// with the sprites.
type pixFont struct {
	ascii [128]*ebiten.Image
	other map[rune]*ebiten.Image
}

// newPixFont makes the font from glyphs, rectangles of the atlas that sub cuts out.
func newPixFont(sub func(image.Rectangle) *ebiten.Image, glyphs map[rune]image.Rectangle) *pixFont {
	f := &pixFont{other: map[rune]*ebiten.Image{}}
	for r, rect := range glyphs {
		img := sub(rect)
		if r < 128 {
			f.ascii[r] = img
		} else {
			f.other[r] = img
		}
	}
	if f.ascii['?'] == nil { // the art test keeps the font complete; never crash on a gap
		f.ascii['?'] = sub(image.Rect(0, 0, 1, 1))
	}
	return f
}

// glyph is the image of r ('?' for a rune the font lacks).
func (f *pixFont) glyph(r rune) *ebiten.Image {
	if r >= 0 && r < 128 {
		if g := f.ascii[r]; g != nil {
			return g
		}
	} else if g, ok := f.other[r]; ok {
		return g
	}
	return f.ascii['?']
}

// advance is the width of r in font px.
func (f *pixFont) advance(r rune, fc *face) int {
	if fc.Mono {
		return monoAdvance
	}
	return f.glyph(r).Bounds().Dx()
}

// lineWidth is the width in font px of the first line of s (up to a newline).
func (f *pixFont) lineWidth(s string, fc *face) int {
	n := 0
	for _, r := range s {
		if r == '\n' {
			break
		}
		n += f.advance(r, fc)
	}
	return n
}

var textOp ebiten.DrawImageOptions

// draw draws s with its top at y and each line aligned at x (virtual px), through t.
func (f *pixFont) draw(dst surface, t xf, s string, fc *face, x, y float32, al align, col color.RGBA) {
	p := t.pix(fc.Scale)
	op := resetOp(&textOp)
	scaleRGBA(&op.ColorScale, col)
	X0 := x*t.k + t.ox
	Y := round32(y*t.k + t.oy)
	lineX := func(line string) float32 {
		w := float32(f.lineWidth(line, fc)) * p
		switch al {
		case alignCenter:
			return round32(X0 - w/2)
		case alignEnd:
			return round32(X0 - w)
		}
		return round32(X0)
	}
	X := lineX(s)
	for i, r := range s {
		if r == '\n' {
			X, Y = lineX(s[i+1:]), Y+lineHeight*p
			continue
		}
		g := f.glyph(r)
		adv := float32(f.advance(r, fc))
		gx := X
		if fc.Mono {
			gx += float32((monoAdvance-g.Bounds().Dx())/2) * p
		}
		op.GeoM.Reset()
		op.GeoM.Scale(float64(p), float64(p))
		op.GeoM.Translate(float64(gx), float64(Y))
		dst.DrawImage(g, op)
		X += adv * p
	}
}
