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

// benchFrame measures one client frame (Update + Draw into the 1920x1080 canvas and the screen)
// on a hand-filled world with 4 players and 300 entities. Every frame ends with a GPU sync
// (ReadPixels of one pixel, which flushes ebiten's command queue as a real frame end does).
// Without gpu the sync is outside the timer, so the figure is the CPU cost of the frame; with
// gpu it includes rendering (on Xvfb that is Mesa's software rasterizer).
// Needs a display: xvfb-run -a go test ./game/client/ -run '^$' -bench Frame
func benchFrame(b *testing.B, gpu bool) {
	if os.Getenv("DISPLAY") == "" {
		b.Skip("needs a display (run under xvfb-run)")
	}
	cfg := Config{local: demoWorld(300), Mute: true, ConfigDir: b.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), terrain: demoTerrain()}
	a, err := newApp(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer a.close()
	screen := ebiten.NewImage(Width, Height)
	px := make([]byte, 4)
	one := screen.SubImage(image.Rect(0, 0, 1, 1)).(*ebiten.Image)
	for i := 0; i < 30; i++ {
		a.Update()
		a.Draw(screen)
	}
	if a.draw.items == nil || len(a.draw.items) < 290 {
		b.Fatalf("world not drawn: %d items", len(a.draw.items))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := a.Update(); err != nil {
			b.Fatal(err)
		}
		a.Draw(screen)
		if !gpu {
			b.StopTimer()
		}
		one.ReadPixels(px)
		if !gpu {
			b.StartTimer()
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(a.draw.items)), "entities")
}

func BenchmarkFrameCPU(b *testing.B) { benchFrame(b, false) }
func BenchmarkFrameGPU(b *testing.B) { benchFrame(b, true) }
