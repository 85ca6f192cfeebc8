package synth

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sort"
	"testing"
)

// ceiling16 is Ceiling as a 16-bit sample: no output sample may exceed it.
var ceiling16 = int(math.Floor(Ceiling * 32767))

func samples(pcm []byte) []int16 {
	out := make([]int16, len(pcm)/2)
	for i := range out {
		out[i] = int16(binary.LittleEndian.Uint16(pcm[i*2:]))
	}
	return out
}

func peak16(s []int16) int {
	m := 0
	for _, v := range s {
		a := int(v)
		if a < 0 {
			a = -a
		}
		m = max(m, a)
	}
	return m
}

func rmsDB(s []int16) float64 {
	var sum float64
	for _, v := range s {
		sum += float64(v) * float64(v)
	}
	return 20 * math.Log10(math.Sqrt(sum/float64(len(s)))/32767+1e-12)
}

func TestEffectsPeakAtTheirLevelNoneClips(t *testing.T) {
	for e := Effect(0); e < NumEffects; e++ {
		pcm := Render(e)
		if len(pcm) == 0 || len(pcm)%4 != 0 {
			t.Fatalf("%s: %d bytes is not whole 16-bit stereo frames", e, len(pcm))
		}
		secs := float64(len(pcm)/4) / SampleRate
		if secs < 0.03 || secs > 2 {
			t.Errorf("%s lasts %.2fs", e, secs)
		}
		s := samples(pcm)
		p := peak16(s)
		if p > ceiling16 {
			t.Errorf("%s peaks at %d > %d (−1 dBFS)", e, p, ceiling16)
		}
		if got := 20 * math.Log10(float64(p)/32767); math.Abs(got-e.PeakDB()) > 0.1 {
			t.Errorf("%s peaks at %.2f dBFS, want %.1f", e, got, e.PeakDB())
		}
		if e.PeakDB() > -1 {
			t.Errorf("%s level %.1f dBFS above −1 dBFS", e, e.PeakDB())
		}
		if first, last := s[0], s[len(s)-1]; first != 0 || last != 0 {
			t.Errorf("%s starts at %d and ends at %d, want 0 (no click)", e, first, last)
		}
		if !bytes.Equal(pcm, Render(e)) {
			t.Errorf("%s not deterministic", e)
		}
	}
	if BeamEffect(1) != Beam1 || BeamEffect(3) != Beam3 || BeamEffect(9) != Beam3 || BeamEffect(0) != Beam1 {
		t.Error("BeamEffect does not map levels 1..3")
	}
}

func TestScoresCompile(t *testing.T) {
	for id := SongID(0); id < NumSongs; id++ {
		c, err := compile(songs[id])
		if err != nil {
			t.Fatalf("song %d: %v", id, err)
		}
		if !songs[id].Loop {
			t.Errorf("song %s does not loop", id)
		}
		if len(c.events) < 500 {
			t.Errorf("song %s has only %d notes", id, len(c.events))
		}
	}
	for st := Stinger(0); st < NumStingers; st++ {
		if _, err := compile(stingers[st]); err != nil {
			t.Fatalf("stinger %d: %v", st, err)
		}
	}
}

func TestNotationErrors(t *testing.T) {
	bad := []Part{
		{Bars: 1, Chords: "Am", Lead: "a4:4 b4:4 c5:4 | d5:4"}, // bar line off the bar
		{Bars: 1, Chords: "Am", Lead: "a4:4"},                  // too short
		{Bars: 2, Chords: "Am", Lead: "a4:1 | a4:1"},           // chords for 1 bar of 2
		{Bars: 1, Chords: "Hm", Lead: "a4:1"},                  // no such root
		{Bars: 1, Chords: "Am", Lead: "h4:1"},                  // no such note
		{Bars: 1, Chords: "Am", Lead: "a4:3"},                  // no such length
		{Bars: 1, Chords: "Am", Bass: "nope"},                  // no such figure
		{Bars: 1, Chords: "Am", Drums: "nope"},                 // no such pattern
	}
	for i, p := range bad {
		if _, err := compile(&Score{Name: "bad", BPM: 120, Lead: &patchBrass, Parts: []Part{p}}); err == nil {
			t.Errorf("case %d compiled: %+v", i, p)
		}
	}
	notes, n, err := parseMelody("a4:8. b4:16 c5:4 ~:4 r:4 |")
	if err != nil || n != TicksPerBar || len(notes) != 4 || notes[2].len != 96 || notes[2].note != 72 || notes[1].tick != 36 {
		t.Errorf("parseMelody = %v %d %v", notes, n, err)
	}
}

