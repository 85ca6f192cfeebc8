//go:build display

package client

import (
	"context"
	"image"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/hajimehoshi/ebiten/v2"
)

// nullSurface takes draw calls and drops them, counting what they draw in rectangles (a
// triangle list: its indices / 6), so the client's own drawing code runs without ebiten's
// command queue.
type nullSurface struct {
	b     image.Rectangle
	draws int
}

func (s *nullSurface) Bounds() image.Rectangle { return s.b }
func (s *nullSurface) DrawImage(*ebiten.Image, *ebiten.DrawImageOptions) {
	s.draws++
}
func (s *nullSurface) DrawTriangles(_ []ebiten.Vertex, i []uint16, _ *ebiten.Image, _ *ebiten.DrawTrianglesOptions) {
	s.draws += len(i) / 6
}
func (s *nullSurface) DrawRectShader(int, int, *ebiten.Shader, *ebiten.DrawRectShaderOptions) {
	s.draws++
}
func (s *nullSurface) DrawTrianglesShader(_ []ebiten.Vertex, i []uint16, _ *ebiten.Shader, _ *ebiten.DrawTrianglesShaderOptions) {
	s.draws += len(i) / 6
}

// TestFrameAllocs pins the client's own per-frame work at zero allocations on a 4-player,
// 300-entity world with terrain, particles and the full HUD: Update (input, the world's step,
// particles) and the whole frame (world and UI) drawn onto surfaces that drop the calls.
// ebiten's own command queue (about 20 small allocations per frame, one per draw command) is
// not the client's and is left out, and so is the focus poll (ebiten.IsFocused, a main-thread
// call with 2 allocations, once every focusPollFrames frames).
func TestFrameAllocs(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("needs a display (run under xvfb-run)")
	}
	cfg := Config{local: demoWorld(300), Mute: true, ConfigDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), terrain: demoTerrain()}
	a, err := newApp(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	screen := &nullSurface{b: image.Rect(0, 0, 1280, 720)}
	world := &nullSurface{b: image.Rect(0, 0, 640, 360)}
	frame := func() {
		if err := a.Update(); err != nil {
			t.Fatal(err)
		}
		a.ui.xf = fit(1280, 720)
		a.drawWorld(painter{a.worldB.on(world, a.ui.sp), xf{k: 1 / a.ui.sp.scale}})
		a.worldB.flush()
		a.drawGameUI(a.screenB.on(screen, a.ui.sp))
		a.screenB.flush()
	}
	for i := 0; i < 120; i++ { // warm up: slices and the HUD's strings reach their size
		frame()
	}
	a.parts.Burst(900, 500, 200, 18, 70, 9, rgb(255, 180, 80)) // particles in flight
	screen.draws, world.draws = 0, 0
	frame()
	if len(a.draw.items) < 290 || world.draws < 300 || screen.draws < 40 {
		t.Fatalf("frame not drawn: %d items, %d world draws, %d UI draws", len(a.draw.items), world.draws, screen.draws)
	}
	if n := testing.AllocsPerRun(100, frame); n != 0 {
		t.Errorf("%.1f allocations per frame in the client's code, want 0", n)
	}
}
