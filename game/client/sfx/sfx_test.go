package sfx

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// probeCtx bounds a probe as New does (ProbeGiveUp: the child's start however slow, not a
// guess at how fast it is).
func probeCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), ProbeGiveUp)
	t.Cleanup(cancel)
	return ctx
}

// Without a device the probe fails with the child's reason (not a timeout), and New's Player
// stays muted and says so once the probe has answered.
func TestProbeWithoutDeviceFails(t *testing.T) {
	alsaConf(t, "# no pcm defined\n")
	err := Probe(probeCtx(t))
	if err == nil {
		t.Fatal("probe succeeded without any ALSA device")
	}
	if !strings.Contains(err.Error(), "audio probe failed") {
		t.Fatalf("probe without a device: %v, want the child's failure", err)
	}
	p := New(false, quiet())
	<-p.Probed()
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
	if err := Probe(probeCtx(t)); err != nil {
		t.Fatalf("probe with the ALSA null device: %v", err)
	}
}

// A probe that never answers in time is cancelled by its context, with the context's cause.
func TestProbeGivesUpWithItsContext(t *testing.T) {
	cause := errors.New("the test gave up")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	if err := Probe(ctx); err == nil || !errors.Is(err, cause) {
		t.Fatalf("probe with its context done: %v, want the cause", err)
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
	if New(true, slog.Default()).Probed() != nil {
		t.Fatal("a muted player probes the device")
	}
}

// New does not wait for the probe: until it answers the Player is silent and shows no notice,
// and what the client asks for meanwhile (the title music, volumes, the hum) is kept; a probe
// that fails then turns the notice on.
func TestSilentUntilTheProbeAnswers(t *testing.T) {
	gate := make(chan error)
	p := newPlayer(false, quiet(), func() error { return <-gate })
	p.SetVolumes(0.3, 0.4)
	p.Music(int(synth.SongTitle))
	p.Play(synth.Shot)
	p.SetCharge(100)
	if p.Enabled() || p.Notice() != "" {
		t.Fatalf("before the probe answered: enabled %v, notice %q; want silent, no notice", p.Enabled(), p.Notice())
	}
	if got := p.juke.Current(); got != int(synth.SongTitle) {
		t.Fatalf("music %d asked for before the device answered, want %d kept", got, synth.SongTitle)
	}
	gate <- errors.New("no device")
	<-p.Probed()
	if p.Enabled() || p.Notice() != NoDeviceNotice {
		t.Fatalf("after a failed probe: enabled %v, notice %q", p.Enabled(), p.Notice())
	}
}

// TestPlayerOnNullDevice: sound comes on once a slow probe answers (the probe is held back
// here), with the music and volumes asked for before; then music, a stinger, every effect and
// the hum play through a real audio context on the ALSA null device (the only test that
// creates the process's audio.Context).
func TestPlayerOnNullDevice(t *testing.T) {
	if _, err := os.Stat("/usr/share/alsa/alsa.conf"); err != nil {
		t.Skip("no ALSA configuration on this machine")
	}
	alsaConf(t, "</usr/share/alsa/alsa.conf>\npcm.!default { type null }\n")
	gate := make(chan struct{})
	p := newPlayer(false, quiet(), func() error { <-gate; return Probe(probeCtx(t)) })
	p.SetVolumes(0.5, 0.5)
	p.Music(int(synth.SongStage1Space))
	if p.Enabled() {
		t.Fatal("sound on before the probe answered")
	}
	close(gate)
	<-p.Probed()
	if !p.Enabled() || p.Notice() != "" {
		t.Fatalf("player on the null device: enabled %v, notice %q", p.Enabled(), p.Notice())
	}
	if p.juke.Current() != int(synth.SongStage1Space) || !p.music.IsPlaying() || p.music.Volume() != 0.5 || p.humPl.Volume() != 0.5 {
		t.Fatalf("the device opened with music %d (playing %v) at volumes %v/%v; want the song and volumes asked for before",
			p.juke.Current(), p.music.IsPlaying(), p.music.Volume(), p.humPl.Volume())
	}
	for e := synth.Effect(0); e < synth.NumEffects; e++ {
		p.Play(e)
	}
	p.SetCharge(180)
	p.Music(250) // unknown id: the music stays
	if got := p.juke.Current(); got != int(synth.SongStage1Space) {
		t.Fatalf("music %d after an unknown id, want %d", got, synth.SongStage1Space)
	}
	p.Stinger(synth.StingerGameOver)
	p.StopMusic()
	if !p.music.IsPlaying() || !p.humPl.IsPlaying() {
		t.Fatal("the music or hum stream stopped after StopMusic (they play silence)")
	}
}