func TestSongsLoopAtLeast60s(t *testing.T) {
	for id := SongID(0); id < NumSongs; id++ {
		s := NewSong(id)
		loop := float64(s.LoopEnd()-s.LoopStart()) / SampleRate
		if loop < 60 || loop > 150 {
			t.Errorf("song %s loops after %.1f s, want 60..150", id, loop)
		}
		t.Logf("song %d %-14s intro %5.1f s, loop %5.1f s", id, id, float64(s.LoopStart())/SampleRate, loop)
	}
}

// TestSongsNeverClipAndLoopSeamlessly renders every song from its start to 3 s past its loop
// point (the whole piece) and checks the peak (≤ −1 dBFS), the level, and the seam: the step
// between the last sample before the wrap and the first after is no larger than steps elsewhere
// in the piece, and the level on both sides of the seam is alike (no gap, no jump). With -short
// or the race detector it renders only the 12 s around each loop point.
func TestSongsNeverClipAndLoopSeamlessly(t *testing.T) {
	for id := SongID(0); id < NumSongs; id++ {
		st := NewSong(id)
		end := int(st.LoopEnd())
		if testing.Short() || raceOn {
			st.skipTo(int64(end - 9*SampleRate))
			end = 9 * SampleRate
		}
		pcm := make([]byte, (end+3*SampleRate)*4)
		if _, err := io.ReadFull(st, pcm); err != nil {
			t.Fatal(err)
		}
		s := samples(pcm)
		if p := peak16(s); p > ceiling16 {
			t.Errorf("song %s peaks at %d > %d (−1 dBFS)", id, p, ceiling16)
		}
		if r := rmsDB(s); r < -26 || r > -12 {
			t.Errorf("song %s RMS %.1f dBFS, want −26..−12", id, r)
		}
		knee, over := int(limitKnee*32767), 0
		for _, v := range s {
			if int(v) > knee || int(v) < -knee {
				over++
			}
		}
		if f := float64(over) / float64(len(s)); f > 1e-3 {
			t.Errorf("song %s: the limiter works on %.2f %% of the samples, want < 0.1 %%", id, 100*f)
		}
		maxStep := 0
		for ch := 0; ch < 2; ch++ {
			for i := 2 + ch; i < len(s); i += 2 {
				if i/2 == end {
					continue
				}
				d := int(s[i]) - int(s[i-2])
				maxStep = max(maxStep, d, -d)
			}
		}
		for ch := 0; ch < 2; ch++ {
			d := int(s[end*2+ch]) - int(s[end*2-2+ch])
			if d > maxStep || -d > maxStep {
				t.Errorf("song %s: step %d at the loop point, at most %d elsewhere", id, d, maxStep)
			}
		}
		w := SampleRate / 10 * 2
		before, after := rmsDB(s[end*2-w:end*2]), rmsDB(s[end*2:end*2+w])
		if before < -45 || after < -45 || math.Abs(before-after) > 12 {
			t.Errorf("song %s: level %.1f dBFS before the loop point, %.1f after", id, before, after)
		}
		t.Logf("song %-14s peak %.2f dBFS, RMS %.1f dBFS; seam %.1f/%.1f dBFS", id,
			20*math.Log10(float64(peak16(s))/32767), rmsDB(s), before, after)
	}
}

func TestStingersEnd(t *testing.T) {
	for st := Stinger(0); st < NumStingers; st++ {
		pcm, err := io.ReadAll(NewStinger(st))
		if err != nil {
			t.Fatal(err)
		}
		secs := float64(len(pcm)/4) / SampleRate
		if secs < 2 || secs > 11 {
			t.Errorf("stinger %d lasts %.1f s", st, secs)
		}
		if p := peak16(samples(pcm)); p > ceiling16 || p < 3000 {
			t.Errorf("stinger %d peak %d", st, p)
		}
	}
}

