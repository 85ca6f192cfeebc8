// Command sprites renders every sprite of rtype as pixel art (low-resolution pixels with a dark
// outline, four lit tones and a top-left light) into the atlases under assets/sprites/ and a
// labelled contact sheet of every frame into docs/art/contact-sheet.png. Nothing is downloaded:
// the art is this program. Run from the repository root through go generate (assets/gen.go):
//
//	go generate ./assets/        (or from the root: go run ./assets/gen/sprites)
//
// TestCommittedArtIsGenerated checks that the committed files are this program's output.
//
// Output (deterministic, so a re-run with unchanged code changes no byte):
//   - assets/sprites/atlas.png: every animated sprite frame and the UI font's glyphs
//     ("glyph/<code point>", font.go), packed in shelves;
//   - assets/sprites/atlas.json: the index, {"scale":3,"frames":{"name":[[x,y,w,h],...]}};
//     a frame is drawn centred on its entity, each atlas pixel scale×scale virtual px;
//   - assets/sprites/tile-<theme>-fill.png (32×32, repeats both ways) and tile-<theme>-lip.png
//     (32×10, repeats horizontally; row 0 faces the corridor) for the terrain;
//   - assets/sprites/layer-<theme>-<far|mid|near>.png: 640×360 parallax layers (far is opaque;
//     mid and near keep content in the top and bottom 110 rows);
//   - docs/art/contact-sheet.png.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"log"
	"math"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Scale is the size in virtual px of one sprite pixel.
const Scale = 3

type seq struct {
	name   string
	frames []*image.RGBA
}

// Themes in game.ThemeNames order.
var themes = []string{"base", "organic", "warship"}

func sprites() []seq {
	var out []seq
	add := func(name string, fr ...*image.RGBA) { out = append(out, seq{name, fr}) }
	for slot := range shipRamps {
		var fr []*image.RGBA
		for _, b := range []float64{-2, -1, 0, 1, 2} {
			fr = append(fr, ship(&shipRamps[slot], b))
		}
		add(fmt.Sprintf("ship/%d", slot), fr...)
	}
	add("flame", flame(0), flame(1), flame(2))
	for lv := 1; lv <= 3; lv++ {
		add(fmt.Sprintf("force/%d", lv), force(lv, 0), force(lv, 1), force(lv, 2), force(lv, 3))
	}
	add("bit", bit(0), bit(1), bit(2), bit(3))
	// player shots by game variant: 0 normal, 1 Force shot, 2 missile, 3..11 lasers
	add("shot/0", shotNormal(0), shotNormal(1))
	add("shot/1", shotForce(0), shotForce(1))
	add("shot/2", shotMissile(0), shotMissile(1))
	for lv := 1; lv <= 3; lv++ {
		add(fmt.Sprintf("shot/%d", 3+lv-1), helix(lv, 0), helix(lv, 1), helix(lv, 2), helix(lv, 3))
		add(fmt.Sprintf("shot/%d", 6+lv-1), bar(lv, 0), bar(lv, 1))
		add(fmt.Sprintf("shot/%d", 9+lv-1), crawler(lv, 0), crawler(lv, 1), crawler(lv, 2))
		add(fmt.Sprintf("beam/%d", lv), beam(lv, 0), beam(lv, 1), beam(lv, 2), beam(lv, 3))
	}
	add("ebullet/0", enemyBullet(false, 0), enemyBullet(false, 1), enemyBullet(false, 2), enemyBullet(false, 3))
	add("ebullet/1", enemyBullet(true, 0), enemyBullet(true, 1), enemyBullet(true, 2), enemyBullet(true, 3))
	for v := 0; v < 10; v++ {
		add(fmt.Sprintf("enemy/%d", v), enemyFrames(v)...)
	}
	add("enemy/10", engine(0), engine(1), engine(2), engine(3))
	for v := 0; v < 6; v++ {
		add(fmt.Sprintf("power/%d", v), capsule(v, 0), capsule(v, 1), capsule(v, 2), capsule(v, 3))
	}
	for v := 0; v < 3; v++ {
		add(fmt.Sprintf("boss/%d", v), boss(v, 0), boss(v, 1))
	}
	add("boss/3", core(0), core(1))
	add("weak", weak(0), weak(1), weak(2), weak(3))
	for v := 0; v < 4; v++ {
		add(fmt.Sprintf("part/%d", v), part(v, 0), part(v, 1))
	}
	for v, e := range []struct {
		r float64
		n int
	}{{10, 6}, {20, 8}, {40, 10}} {
		var fr []*image.RGBA
		for f := 0; f < e.n; f++ {
			fr = append(fr, explosion(e.r, f, e.n, uint64(11+v)))
		}
		add(fmt.Sprintf("explosion/%d", v), fr...)
	}
	add("logo", logo())
	add("glow", glowDisc(16))
	add("dot", dotSq())
	return out
}

