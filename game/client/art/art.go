// Package art loads the game's pixel art, rendered by the sprite generator (assets/gen/sprites,
// go generate ./assets/) and embedded in package assets: one sprite atlas with its index, the
// terrain tiles and the parallax layers of each stage theme. It does not import ebiten, so the
// art can be loaded and checked without a display; the client uploads the images once.
package art

import (
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"strconv"
	"strings"

	"github.com/rtype/rtype/assets"
	"github.com/rtype/rtype/game"
)

// SlotColors are the ship colours of player slots 0..3 (blue, red, green, yellow): the mid tone
// of each ship's hull in the atlas (assets/gen/sprites palette.go). The HUD uses the same
// colours; an automated screenshot check can look for SlotColors[0] to find player 1.
var SlotColors = [4]color.RGBA{
	{60, 160, 255, 255},
	{255, 80, 80, 255},
	{80, 230, 110, 255},
	{255, 210, 60, 255},
}

// EnemyColors are the mid tones of the enemy variants' bodies in the atlas
// (game.EnemyStraight..EnemyEngine; debris particles take them).
var EnemyColors = [11]color.RGBA{
	{200, 60, 220, 255},  // straight: magenta
	{240, 150, 42, 255},  // sine: orange
	{150, 165, 120, 255}, // turret: grey-green
	{230, 50, 50, 255},   // homing: red
	{150, 120, 70, 255},  // carrier: olive
	{78, 154, 126, 255},  // walker: teal
	{134, 180, 54, 255},  // hopper: sick green
	{176, 74, 140, 255},  // snake: purple-pink
	{160, 96, 58, 255},   // snake body: brown
	{76, 92, 148, 255},   // midboss: slate blue
	{86, 112, 124, 255},  // engine: steel blue
}

// HUDLineColor is the opaque 2 px line drawn across the whole width at y = 1016..1017 (the top
// of the in-game HUD bar), on top of every entity: a screenshot shows the game (not a menu)
// exactly when that row has this colour.
var HUDLineColor = color.RGBA{80, 100, 160, 255}

// HUDLineY is the first row of the HUD line, in virtual px: the top of the HUD bar.
const HUDLineY = game.Height - game.HUDHeight

// Themes are the terrain themes in game.ThemeNames order (ThemeBase, ThemeOrganic, ThemeWarship).
var Themes = []string{"base", "organic", "warship"}

// Layer names, back to front.
const (
	LayerFar  = 0 // opaque backdrop
	LayerMid  = 1 // silhouettes in the top and bottom LayerBand rows
	LayerNear = 2
)

// LayerBand is how many rows at the top and at the bottom of a mid or near layer hold content
// (layer px; the rows between are transparent and need not be drawn).
const LayerBand = 110

// GlyphHeight is the height of the UI font's glyphs in font px without the shadow row: 7 px
// caps and digits (rows 0..6), 2 px descenders.
const GlyphHeight = 9

// Set is the decoded art.
type Set struct {
	// Scale is the size in virtual px of one art pixel (sprites, tiles and layers are drawn
	// scaled by it with nearest filtering).
	Scale int
	// Atlas holds every sprite frame; Frames names each animation's frames in it (the name
	// scheme is in assets/gen/sprites: "ship/0", "enemy/5", "explosion/2", "logo", ...).
	Atlas  *image.RGBA
	Frames map[string][]image.Rectangle
	// Glyphs are the UI font's glyphs in the atlas by rune (frames "glyph/<code point>"): white
	// with a black drop shadow baked one pixel down-right, GlyphHeight+1 px high; a glyph's
	// advance is its image width (the shadow column spaces the letters).
	Glyphs map[rune]image.Rectangle
	// Fill and Lip are the terrain tiles by theme: Fill repeats both ways inside ceiling,
	// floor and blocks; Lip repeats along a surface, row 0 towards the corridor.
	Fill, Lip [3]*image.RGBA
	// Layers are the parallax layers by theme and LayerFar..LayerNear.
	Layers [3][3]*image.RGBA
}

func decode(name string) (*image.RGBA, error) {
	f, err := assets.Sprites.Open("sprites/" + name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("art: %s: %w", name, err)
	}
	if rgba, ok := img.(*image.RGBA); ok {
		return rgba, nil
	}
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out, nil
}

