package sfx

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rtype/rtype/game/client/synth"
)

// alsaConf writes an ALSA configuration and points the probe child at it.
func alsaConf(t *testing.T, content string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "alsa.conf")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ALSA_CONFIG_PATH", p)
}

func TestProbeWithoutDeviceFailsQuickly(t *testing.T) {
	alsaConf(t, "# no pcm defined\n")
	start := time.Now()
	err := Probe(2 * time.Second)
	if err == nil {
		t.Fatal("probe succeeded without any ALSA device")
	}
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Fatalf("probe took %v", d)
	}
	p := New(false, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if p.Enabled() {
		t.Fatal("player enabled without a device")
	}
	p.Play(synth.Shot) // muted players ignore every call
	p.Music(1)
	p.StopMusic()
}

func TestProbeNullDevice(t *testing.T) {
	if _, err := os.Stat("/usr/share/alsa/alsa.conf"); err != nil {
		t.Skip("no ALSA configuration on this machine")
	}
	alsaConf(t, "</usr/share/alsa/alsa.conf>\npcm.!default { type null }\n")
	if err := Probe(2 * time.Second); err != nil {
		t.Fatalf("probe with the ALSA null device: %v", err)
	}
}

func TestMuteOpensNothing(t *testing.T) {
	var nilPlayer *Player
	if nilPlayer.Enabled() || New(true, slog.Default()).Enabled() {
		t.Fatal("muted player enabled")
	}
}