type rect [4]int

// pack places every frame on shelves of an atlas w px wide (1 px transparent gutter).
func pack(seqs []seq, w int) (*image.RGBA, map[string][]rect) {
	type ref struct{ s, f int }
	var refs []ref
	for si, s := range seqs {
		for fi := range s.frames {
			refs = append(refs, ref{si, fi})
		}
	}
	sort.SliceStable(refs, func(i, j int) bool {
		return seqs[refs[i].s].frames[refs[i].f].Bounds().Dy() > seqs[refs[j].s].frames[refs[j].f].Bounds().Dy()
	})
	pos := make(map[ref]rect)
	x, y, shelf := 1, 1, 0
	for _, r := range refs {
		b := seqs[r.s].frames[r.f].Bounds()
		if x+b.Dx()+1 > w {
			x, y, shelf = 1, y+shelf+1, 0
		}
		pos[r] = rect{x, y, b.Dx(), b.Dy()}
		x += b.Dx() + 1
		shelf = max(shelf, b.Dy())
	}
	h := 1
	for h < y+shelf+1 {
		h *= 2
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	idx := map[string][]rect{}
	for si, s := range seqs {
		for fi, f := range s.frames {
			p := pos[ref{si, fi}]
			draw.Draw(img, image.Rect(p[0], p[1], p[0]+p[2], p[1]+p[3]), f, image.Point{}, draw.Src)
			idx[s.name] = append(idx[s.name], p)
		}
	}
	return img, idx
}

func encodePNG(img image.Image) []byte {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, img); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}

func main() {
	out := flag.String("out", "assets/sprites", "directory of the atlases")
	sheet := flag.String("sheet", "docs/art/contact-sheet.png", "contact sheet PNG (\"\": none)")
	flag.Parse()
	files, contactSheet := render(*sheet != "")
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(*out, f.name), f.data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	if *sheet != "" {
		if err := os.MkdirAll(filepath.Dir(*sheet), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(*sheet, contactSheet, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// file is one output file of the generator: its name in the sprites directory and its bytes.
type file struct {
	name string
	data []byte
}

// render draws every output in memory: the files of assets/sprites in a fixed order and, when
// sheet is set, the contact sheet PNG. The output depends only on this program (the
// reproducibility test compares it with the committed files).
func render(sheet bool) ([]file, []byte) {
	seqs := sprites()
	var glyphSeqs []seq
	for _, r := range glyphRunes() {
		glyphSeqs = append(glyphSeqs, seq{fmt.Sprintf("glyph/%d", r), []*image.RGBA{fontGlyph(r)}})
	}
	atlas, idx := pack(append(seqs[:len(seqs):len(seqs)], glyphSeqs...), 1024)
	files := []file{{"atlas.png", encodePNG(atlas)}}
	js, _ := json.MarshalIndent(struct {
		Scale  int               `json:"scale"`
		Frames map[string][]rect `json:"frames"`
	}{Scale, idx}, "", " ")
	files = append(files, file{"atlas.json", append(js, '\n')})
	var scenery []seq
	for t, name := range themes {
		fill, lip := terrainFill(t), terrainLip(t)
		far, mid, near := farLayer(t), bandLayer(t, false), bandLayer(t, true)
		files = append(files,
			file{"tile-" + name + "-fill.png", encodePNG(fill)},
			file{"tile-" + name + "-lip.png", encodePNG(lip)},
			file{"layer-" + name + "-far.png", encodePNG(far)},
			file{"layer-" + name + "-mid.png", encodePNG(mid)},
			file{"layer-" + name + "-near.png", encodePNG(near)})
		scenery = append(scenery, seq{"tiles " + name + " (fill 3x3, lip)", []*image.RGBA{repeat(fill, 3, 3), repeat(lip, 3, 1)}},
			seq{"layers " + name + " (far+mid+near, 1/2 size)", []*image.RGBA{half(stack(far, mid, near))}})
	}
	if !sheet {
		return files, nil
	}
	scenery = append(scenery, seq{"UI font (glyph/<code point>, 2x)", []*image.RGBA{fontSpecimen()}})
	return files, encodePNG(contact(seqs, scenery))
}

func repeat(src *image.RGBA, nx, ny int) *image.RGBA {
	b := src.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx()*nx, b.Dy()*ny))
	for y := 0; y < ny; y++ {
		for x := 0; x < nx; x++ {
			draw.Draw(out, b.Add(image.Pt(x*b.Dx(), y*b.Dy())), src, image.Point{}, draw.Src)
		}
	}
	return out
}

func stack(layers ...*image.RGBA) *image.RGBA {
	out := image.NewRGBA(layers[0].Bounds())
	for _, l := range layers {
		draw.Draw(out, out.Bounds(), l, image.Point{}, draw.Over)
	}
	return out
}

func half(src *image.RGBA) *image.RGBA {
	b := src.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx()/2, b.Dy()/2))
	for y := 0; y < b.Dy()/2; y++ {
		for x := 0; x < b.Dx()/2; x++ {
			out.SetRGBA(x, y, src.RGBAAt(2*x, 2*y))
		}
	}
	return out
}

