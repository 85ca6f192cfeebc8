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
	if p.Notice() != NoDeviceNotice {
		t.Fatalf("notice %q without a device, want %q", p.Notice(), NoDeviceNotice)
	}
	p.Play(synth.Shot) // muted players ignore every call
	p.Music(1)
	p.Stinger(synth.StingerVictory)
	p.SetCharge(200)
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
	if nilPlayer.Notice() != "" || New(true, slog.Default()).Notice() != "" {
		t.Fatal("a player muted on purpose shows the no-device notice")
	}
}

// TestPlayerOnNullDevice plays music, a stinger, every effect and the hum through a real audio
// context on the ALSA null device (the only test that creates the process's audio.Context).
func TestPlayerOnNullDevice(t *testing.T) {
	if _, err := os.Stat("/usr/share/alsa/alsa.conf"); err != nil {
		t.Skip("no ALSA configuration on this machine")
	}
	alsaConf(t, "</usr/share/alsa/alsa.conf>\npcm.!default { type null }\n")
	p := New(false, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if !p.Enabled() || p.Notice() != "" {
		t.Fatalf("player on the null device: enabled %v, notice %q", p.Enabled(), p.Notice())
	}
	p.SetVolumes(0.5, 0.5)
	p.Music(int(synth.SongStage1Space))
	for e := synth.Effect(0); e < synth.NumEffects; e++ {
		p.Play(e)
	}
	p.SetCharge(180)
	time.Sleep(300 * time.Millisecond)
	if !p.music.IsPlaying() || !p.humPl.IsPlaying() {
		t.Fatal("the music or hum stream stopped")
	}
	p.Music(250) // unknown id: the music stays
	if got := p.juke.Current(); got != int(synth.SongStage1Space) {
		t.Fatalf("music %d after an unknown id, want %d", got, synth.SongStage1Space)
	}
	p.Stinger(synth.StingerGameOver)
	p.StopMusic()
	time.Sleep(100 * time.Millisecond)
	if !p.music.IsPlaying() {
		t.Fatal("the music stream stopped after StopMusic (it should play silence)")
	}
}
