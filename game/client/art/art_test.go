package art

import (
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

func opaque(img *image.RGBA) int {
	n := 0
	for i := 3; i < len(img.Pix); i += 4 {
		if img.Pix[i] > 128 {
			n++
		}
	}
	return n
}

func TestEverySpriteHasContent(t *testing.T) {
	s := NewSheet()
	all := map[string]*image.RGBA{"beam": s.Beam, "glow": s.Glow, "ring": s.Ring}
	for i, img := range s.Ship {
		all["ship"+string(rune('0'+i))] = img
	}
	for i, img := range s.Enemy {
		all["enemy"+string(rune('0'+i))] = img
	}
	for i, img := range append(append(append(s.Force[:], s.Shot[:]...), s.EnemyBullet[:]...), append(append(s.Boss[:], s.Weak[:]...), s.PowerUp[:]...)...) {
		all["misc"+string(rune('a'+i))] = img
	}
	for name, img := range all {
		b := img.Bounds()
		if frac := float64(opaque(img)) / float64(b.Dx()*b.Dy()); frac < 0.03 {
			t.Errorf("%s: only %.1f%% opaque pixels", name, frac*100)
		}
	}
	if dir := os.Getenv("RTYPE_ART_DIR"); dir != "" { // dump for a look: RTYPE_ART_DIR=/tmp/art go test
		sheet := image.NewRGBA(image.Rect(0, 0, 1400, 700))
		draw.Draw(sheet, sheet.Bounds(), image.NewUniform(color.RGBA{10, 10, 30, 255}), image.Point{}, draw.Src)
		x, y, rowH := 10, 10, 0
		for _, name := range sortedKeys(all) {
			img := all[name]
			b := img.Bounds()
			if x+b.Dx() > 1390 {
				x, y, rowH = 10, y+rowH+10, 0
			}
			draw.Draw(sheet, b.Add(image.Pt(x, y)), img, image.Point{}, draw.Over)
			x += b.Dx() + 10
			rowH = max(rowH, b.Dy())
		}
		f, _ := os.Create(filepath.Join(dir, "sheet.png"))
		png.Encode(f, sheet)
		f.Close()
	}
}

func TestShipUsesSlotColour(t *testing.T) {
	img := Ship(SlotColors[0])
	c := img.RGBAAt(40, 22) // hull, behind the cockpit
	want := SlotColors[0]
	if c != want && c != Shade(want, 1.45) {
		t.Fatalf("hull pixel %v, want slot colour %v", c, want)
	}
	if img.RGBAAt(1, 1).A != 0 {
		t.Fatal("corner should be transparent")
	}
}

func TestRingHasHole(t *testing.T) {
	s := NewSheet()
	if s.Ring.RGBAAt(64, 64).A != 0 || s.Ring.RGBAAt(64, 10).A < 200 {
		t.Fatalf("ring centre %v edge %v", s.Ring.RGBAAt(64, 64), s.Ring.RGBAAt(64, 10))
	}
}

func sortedKeys(m map[string]*image.RGBA) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
