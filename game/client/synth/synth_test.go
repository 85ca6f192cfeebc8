package synth

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func peak(pcm []byte) int {
	m := 0
	for i := 0; i+1 < len(pcm); i += 2 {
		v := int(int16(binary.LittleEndian.Uint16(pcm[i:])))
		if v < 0 {
			v = -v
		}
		if v > m {
			m = v
		}
	}
	return m
}

func TestEffectsAreAudibleStereoPCM(t *testing.T) {
	for e := Effect(0); e < NumEffects; e++ {
		pcm := Render(e)
		if len(pcm) == 0 || len(pcm)%4 != 0 {
			t.Fatalf("%s: %d bytes is not whole 16-bit stereo frames", e, len(pcm))
		}
		secs := float64(len(pcm)/4) / SampleRate
		if secs < 0.03 || secs > 1.5 {
			t.Errorf("%s lasts %.2fs", e, secs)
		}
		if p := peak(pcm); p < 3000 {
			t.Errorf("%s is nearly silent (peak %d)", e, p)
		}
		if !bytes.Equal(pcm, Render(e)) {
			t.Errorf("%s not deterministic", e)
		}
	}
}

func TestSongsLoopLengthAndLevel(t *testing.T) {
	for id := 0; id < SongCount; id++ {
		pcm := Song(id)
		if len(pcm)%4 != 0 {
			t.Fatalf("song %d: %d bytes", id, len(pcm))
		}
		secs := float64(len(pcm)/4) / SampleRate
		if secs < 4 || secs > 12 {
			t.Errorf("song %d loop is %.1fs", id, secs)
		}
		if p := peak(pcm); p < 5000 {
			t.Errorf("song %d nearly silent (peak %d)", id, p)
		}
		// loop ends are faded to 0: no click at the seam
		if first := int16(binary.LittleEndian.Uint16(pcm)); first != 0 {
			t.Errorf("song %d starts at %d", id, first)
		}
	}
	if !bytes.Equal(Song(SongCount+1), Song(1)) || !bytes.Equal(Song(-1), Song(SongCount-1)) {
		t.Error("song ids are not taken modulo SongCount")
	}
}
