package art

import (
	"fmt"
	"image"
	"image/color"
	"testing"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
)

func opaque(img *image.RGBA, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.RGBAAt(x, y).A > 128 {
				n++
			}
		}
	}
	return n
}

// TestEveryKindHasFrames: every entity kind and variant the game can send has its animation in
// the atlas, and every frame has content.
func TestEveryKindHasFrames(t *testing.T) {
	s := MustLoad()
	want := map[string]int{"flame": 3, "bit": 4, "weak": 4, "logo": 1, "glow": 1, "dot": 1}
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		want[fmt.Sprintf("ship/%d", slot)] = 5 // banking: up2, up1, level, down1, down2
	}
	for lv := 1; lv <= 3; lv++ {
		want[fmt.Sprintf("force/%d", lv)] = 4
		want[fmt.Sprintf("beam/%d", lv)] = 4
	}
	for v := 0; v < int(game.NumShotLooks); v++ {
		want[fmt.Sprintf("shot/%d", v)] = 2
	}
	for v := 0; v <= int(game.EnemyEngine); v++ {
		want[fmt.Sprintf("enemy/%d", v)] = 2
	}
	for v := 0; v <= int(game.PowerMissile); v++ {
		want[fmt.Sprintf("power/%d", v)] = 4
	}
	for _, v := range []uint8{game.BossBig, game.BossSmall, game.BossWall, game.BossCore} {
		want[fmt.Sprintf("boss/%d", v)] = 2
	}
	for v := 0; v <= int(game.PartTentacleTip); v++ {
		want[fmt.Sprintf("part/%d", v)] = 2
	}
	for _, v := range []uint8{game.ExplosionSmall, game.ExplosionBig, game.ExplosionBoss} {
		want[fmt.Sprintf("explosion/%d", v)] = 6
	}
	want["ebullet/0"], want["ebullet/1"] = 4, 4
	for name, n := range want {
		fr := s.Frames[name]
		if len(fr) < n {
			t.Errorf("%s: %d frames, want at least %d", name, len(fr), n)
		}
		for i, r := range fr {
			if frac := float64(opaque(s.Atlas, r)) / float64(r.Dx()*r.Dy()); frac < 0.03 {
				t.Errorf("%s[%d]: only %.1f%% opaque pixels", name, i, frac*100)
			}
		}
	}
}

// TestSpritesCoverTheirHitbox: drawn at Scale, a sprite is about its entity's size (between
// 70% and 160% of game.SizeOf on each axis), so what the player sees is what collides.
func TestSpritesCoverTheirHitbox(t *testing.T) {
	s := MustLoad()
	check := func(name string, k game.Kind) {
		r := s.Frames[name][0]
		sz := game.SizeOf(k)
		w, h := float64(r.Dx()*s.Scale), float64(r.Dy()*s.Scale)
		if w < 0.7*float64(sz.W) || w > 1.6*float64(sz.W) || h < 0.7*float64(sz.H) || h > 1.6*float64(sz.H) {
			t.Errorf("%s drawn %vx%v, hitbox %dx%d", name, w, h, sz.W, sz.H)
		}
	}
	check("ship/0", game.Kind{Kind: game.KindPlayer})
	for v := 0; v <= int(game.EnemyEngine); v++ {
		check(fmt.Sprintf("enemy/%d", v), game.Kind{Kind: game.KindEnemy, Variant: uint8(v)})
	}
	for v := uint8(0); v < 3; v++ {
		check(fmt.Sprintf("boss/%d", v), game.Kind{Kind: game.KindBoss, Variant: v})
		check(fmt.Sprintf("beam/%d", v+1), game.Kind{Kind: game.KindBeam, Variant: v + 1})
	}
	check("boss/3", game.Kind{Kind: game.KindBoss, Variant: game.BossCore})
	check("weak", game.Kind{Kind: game.KindBossWeakPoint})
	check("power/0", game.Kind{Kind: game.KindPowerUp})
}

// TestShipAndEnemyColours: the colours the HUD and the screenshot test use are the sprites'
// mid tones.
func TestShipAndEnemyColours(t *testing.T) {
	s := MustLoad()
	count := func(name string, c [4]uint8) int {
		n := 0
		for _, r := range s.Frames[name] {
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := r.Min.X; x < r.Max.X; x++ {
					p := s.Atlas.RGBAAt(x, y)
					if p.R == c[0] && p.G == c[1] && p.B == c[2] {
						n++
					}
				}
			}
		}
		return n
	}
	for slot, c := range SlotColors {
		if n := count(fmt.Sprintf("ship/%d", slot), [4]uint8{c.R, c.G, c.B}); n < 20 {
			t.Errorf("ship %d: %d pixels of %v", slot, n, c)
		}
	}
	for v, c := range EnemyColors {
		if n := count(fmt.Sprintf("enemy/%d", v), [4]uint8{c.R, c.G, c.B}); n < 10 {
			t.Errorf("enemy %d: %d pixels of %v", v, n, c)
		}
	}
}

