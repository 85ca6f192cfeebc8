//go:build display

package client

import (
	"context"
	"image"
	"image/png"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/game/client/art"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/server"
)

// TestRealClientAgainstServer is the end-to-end check of issue 5: a real server on loopback, the
// real rtype-client binary with -autoplay -start -screenshot; the PNG must be a 1920x1080 in-game
// frame (the HUD line, player 1's colour and enemy colours present). It runs twice: with the ALSA
// null device (audio on), and with -mute and no ALSA configuration at all.
func TestRealClientAgainstServer(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("needs a display (make test runs it under xvfb-run)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "rtype-client")
	build := exec.Command("go", "build", "-o", bin, "github.com/rtype/rtype/cmd/rtype-client")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build rtype-client: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- server.Run(ctx, server.Config{Addr: "127.0.0.1:0", UDPHost: "127.0.0.1", Stage: "stage1",
			Ready: func(a net.Addr, _ *instance.Manager) { ready <- a.String() }})
	}()
	defer func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("server: %v", err)
		}
	}()
	var addr string
	select {
	case addr = <-ready:
	case err := <-errc:
		t.Fatalf("server: %v", err)
	}
	alsa := filepath.Join(dir, "alsa.conf")
	if err := os.WriteFile(alsa, []byte("</usr/share/alsa/alsa.conf>\npcm.!default { type null }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		env  []string
	}{
		{"alsa-null", nil, []string{"ALSA_CONFIG_PATH=" + alsa}},
		{"mute-no-alsa", []string{"-mute"}, []string{"ALSA_CONFIG_PATH=/nonexistent/alsa.conf"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shot := filepath.Join(dir, tc.name+".png")
			args := append([]string{"-server", addr, "-autoplay", "-start", "-screenshot", shot, "-screenshot-after", "180",
				"-config", filepath.Join(dir, tc.name)}, tc.args...)
			cctx, ccancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer ccancel()
			cmd := exec.CommandContext(cctx, bin, args...)
			var env []string
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "ALSA_CONFIG_PATH=") {
					env = append(env, kv)
				}
			}
			cmd.Env = append(env, tc.env...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("rtype-client %v: %v\n%s", args, err, out)
			}
			if keep := os.Getenv("RTYPE_SHOT_KEEP"); keep != "" {
				data, _ := os.ReadFile(shot)
				_ = os.WriteFile(filepath.Join(keep, tc.name+".png"), data, 0o644)
			}
			img := readPNG(t, shot)
			if b := img.Bounds(); b.Dx() != 1920 || b.Dy() != 1080 {
				t.Fatalf("screenshot is %v, want 1920x1080", b)
			}
			line := 0
			for x := 0; x < 1920; x++ {
				r, g, b, _ := img.At(x, art.HUDLineY).RGBA()
				if c := art.HUDLineColor; uint8(r>>8) == c.R && uint8(g>>8) == c.G && uint8(b>>8) == c.B {
					line++
				}
			}
			if line < 1900 {
				t.Errorf("the HUD line (drawn only in game) covers %d of 1920 px: not an in-game frame", line)
			}
			if n := countNear(img, art.SlotColors[0], 12); n < 200 {
				t.Errorf("player 1's colour %v: only %d px", art.SlotColors[0], n)
			}
			enemies := 0
			for _, c := range art.EnemyColors {
				enemies += countNear(img, c, 12)
			}
			if enemies < 100 {
				t.Errorf("enemy colours: only %d px", enemies)
			}
			if tc.name == "mute-no-alsa" && strings.Contains(string(out), "panic") {
				t.Errorf("client output mentions a panic:\n%s", out)
			}
		})
	}
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}