func read(t *testing.T, r io.Reader, frames int) []byte {
	t.Helper()
	b := make([]byte, frames*4)
	if _, err := io.ReadFull(r, b); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestJukeboxCrossfades(t *testing.T) {
	j := NewJukebox()
	if p := peak16(samples(read(t, j, 1000))); p != 0 {
		t.Fatalf("an idle jukebox plays (peak %d)", p)
	}
	if !j.Play(int(SongStage1Space)) || j.Current() != int(SongStage1Space) {
		t.Fatal("Play(1) refused")
	}
	read(t, j, SampleRate/2)
	if j.Play(200) || j.Current() != int(SongStage1Space) {
		t.Fatal("an unknown song id changed the music")
	}
	j.Play(int(SongStage1Boss))
	fade := samples(read(t, j, FadeSamples))
	if rmsDB(fade) < -40 {
		t.Error("the crossfade is silent")
	}
	// after the fade, only the new song plays, from its start at the switch
	got := read(t, j, SampleRate/2)
	ref := NewSong(SongStage1Boss)
	read(t, ref, FadeSamples)
	if !bytes.Equal(got, read(t, ref, SampleRate/2)) {
		t.Error("after the crossfade the output is not the new song")
	}
	j.Stop()
	read(t, j, FadeSamples+chunk)
	if p := peak16(samples(read(t, j, 1000))); p != 0 || j.Current() != -1 {
		t.Errorf("music still plays after Stop (peak %d)", p)
	}
	j.PlayStinger(StingerVictory)
	if p := peak16(samples(read(t, j, 2*SampleRate))); p < 3000 {
		t.Errorf("the stinger is silent (peak %d)", p)
	}
}

func zeroCrossings(s []int16) int {
	n := 0
	for i := 2; i < len(s); i += 2 {
		if (s[i] >= 0) != (s[i-2] >= 0) {
			n++
		}
	}
	return n
}

func TestHumRisesWithCharge(t *testing.T) {
	h := NewHum()
	if p := peak16(samples(read(t, h, 4000))); p != 0 {
		t.Fatalf("hum sounds at charge 0 (peak %d)", p)
	}
	h.SetCharge(60)
	read(t, h, SampleRate/5)
	low := samples(read(t, h, SampleRate/5))
	h.SetCharge(255)
	read(t, h, SampleRate/5)
	high := samples(read(t, h, SampleRate/5))
	if zl, zh := zeroCrossings(low), zeroCrossings(high); zh < zl*2 {
		t.Errorf("hum pitch does not rise: %d zero crossings at charge 60, %d at 255", zl, zh)
	}
	if p := peak16(high); p > 16384 || p < 5000 {
		t.Errorf("hum peak %d at full charge", p)
	}
	h.SetCharge(0)
	read(t, h, SampleRate/5)
	if p := peak16(samples(read(t, h, 4000))); p > 30 {
		t.Errorf("hum does not stop (peak %d)", p)
	}
}

func TestStreamingDoesNotAllocate(t *testing.T) {
	s := NewSong(SongStage1Boss)
	buf := make([]byte, 4096)
	if a := testing.AllocsPerRun(50, func() { s.Read(buf) }); a != 0 {
		t.Errorf("Stream.Read: %v allocs", a)
	}
	j := NewJukebox()
	j.Play(int(SongStage2Boss))
	if a := testing.AllocsPerRun(50, func() { j.Read(buf) }); a != 0 {
		t.Errorf("Jukebox.Read: %v allocs", a)
	}
	h := NewHum()
	h.SetCharge(200)
	if a := testing.AllocsPerRun(50, func() { h.Read(buf) }); a != 0 {
		t.Errorf("Hum.Read: %v allocs", a)
	}
}

// BenchmarkSongSecond renders one second of each song's densest stretch; ns/op divided by 1e9
// is the fraction of one core the music costs.
func BenchmarkSongSecond(b *testing.B) {
	for _, id := range []SongID{SongStage1Boss, SongStage2Boss, SongStage2Cave, SongTitle} {
		b.Run(id.String(), func(b *testing.B) {
			s := NewSong(id)
			buf := make([]byte, SampleRate*4)
			io.ReadFull(s, make([]byte, 20*SampleRate*4)) // into the full arrangement
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				s.Read(buf)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e7, "%core")
		})
	}
}

// skipTo moves the stream to sample pos of the piece (< LoopEnd) without playing what comes
// before: notes that would still ring there are missing (for tests that start near the loop).
func (s *Stream) skipTo(pos int64) {
	s.pos = pos
	s.next = sort.Search(len(s.c.events), func(i int) bool { return s.c.events[i].at >= pos })
}

// String names a song in test messages.
func (id SongID) String() string {
	if KnownSong(int(id)) {
		return songs[id].Name
	}
	return fmt.Sprintf("song%d", uint8(id))
}