// contact lays out every sequence, frames ×2 (nearest), each group labelled with its atlas name
// and every frame with its index; the scenery at 1×.
func contact(seqs, scenery []seq) *image.RGBA {
	const W, zoom = 1800, 2
	type placed struct {
		label string
		x, y  int
		img   *image.RGBA
		z     int
	}
	var items []placed
	var labels []placed
	x, y, rowH := 16, 16, 0
	place := func(s seq, z int) {
		gw := 0
		for _, f := range s.frames {
			gw += f.Bounds().Dx()*z + 8
		}
		gh := 0
		for _, f := range s.frames {
			gh = max(gh, f.Bounds().Dy()*z)
		}
		gw = max(gw, len(s.name)*7+8)
		if x+gw > W-16 {
			x, y, rowH = 16, y+rowH+40, 0
		}
		labels = append(labels, placed{label: s.name, x: x, y: y + 12})
		fx := x
		for i, f := range s.frames {
			items = append(items, placed{x: fx, y: y + 18, img: f, z: z})
			if len(s.frames) > 1 {
				labels = append(labels, placed{label: fmt.Sprint(i), x: fx, y: y + 18 + gh + 12})
			}
			fx += f.Bounds().Dx()*z + 8
		}
		x += gw + 16
		rowH = max(rowH, gh+18)
	}
	for _, s := range seqs {
		place(s, zoom)
	}
	x, y, rowH = 16, y+rowH+40, 0
	for _, s := range scenery {
		place(s, 1)
	}
	H := y + rowH + 40
	img := image.NewRGBA(image.Rect(0, 0, W, H))
	draw.Draw(img, img.Bounds(), image.NewUniform(hex(0x141830)), image.Point{}, draw.Src)
	for _, it := range items {
		b := it.img.Bounds()
		draw.Draw(img, image.Rect(it.x-2, it.y-2, it.x+b.Dx()*it.z+2, it.y+b.Dy()*it.z+2), image.NewUniform(hex(0x1e2442)), image.Point{}, draw.Src)
		for py := 0; py < b.Dy()*it.z; py++ {
			for px := 0; px < b.Dx()*it.z; px++ {
				c := it.img.RGBAAt(px/it.z, py/it.z)
				if c.A > 0 {
					img.SetRGBA(it.x+px, it.y+py, c)
				}
			}
		}
	}
	d := font.Drawer{Dst: img, Src: image.NewUniform(color.RGBA{200, 210, 240, 255}), Face: basicfont.Face7x13}
	for _, l := range labels {
		d.Dot = fixed.P(l.x, l.y)
		d.DrawString(l.label)
	}
	return img
}

// glowDisc is a soft white radial glow (alpha falls off as (1-d)²), tinted by the client for
// the beam charge and the Force aura.
func glowDisc(s int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, s, s))
	m := float64(s) / 2
	for y := 0; y < s; y++ {
		for x := 0; x < s; x++ {
			d := math.Hypot(float64(x)+0.5-m, float64(y)+0.5-m) / m
			if d >= 1 {
				continue
			}
			a := uint8(255 * (1 - d) * (1 - d))
			img.SetRGBA(x, y, color.RGBA{a, a, a, a})
		}
	}
	return img
}

// dotSq is a 2×2 white square: stars and debris particles, tinted and scaled by the client.
func dotSq() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	return img
}
