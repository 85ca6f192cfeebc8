// Package sfx plays the synthesised sound effects and music (game/client/synth) through ebiten's
// audio package. Having no sound device is not an error: Probe checks in a child process whether
// audio works before the audio.Context exists (an audio.Context whose device fails would end
// RunGame with an error), and a Player created muted does nothing.
package sfx

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync"
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

// Player plays effects and music. A nil or muted Player ignores every call.
type Player struct {
	ctx      *audio.Context
	effects  [synth.NumEffects][]byte
	lastPlay [synth.NumEffects]time.Time
	mu       sync.Mutex
	songs    map[int][]byte // filled by a background goroutine
	music    *audio.Player
	songID   int
	musicVol float64
	fxVol    float64
}

// New creates the audio context and renders the effects; the music loops are rendered in the
// background. With mute, or when Probe fails (logged once as "audio unavailable: running muted"),
// it returns a muted Player.
func New(mute bool, log *slog.Logger) *Player {
	if mute {
		return &Player{}
	}
	if err := Probe(2 * time.Second); err != nil {
		log.Warn("audio unavailable: running muted", "err", err)
		return &Player{}
	}
	p := &Player{ctx: audio.NewContext(synth.SampleRate), songs: map[int][]byte{}, songID: -1, musicVol: 0.6, fxVol: 0.8}
	for e := synth.Effect(0); e < synth.NumEffects; e++ {
		p.effects[e] = synth.Render(e)
	}
	go func() {
		for id := 0; id < synth.SongCount; id++ {
			pcm := synth.Song(id)
			p.mu.Lock()
			p.songs[id] = pcm
			p.mu.Unlock()
		}
	}()
	return p
}

// Enabled reports whether sound is played.
func (p *Player) Enabled() bool { return p != nil && p.ctx != nil }

// SetVolumes sets the music and effects gains (0..1).
func (p *Player) SetVolumes(music, effects float64) {
	if !p.Enabled() {
		return
	}
	p.musicVol, p.fxVol = music, effects
	if p.music != nil {
		p.music.SetVolume(music)
	}
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

// Music switches the looping music to song id (MUSIC command; taken modulo synth.SongCount);
// the same song keeps playing. If the loop is still being rendered it starts on a later call.
func (p *Player) Music(id int) {
	if !p.Enabled() {
		return
	}
	id = ((id % synth.SongCount) + synth.SongCount) % synth.SongCount
	if id == p.songID && p.music != nil {
		return
	}
	p.mu.Lock()
	pcm, ok := p.songs[id]
	p.mu.Unlock()
	if !ok {
		return
	}
	p.StopMusic()
	loop := audio.NewInfiniteLoop(bytes.NewReader(pcm), int64(len(pcm)))
	pl, err := p.ctx.NewPlayer(loop)
	if err != nil {
		return
	}
	pl.SetVolume(p.musicVol)
	pl.Play()
	p.music, p.songID = pl, id
}

// WantMusic is Music called every frame: it retries until the song is rendered.
func (p *Player) WantMusic(id int) { p.Music(id) }

// StopMusic stops the loop.
func (p *Player) StopMusic() {
	if !p.Enabled() || p.music == nil {
		return
	}
	p.music.Pause()
	p.music.Close()
	p.music, p.songID = nil, -1
}