func TestLayersAndTiles(t *testing.T) {
	s := MustLoad()
	for th := range Themes {
		far := s.Layers[th][LayerFar]
		if opaque(far, far.Bounds()) != far.Bounds().Dx()*far.Bounds().Dy() {
			t.Errorf("theme %d: far layer not opaque", th)
		}
		for _, l := range []int{LayerMid, LayerNear} {
			img := s.Layers[th][l]
			b := img.Bounds()
			mid := image.Rect(0, LayerBand, b.Dx(), b.Dy()-LayerBand)
			if n := opaque(img, mid); n != 0 {
				t.Errorf("theme %d layer %d: %d px between the bands", th, l, n)
			}
			if opaque(img, b) < b.Dx()*20 {
				t.Errorf("theme %d layer %d: almost empty", th, l)
			}
		}
		if f := s.Fill[th]; opaque(f, f.Bounds()) != f.Bounds().Dx()*f.Bounds().Dy() {
			t.Errorf("theme %d: fill tile has holes", th)
		}
	}
}

// TestStripsCoverTheBands: the strips a layer band is drawn in hold every pixel of the band
// that is not fully transparent (nothing of the layer goes missing), lie inside the band and
// do not overlap, and leave out most of its transparent pixels.
func TestStripsCoverTheBands(t *testing.T) {
	s := MustLoad()
	for th := range Themes {
		for _, l := range []int{LayerMid, LayerNear} {
			img := s.Layers[th][l]
			b := img.Bounds()
			for _, band := range []image.Rectangle{image.Rect(0, 0, b.Dx(), LayerBand), image.Rect(0, b.Dy()-LayerBand, b.Dx(), b.Dy())} {
				strips := Strips(img, band, StripWidth)
				covered := map[image.Point]int{}
				area := 0
				for _, r := range strips {
					if !r.In(band) || r.Dx() > StripWidth {
						t.Fatalf("theme %d layer %d: strip %v outside band %v", th, l, r, band)
					}
					area += r.Dx() * r.Dy()
					for y := r.Min.Y; y < r.Max.Y; y++ {
						for x := r.Min.X; x < r.Max.X; x++ {
							covered[image.Pt(x, y)]++
						}
					}
				}
				ink := 0
				for y := band.Min.Y; y < band.Max.Y; y++ {
					for x := band.Min.X; x < band.Max.X; x++ {
						p := image.Pt(x, y)
						if covered[p] > 1 {
							t.Fatalf("theme %d layer %d: %v in %d strips", th, l, p, covered[p])
						}
						if img.RGBAAt(x, y).A != 0 {
							ink++
							if covered[p] == 0 {
								t.Fatalf("theme %d layer %d: pixel %v of the band in no strip", th, l, p)
							}
						}
					}
				}
				if ink > 0 && area > (ink+band.Dx()*band.Dy())/2 {
					t.Errorf("theme %d layer %d band %v: strips cover %d px for %d px of ink (band %d px)", th, l, band, area, ink, band.Dx()*band.Dy())
				}
			}
		}
	}
	// a column with one pixel of ink is cut down to that row; an empty column is dropped
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	img.SetRGBA(5, 3, color.RGBA{0, 0, 0, 1})
	if got := Strips(img, img.Bounds(), 4); len(got) != 1 || got[0] != image.Rect(4, 3, 8, 4) {
		t.Errorf("Strips = %v, want [(4,3)-(8,4)]", got)
	}
}

func TestAnim(t *testing.T) {
	if Anim(4, 0, 6) != 0 || Anim(4, 6, 6) != 1 || Anim(4, 24, 6) != 0 || Anim(1, 99, 6) != 0 {
		t.Fatal("Anim")
	}
}

// TestFontCoversASCII: the UI font has every printable ASCII character (player names and chat
// may hold any) and the symbols the menus use, all GlyphHeight+1 px high; letters and digits
// have ink.
func TestFontCoversASCII(t *testing.T) {
	s := MustLoad()
	for r := rune(' '); r <= '~'; r++ {
		g, ok := s.Glyphs[r]
		if !ok {
			t.Errorf("no glyph for %q", r)
			continue
		}
		if g.Dy() != GlyphHeight+1 {
			t.Errorf("glyph %q is %d px high, want %d", r, g.Dy(), GlyphHeight+1)
		}
		if r != ' ' && opaque(s.Atlas, g) == 0 {
			t.Errorf("glyph %q is empty", r)
		}
	}
	for _, r := range "·—←→" {
		if _, ok := s.Glyphs[r]; !ok {
			t.Errorf("no glyph for %q", r)
		}
	}
}

// The window icon has an image of each size, square, showing the ship (opaque pixels, and
// transparent corners around it).
func TestIcons(t *testing.T) {
	s := MustLoad()
	icons := s.Icons()
	if len(icons) != len(IconSizes) {
		t.Fatalf("%d icons, want %d", len(icons), len(IconSizes))
	}
	for i, ic := range icons {
		img := ic.(*image.RGBA)
		n := IconSizes[i]
		if img.Bounds() != image.Rect(0, 0, n, n) {
			t.Errorf("icon %d is %v, want %dx%d", i, img.Bounds(), n, n)
		}
		if o := opaque(img, img.Bounds()); o < n*n/8 || o == n*n {
			t.Errorf("icon %dx%d: %d opaque pixels of %d, want a ship on a transparent ground", n, n, o, n*n)
		}
		if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
			t.Errorf("icon %dx%d: corner not transparent", n, n)
		}
	}
}
