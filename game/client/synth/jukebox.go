package synth

import (
	"sync"
)

// SongID is a MUSIC song id (docs/PROTOCOL.md §3.4.4): which piece plays.
type SongID uint8

// The songs. SongTitle is client-side only (menus and lobby); the others come from the stage
// files' sections and bosses.
const (
	SongTitle          SongID = 0  // title, menus and lobby
	SongStage1Space    SongID = 1  // stage 1, open space (intro)
	SongStage1Base     SongID = 2  // stage 1, entering the Bydo base
	SongStage1Boss     SongID = 3  // stage 1 boss
	SongStage1Armada   SongID = 4  // stage 1, deep base / armada (last section)
	SongStage2Cave     SongID = 5  // stage 2, organic cave
	SongStage2Depths   SongID = 6  // stage 2, the depths (second section)
	SongStage2Boss     SongID = 7  // stage 2 boss
	SongStage3Approach SongID = 8  // stage 3, the warship approaches
	SongStage3Hull     SongID = 9  // stage 3, along the warship's hull
	SongStage3Core     SongID = 10 // stage 3 finale: the reactor core
	NumSongs                  = 11
)

// Stinger is a short non-looping piece played by the results screen.
type Stinger uint8

// The stingers.
const (
	StingerVictory Stinger = iota
	StingerGameOver
	NumStingers
)

// KnownSong reports whether id is a song; a MUSIC with another id keeps the current music.
func KnownSong(id int) bool { return id >= 0 && id < NumSongs }

var (
	compileMu        sync.Mutex
	compiledSongs    [NumSongs]*compiled
	compiledStingers [NumStingers]*compiled
)

func compiledOf(slot **compiled, s *Score) *compiled {
	compileMu.Lock()
	defer compileMu.Unlock()
	if *slot == nil {
		c, err := compile(s)
		if err != nil {
			panic(err) // the scores are constants: TestScoresCompile catches this
		}
		*slot = c
	}
	return *slot
}

// NewSong returns a stream of song id from its beginning (nil for an unknown id).
func NewSong(id SongID) *Stream {
	if !KnownSong(int(id)) {
		return nil
	}
	return newStream(compiledOf(&compiledSongs[id], songs[id]))
}

// NewStinger returns a stream of stinger st (it ends with io.EOF).
func NewStinger(st Stinger) *Stream {
	return newStream(compiledOf(&compiledStingers[st], stingers[st]))
}

// FadeSamples is the length of a Jukebox crossfade (1 s).
const FadeSamples = SampleRate

// Jukebox is the music channel: an endless io.Reader of PCM that plays one piece at a time and
// crossfades linearly over FadeSamples when the piece changes (silence when nothing plays).
// Play, PlayStinger and Stop may be called from any goroutine while another reads.
type Jukebox struct {
	mu    sync.Mutex
	slots [3]fadeSlot
	cur   int // song id playing (or fading in), −1 none
	l, r  [chunk]float64
}

type fadeSlot struct {
	s      *Stream
	gain   float64
	target float64
}

// NewJukebox returns a silent jukebox.
func NewJukebox() *Jukebox { return &Jukebox{cur: -1} }

// Current returns the song id playing (−1 when none, or a stinger).
func (j *Jukebox) Current() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.cur
}

// Play crossfades to song id. The same song keeps playing; an unknown id changes nothing and
// returns false.
func (j *Jukebox) Play(id int) bool {
	if !KnownSong(id) {
		return false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cur == id {
		return true
	}
	j.start(NewSong(SongID(id)))
	j.cur = id
	return true
}

// PlayStinger crossfades to stinger st; silence follows it.
func (j *Jukebox) PlayStinger(st Stinger) {
	if st >= NumStingers {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.start(NewStinger(st))
	j.cur = -1
}

// Stop fades the music out.
func (j *Jukebox) Stop() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.start(nil)
	j.cur = -1
}

// start fades every slot out and s in (in a free slot, else in place of the quietest).
func (j *Jukebox) start(s *Stream) {
	free, quiet := -1, 0
	for i := range j.slots {
		sl := &j.slots[i]
		sl.target = 0
		if sl.s == nil {
			free = i
		} else if sl.gain < j.slots[quiet].gain || j.slots[quiet].s == nil {
			quiet = i
		}
	}
	if s == nil {
		return
	}
	if free < 0 {
		free = quiet
	}
	j.slots[free] = fadeSlot{s: s, gain: 0, target: 1}
}

// Read fills p with whole frames of PCM; it never ends.
func (j *Jukebox) Read(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	frames := len(p) / 4
	const step = 1.0 / FadeSamples
	for w := 0; w < frames; {
		n := min(chunk, frames-w)
		l, r := j.l[:n], j.r[:n]
		clear(l)
		clear(r)
		for si := range j.slots {
			sl := &j.slots[si]
			if sl.s == nil {
				continue
			}
			got := sl.s.renderFloat(n)
			g := sl.gain
			for i := 0; i < got; i++ {
				if g < sl.target {
					g = min(sl.target, g+step)
				} else if g > sl.target {
					g = max(sl.target, g-step)
				}
				l[i] += sl.s.l[i] * g
				r[i] += sl.s.r[i] * g
			}
			sl.gain = g
			if got < n || (g == 0 && sl.target == 0) {
				*sl = fadeSlot{}
			}
		}
		for i := 0; i < n; i++ {
			putFrame(p[(w+i)*4:], l[i], r[i])
		}
		w += n
	}
	return frames * 4, nil
}
