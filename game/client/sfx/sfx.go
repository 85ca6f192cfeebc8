// Package sfx plays the synthesised sound effects and music (game/client/synth) through ebiten's
// audio package: one endless player streams the synth.Jukebox (the music, crossfaded on every
// change), one streams the synth.Hum (the beam-charge hum), and each effect is a short player of
// PCM rendered once. Having no sound device is not an error: Probe checks in a child process
// whether audio works before the audio.Context exists (an audio.Context whose device fails
// would end RunGame with an error; oto opens one device per process, so the check cannot be
// made in this one). The check does not hold up the client and has no short deadline (a child
// process starts slowly on a busy machine): New returns at once with a Player that is silent
// until the probe answers, and sound comes on then, playing the music asked for meanwhile
// (docs/DESIGN.md, "Tests in real time"). When the device is missing (not when the player
// asked for silence) Notice returns a line for the screen.
package sfx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/ebitengine/oto/v3"
	"github.com/hajimehoshi/ebiten/v2/audio"

	"github.com/rtype/rtype/game/client/synth"
)

// ProbeEnv is the environment variable that turns a re-executed client binary into the audio
// probe child (it exits 0 when audio works).
const ProbeEnv = "RTYPE_AUDIO_PROBE"

// ProbeGiveUp bounds the probe: the child process's start, the device's readiness and 20 ms of
// silence played through it. It only bounds a child that hangs (a device that never gets
// ready): a missing device fails at once, and a working one answers as soon as the child has
// run, however long it took to start (the client plays silent meanwhile).
const ProbeGiveUp = time.Minute

func init() {
	if os.Getenv(ProbeEnv) == "1" {
		os.Exit(probeChild())
	}
}

// probeChild opens the audio device exactly like ebiten's audio package (oto, 44100 Hz stereo
// float32), plays 20 ms of silence to its end and returns the exit status. It waits for the
// device's progress, not for a time (at most ProbeGiveUp).
func probeChild() int {
	ctx, ready, err := oto.NewContext(&oto.NewContextOptions{SampleRate: synth.SampleRate, ChannelCount: 2, Format: oto.FormatFloat32LE})
	if err != nil {
		fmt.Fprintln(os.Stderr, "audio probe:", err)
		return 1
	}
	giveUp := time.After(ProbeGiveUp)
	select {
	case <-ready:
	case <-giveUp:
		fmt.Fprintln(os.Stderr, "audio probe: device not ready")
		return 2
	}
	p := ctx.NewPlayer(bytes.NewReader(make([]byte, synth.SampleRate/50*8)))
	p.Play()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for p.IsPlaying() && ctx.Err() == nil {
		select {
		case <-tick.C:
		case <-giveUp:
			fmt.Fprintln(os.Stderr, "audio probe: the device does not play")
			return 2
		}
	}
	if err := ctx.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "audio probe:", err)
		return 3
	}
	return 0
}

