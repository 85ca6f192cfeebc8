//go:build display

package client

import (
	"image"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rtype/rtype/game/client/art"
)

// countNear counts pixels within tol (per channel) of c.
func countNear(img image.Image, c color.RGBA, tol int) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			d := func(v uint32, w uint8) int { x := int(v>>8) - int(w); return max(x, -x) }
			if d(r, c.R) <= tol && d(g, c.G) <= tol && d(bb, c.B) <= tol {
				n++
			}
		}
	}
	return n
}

// TestScreenshotShowsGame runs the real client (window, drawing, -screenshot path) on a
// hand-filled world in a child process and checks the PNG: 1920x1080, the four ship colours and
// the enemy colours are present. Needs a display: xvfb-run -a go test ./game/client/
func TestScreenshotShowsGame(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("needs a display (run under xvfb-run)")
	}
	out := filepath.Join(t.TempDir(), "shot.png")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), harnessEnv+"=shot", "RTYPE_SHOT="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("client harness: %v\n%s", err, b)
	}
	img := readPNG(t, out)
	if b := img.Bounds(); b.Dx() != 1920 || b.Dy() != 1080 {
		t.Fatalf("screenshot is %v, want 1920x1080", b)
	}
	if dir := os.Getenv("RTYPE_SHOT_KEEP"); dir != "" {
		data, _ := os.ReadFile(out)
		os.WriteFile(filepath.Join(dir, "harness.png"), data, 0o644)
	}
	line := 0
	for x := 0; x < 1920; x++ {
		r, g, b, _ := img.At(x, art.HUDLineY).RGBA()
		if c := art.HUDLineColor; uint8(r>>8) == c.R && uint8(g>>8) == c.G && uint8(b>>8) == c.B {
			line++
		}
	}
	if line != 1920 {
		t.Errorf("HUD line (in-game marker) covers %d of 1920 px", line)
	}
	for slot, c := range art.SlotColors {
		if n := countNear(img, c, 12); n < 200 {
			t.Errorf("slot %d ship colour %v: only %d pixels", slot, c, n)
		}
	}
	for v, c := range art.EnemyColors {
		if n := countNear(img, c, 12); n < 45 { // 5 art pixels (3×3 px each) of the mid tone
			t.Errorf("enemy variant %d colour %v: only %d pixels", v, c, n)
		}
	}
}
