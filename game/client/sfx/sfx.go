// Package sfx plays the synthesised sound effects and music (game/client/synth) through ebiten's
// audio package: one endless player streams the synth.Jukebox (the music, crossfaded on every
// change), one streams the synth.Hum (the beam-charge hum), and each effect is a short player of
// PCM rendered once at start-up. Having no sound device is not an error: Probe checks in a child
// process whether audio works before the audio.Context exists (an audio.Context whose device
// fails would end RunGame with an error), and a Player created muted does nothing; when the
// device is missing (not when the player asked for silence) Notice returns a line for the screen.
package sfx

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"time"

	"github.com/ebitengine/oto/v3"
	"github.com/hajimehoshi/ebiten/v2/audio"

	"github.com/rtype/rtype/game/client/synth"
)

// ProbeEnv is the environment variable that turns a re-executed client binary into the audio
// probe child (it exits 0 when audio works).
const ProbeEnv = "RTYPE_AUDIO_PROBE"

func init() {
	if os.Getenv(ProbeEnv) == "1" {
		os.Exit(probeChild())
	}
}

// probeChild opens the audio device exactly like ebiten's audio package (oto, 44100 Hz stereo
// float32), plays 20 ms of silence and returns the exit status.
func probeChild() int {
	ctx, ready, err := oto.NewContext(&oto.NewContextOptions{SampleRate: synth.SampleRate, ChannelCount: 2, Format: oto.FormatFloat32LE})
	if err != nil {
		fmt.Fprintln(os.Stderr, "audio probe:", err)
		return 1
	}
	select {
	case <-ready:
	case <-time.After(1500 * time.Millisecond):
		fmt.Fprintln(os.Stderr, "audio probe: device not ready")
		return 2
	}
	p := ctx.NewPlayer(bytes.NewReader(make([]byte, synth.SampleRate/50*8)))
	p.Play()
	time.Sleep(60 * time.Millisecond)
	if err := ctx.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "audio probe:", err)
		return 3
	}
	return 0
}

// Probe re-executes the running binary with ProbeEnv=1 and waits up to timeout for it to exit 0.
// A nil error means an audio.Context can safely be created.
func Probe(timeout time.Duration) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), ProbeEnv+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("audio probe timed out after %v", timeout)
	}
	if err != nil {
		// the child's last line says why (the ALSA library's own chatter comes before it)
		lines := bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n"))
		msg := bytes.TrimSpace(lines[len(lines)-1])
		if len(msg) > 200 {
			msg = append(msg[:200:200], "…"...)
		}
		return fmt.Errorf("audio probe failed (%v): %s", err, msg)
	}
	return nil
}

// NoDeviceNotice is what Notice returns when no sound device could be opened.
const NoDeviceNotice = "No sound device found: playing without sound"

// Player plays effects and music. A nil or muted Player ignores every call.
type Player struct {
	ctx      *audio.Context
	effects  [synth.NumEffects][]byte
	lastPlay [synth.NumEffects]time.Time
	juke     *synth.Jukebox
	music    *audio.Player // streams juke
	hum      *synth.Hum
	humPl    *audio.Player // streams hum
	musicVol float64
	fxVol    float64
	notice   string
}

// New creates the audio context, renders the effects and starts the music and hum streams
// (silent until Music or SetCharge). With mute it returns a muted Player; when Probe fails
// (logged once as "audio unavailable: running muted") a muted Player whose Notice is
// NoDeviceNotice.
func New(mute bool, log *slog.Logger) *Player {
	if mute {
		return &Player{}
	}
	if err := Probe(2 * time.Second); err != nil {
		log.Warn("audio unavailable: running muted", "err", err)
		return &Player{notice: NoDeviceNotice}
	}
	p := &Player{ctx: audio.NewContext(synth.SampleRate), juke: synth.NewJukebox(), hum: synth.NewHum(), musicVol: 0.6, fxVol: 0.8}
	for e := synth.Effect(0); e < synth.NumEffects; e++ {
		p.effects[e] = synth.Render(e)
	}
	var err error
	if p.music, err = p.ctx.NewPlayer(p.juke); err != nil {
		log.Warn("audio: no music player", "err", err)
		return &Player{notice: NoDeviceNotice}
	}
	if p.humPl, err = p.ctx.NewPlayer(p.hum); err != nil {
		log.Warn("audio: no hum player", "err", err)
		return &Player{notice: NoDeviceNotice}
	}
	// short buffers: a music change or the hum follows the game within ~0.1 s
	p.music.SetBufferSize(100 * time.Millisecond)
	p.humPl.SetBufferSize(50 * time.Millisecond)
	p.music.SetVolume(p.musicVol)
	p.humPl.SetVolume(p.fxVol)
	p.music.Play()
	p.humPl.Play()
	return p
}

// Enabled reports whether sound is played.
func (p *Player) Enabled() bool { return p != nil && p.ctx != nil }

// Notice returns the one-line notice the client shows on screen for a few seconds when there is
// no sound device ("" when sound works or was turned off on purpose).
func (p *Player) Notice() string {
	if p == nil {
		return ""
	}
	return p.notice
}

// SetVolumes sets the music and effects gains (0..1).
func (p *Player) SetVolumes(music, effects float64) {
	if !p.Enabled() {
		return
	}
	p.musicVol, p.fxVol = music, effects
	p.music.SetVolume(music)
	p.humPl.SetVolume(effects)
}

// Play starts effect e (at most one start per effect every 50 ms).
func (p *Player) Play(e synth.Effect) {
	if !p.Enabled() || e >= synth.NumEffects || p.fxVol <= 0 {
		return
	}
	now := time.Now()
	if now.Sub(p.lastPlay[e]) < 50*time.Millisecond {
		return
	}
	p.lastPlay[e] = now
	pl := p.ctx.NewPlayerFromBytes(p.effects[e])
	pl.SetVolume(p.fxVol)
	pl.Play()
}

// SetCharge sets the own beam charge 0..255 (game.ChargeAt) for the charge hum; 0 silences it.
func (p *Player) SetCharge(charge uint8) {
	if p.Enabled() {
		p.hum.SetCharge(charge)
	}
}

// Music crossfades to song id (a MUSIC song id, synth.SongID); the same song keeps playing and
// an unknown id keeps the current music.
func (p *Player) Music(id int) {
	if p.Enabled() {
		p.juke.Play(id)
	}
}

// Stinger crossfades to a short non-looping piece (victory, game over); silence follows it.
func (p *Player) Stinger(st synth.Stinger) {
	if p.Enabled() {
		p.juke.PlayStinger(st)
	}
}

// StopMusic fades the music out and silences the charge hum.
func (p *Player) StopMusic() {
	if !p.Enabled() {
		return
	}
	p.juke.Stop()
	p.hum.SetCharge(0)
}