// Load decodes the embedded art (about 50 ms).
func Load() (*Set, error) {
	s := &Set{}
	var err error
	if s.Atlas, err = decode("atlas.png"); err != nil {
		return nil, err
	}
	raw, err := assets.Sprites.ReadFile("sprites/atlas.json")
	if err != nil {
		return nil, err
	}
	var idx struct {
		Scale  int                 `json:"scale"`
		Frames map[string][][4]int `json:"frames"`
	}
	if err := json.Unmarshal(raw, &idx); err != nil {
		return nil, fmt.Errorf("art: atlas.json: %w", err)
	}
	s.Scale = idx.Scale
	s.Frames = make(map[string][]image.Rectangle, len(idx.Frames))
	for name, rs := range idx.Frames {
		for _, r := range rs {
			rect := image.Rect(r[0], r[1], r[0]+r[2], r[1]+r[3])
			if !rect.In(s.Atlas.Bounds()) || rect.Empty() {
				return nil, fmt.Errorf("art: frame %s %v outside the atlas", name, rect)
			}
			s.Frames[name] = append(s.Frames[name], rect)
		}
		if code, ok := strings.CutPrefix(name, "glyph/"); ok && len(s.Frames[name]) == 1 {
			if r, err := strconv.Atoi(code); err == nil {
				if s.Glyphs == nil {
					s.Glyphs = map[rune]image.Rectangle{}
				}
				s.Glyphs[rune(r)] = s.Frames[name][0]
			}
		}
	}
	for t, theme := range Themes {
		if s.Fill[t], err = decode("tile-" + theme + "-fill.png"); err != nil {
			return nil, err
		}
		if s.Lip[t], err = decode("tile-" + theme + "-lip.png"); err != nil {
			return nil, err
		}
		for l, name := range []string{"far", "mid", "near"} {
			if s.Layers[t][l], err = decode("layer-" + theme + "-" + name + ".png"); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// MustLoad is Load for the embedded art, which the tests check: it panics on an error.
func MustLoad() *Set {
	s, err := Load()
	if err != nil {
		panic(err)
	}
	return s
}

// Anim returns the frame of an animation of n frames at render frame (60 Hz) clock with one
// step every period frames.
func Anim(n, clock, period int) int {
	if n <= 1 || period <= 0 {
		return 0
	}
	return (clock / period) % n
}

// StripWidth is the width in layer px of the strips a mid or near layer band is drawn in
// (Strips): narrow enough to skip most of a band's transparent pixels, wide enough to keep the
// rectangles few (about 40 per band).
const StripWidth = 16

// Strips cuts r of img into columns w px wide and each column down to the rows that hold a
// pixel that is not fully transparent, dropping the empty ones: drawn source-over, the strips
// give the same picture as r (a fully transparent pixel leaves what is under it) with fewer
// pixels written.
func Strips(img *image.RGBA, r image.Rectangle, w int) []image.Rectangle {
	r = r.Intersect(img.Bounds())
	var out []image.Rectangle
	for x0 := r.Min.X; x0 < r.Max.X; x0 += w {
		x1 := min(x0+w, r.Max.X)
		y0, y1 := r.Max.Y, r.Min.Y
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := x0; x < x1; x++ {
				if img.Pix[img.PixOffset(x, y)+3] != 0 {
					y0, y1 = min(y0, y), max(y1, y+1)
					break
				}
			}
		}
		if y0 < y1 {
			out = append(out, image.Rect(x0, y0, x1, y1))
		}
	}
	return out
}

// IconSizes are the sizes of the window icon's images (the system picks the nearest).
var IconSizes = []int{16, 32, 48, 64, 128}

// Icons returns the window icon: player 1's ship (the first frame of "ship/0") centred on a
// transparent square and scaled with nearest filtering to each of IconSizes (pixel art stays
// crisp).
func (s *Set) Icons() []image.Image {
	fr := s.Frames["ship/0"]
	if len(fr) == 0 {
		return nil
	}
	src := fr[0]
	side := max(src.Dx(), src.Dy())
	sq := image.NewRGBA(image.Rect(0, 0, side, side))
	off := image.Pt((side-src.Dx())/2, (side-src.Dy())/2)
	draw.Draw(sq, image.Rectangle{Min: off, Max: off.Add(src.Size())}, s.Atlas, src.Min, draw.Src)
	out := make([]image.Image, 0, len(IconSizes))
	for _, n := range IconSizes {
		img := image.NewRGBA(image.Rect(0, 0, n, n))
		for y := range n {
			for x := range n {
				img.SetRGBA(x, y, sq.RGBAAt(x*side/n, y*side/n))
			}
		}
		out = append(out, img)
	}
	return out
}