// Probe re-executes the running binary with ProbeEnv=1 and waits for it to exit (or for ctx).
// A nil error means an audio.Context can safely be created. In a browser (js/wasm) there is no
// child to run and nothing to probe: the page's Web Audio context always opens, and plays once
// the player's first key press or click lets it (the page says so).
func Probe(ctx context.Context) error {
	if runtime.GOOS == "js" {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), ProbeEnv+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("audio probe: no answer: %w", context.Cause(ctx))
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

// errProbeGiveUp is the cause of a probe that did not answer within ProbeGiveUp.
var errProbeGiveUp = errors.New("gave up after " + ProbeGiveUp.String())

// Player plays effects and music. A nil or muted Player ignores every call. One whose probe
// has not answered yet plays nothing but keeps the music, the hum's charge and the volumes
// asked for, which play once the device is open. Its methods are called from one goroutine,
// the game's (Update, Draw).
type Player struct {
	// probed is closed when the probe has answered (nil: muted); probeErr and effects are the
	// probe goroutine's until then.
	probed   chan struct{}
	probeErr error
	effects  [synth.NumEffects][]byte

	juke     *synth.Jukebox // nil when muted
	hum      *synth.Hum
	musicVol float64
	fxVol    float64
	answered bool   // the probe's answer was taken (poll)
	notice   string // NoDeviceNotice once the device is known to be missing

	// the device, opened on the game's goroutine once the probe answered (poll)
	ctx      *audio.Context
	lastPlay [synth.NumEffects]time.Time
	music    *audio.Player // streams juke
	humPl    *audio.Player // streams hum
	log      *slog.Logger
}

// New returns the client's Player at once. With mute it is muted for good. Otherwise it probes
// the device in the background (Probe, at most ProbeGiveUp) and renders the effects there;
// sound comes on with the first call after the probe answered (on the caller's goroutine: the
// audio.Context is created there). When the probe fails (logged once as "audio unavailable:
// running muted") the Player stays muted and its Notice is NoDeviceNotice.
func New(mute bool, log *slog.Logger) *Player {
	return newPlayer(mute, log, func() error {
		ctx, cancel := context.WithTimeoutCause(context.Background(), ProbeGiveUp, errProbeGiveUp)
		defer cancel()
		return Probe(ctx)
	})
}

// newPlayer is New with the probe given (tests hold it back).
func newPlayer(mute bool, log *slog.Logger, probe func() error) *Player {
	if mute {
		return &Player{}
	}
	p := &Player{probed: make(chan struct{}), juke: synth.NewJukebox(), hum: synth.NewHum(), musicVol: 0.6, fxVol: 0.8, log: log}
	go func() {
		defer close(p.probed)
		if p.probeErr = probe(); p.probeErr != nil {
			return
		}
		for e := synth.Effect(0); e < synth.NumEffects; e++ {
			p.effects[e] = synth.Render(e)
		}
	}()
	return p
}

// Probed is closed once the device probe has answered (nil for a muted Player): the next call
// turns sound on, or sets the Notice.
func (p *Player) Probed() <-chan struct{} {
	if p == nil {
		return nil
	}
	return p.probed
}

// poll takes the probe's answer once it came: it opens the device (the audio context, the
// music and hum streams) or sets the notice. It reports whether sound is on.
func (p *Player) poll() bool {
	if p == nil || p.ctx != nil || p.answered || p.probed == nil {
		return p != nil && p.ctx != nil
	}
	select {
	case <-p.probed:
	default:
		return false // not answered yet
	}
	p.answered = true
	if p.probeErr != nil {
		p.log.Warn("audio unavailable: running muted", "err", p.probeErr)
		p.notice = NoDeviceNotice
		return false
	}
	ctx := audio.CurrentContext() // one per process (a second Player, a test run twice)
	if ctx == nil {
		ctx = audio.NewContext(synth.SampleRate)
	}
	music, err := ctx.NewPlayer(p.juke)
	var humPl *audio.Player
	if err == nil {
		humPl, err = ctx.NewPlayer(p.hum)
	}
	if err != nil {
		p.log.Warn("audio: no music or hum player: running muted", "err", err)
		p.notice = NoDeviceNotice
		return false
	}
	p.ctx, p.music, p.humPl = ctx, music, humPl
	// short buffers: a music change or the hum follows the game within ~0.1 s
	p.music.SetBufferSize(100 * time.Millisecond)
	p.humPl.SetBufferSize(50 * time.Millisecond)
	p.music.SetVolume(p.musicVol)
	p.humPl.SetVolume(p.fxVol)
	p.music.Play()
	p.humPl.Play()
	return true
}

// Enabled reports whether sound is played (false until the probe has answered).
func (p *Player) Enabled() bool { return p.poll() }

// Notice returns the one-line notice the client shows on screen for a few seconds when there is
// no sound device ("" when sound works, was turned off on purpose, or the probe has not
// answered yet: the client asks again every frame).
func (p *Player) Notice() string {
	if p == nil {
		return ""
	}
	p.poll()
	return p.notice
}

// SetVolumes sets the music and effects gains (0..1), kept for when the device opens.
func (p *Player) SetVolumes(music, effects float64) {
	if p == nil || p.juke == nil {
		return
	}
	p.musicVol, p.fxVol = music, effects
	if p.poll() {
		p.music.SetVolume(music)
		p.humPl.SetVolume(effects)
	}
}

// Play starts effect e (at most one start per effect every 50 ms); nothing before the device
// opens.
func (p *Player) Play(e synth.Effect) {
	if !p.poll() || e >= synth.NumEffects || p.fxVol <= 0 {
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
	if p != nil && p.hum != nil {
		p.poll()
		p.hum.SetCharge(charge)
	}
}

// Music crossfades to song id (a MUSIC song id, synth.SongID); the same song keeps playing and
// an unknown id keeps the current music. Asked for before the device opens, it plays then.
func (p *Player) Music(id int) {
	if p != nil && p.juke != nil {
		p.poll()
		p.juke.Play(id)
	}
}

// Stinger crossfades to a short non-looping piece (victory, game over); silence follows it.
func (p *Player) Stinger(st synth.Stinger) {
	if p != nil && p.juke != nil {
		p.poll()
		p.juke.PlayStinger(st)
	}
}

// StopMusic fades the music out and silences the charge hum.
func (p *Player) StopMusic() {
	if p != nil && p.juke != nil {
		p.poll()
		p.juke.Stop()
		p.hum.SetCharge(0)
	}
}
