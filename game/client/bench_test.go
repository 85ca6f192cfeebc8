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

// benchFrame measures one client frame (Update + Draw onto a w×h screen image)
// on a hand-filled world with 4 players and 300 entities. Every frame ends with a GPU sync
// (one pixel of the screen read back, which flushes ebiten's command queue and waits for the
// rendering, as a real frame end does).
// Without gpu the sync is outside the timer, so the figure is the CPU cost of the frame; with
// gpu it includes rendering (on Xvfb that is Mesa's software rasterizer).
// Needs a display: xvfb-run -a go test ./game/client/ -run '^$' -bench Frame
func benchFrame(b *testing.B, gpu bool, w, h int) {
	if os.Getenv("DISPLAY") == "" {
		b.Skip("needs a display (run under xvfb-run)")
	}
	cfg := Config{local: demoWorld(300), Mute: true, ConfigDir: b.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), terrain: demoTerrain()}
	a, err := newApp(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer a.close()
	screen := ebiten.NewImage(w, h)
	offscreen := ebiten.NewImage(w, h)
	draw := func() { // what ebiten does each frame: Draw, then DrawFinalScreen
		a.Draw(offscreen)
		a.DrawFinalScreen(screen, offscreen, ebiten.GeoM{})
	}
	px := make([]byte, 4)
	one := screen.SubImage(image.Rect(0, 0, 1, 1)).(*ebiten.Image)
	// reading one pixel of screen back through a separate 1×1 image waits for the frame's
	// rendering without reading back (and timing) the whole screen
	sink := ebiten.NewImageWithOptions(image.Rect(0, 0, 1, 1), &ebiten.NewImageOptions{Unmanaged: true})
	sync := func() {
		sink.DrawImage(one, nil)
		sink.ReadPixels(px)
	}
	for i := 0; i < 30; i++ {
		a.Update()
		draw()
	}
	if len(a.draw.items) < 290 {
		b.Fatalf("world not drawn: %d items", len(a.draw.items))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := a.Update(); err != nil {
			b.Fatal(err)
		}
		draw()
		if !gpu {
			b.StopTimer()
		}
		sync()
		if !gpu {
			b.StartTimer()
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(a.draw.items)), "entities")
}

func BenchmarkFrameCPU(b *testing.B)     { benchFrame(b, false, Width, Height) }
func BenchmarkFrameGPU(b *testing.B)     { benchFrame(b, true, Width, Height) }
func BenchmarkFrameGPU720p(b *testing.B) { benchFrame(b, true, 1280, 720) }
