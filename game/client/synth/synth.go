// Package synth renders the game's sound effects and music loops in Go at start-up: simple
// oscillators (sine, square, saw, noise) with envelopes mixed into 16-bit little-endian stereo PCM
// at SampleRate, the format ebiten's audio.Context plays. No audio files are loaded. It does not
// import ebiten, so the output is unit-tested.
package synth

import (
	"encoding/binary"
	"math"
)

// SampleRate is the PCM rate in Hz (the client creates its audio.Context with it).
const SampleRate = 44100

// Effect names a sound effect.
type Effect uint8

// The effects.
const (
	Shot      Effect = iota // normal shot: short falling square blip (60 ms)
	Charge                  // beam charging: rising tone (1 s)
	Beam                    // charged beam release: noisy saw sweep (500 ms)
	Explosion               // enemy/ship destroyed: filtered noise burst (700 ms)
	Hit                     // damage on an enemy: click (50 ms)
	PowerUp                 // capsule picked up: rising arpeggio (400 ms)
	NumEffects
)

var effectNames = [NumEffects]string{"shot", "charge", "beam", "explosion", "hit", "powerup"}

func (e Effect) String() string {
	if e < NumEffects {
		return effectNames[e]
	}
	return "effect?"
}

type noise struct{ s uint32 }

func (n *noise) next() float64 {
	n.s ^= n.s << 13
	n.s ^= n.s >> 17
	n.s ^= n.s << 5
	return float64(n.s)/float64(math.MaxUint32)*2 - 1
}

func square(phase float64) float64 {
	if math.Mod(phase, 1) < 0.5 {
		return 1
	}
	return -1
}

func saw(phase float64) float64 { return 2*math.Mod(phase, 1) - 1 }

// toPCM converts mono float samples (-1..1, clipped) to 16-bit LE stereo.
func toPCM(mono []float64) []byte {
	out := make([]byte, len(mono)*4)
	for i, v := range mono {
		if v > 1 {
			v = 1
		} else if v < -1 {
			v = -1
		}
		s := int16(v * 32767)
		binary.LittleEndian.PutUint16(out[i*4:], uint16(s))
		binary.LittleEndian.PutUint16(out[i*4+2:], uint16(s))
	}
	return out
}

// Render returns the PCM (16-bit LE stereo at SampleRate) of effect e.
func Render(e Effect) []byte {
	dur := map[Effect]float64{Shot: 0.06, Charge: 1.0, Beam: 0.5, Explosion: 0.7, Hit: 0.05, PowerUp: 0.4}[e]
	n := int(dur * SampleRate)
	buf := make([]float64, n)
	nz := noise{s: 0x12345 + uint32(e)}
	phase := 0.0
	lp := 0.0
	for i := range buf {
		t := float64(i) / SampleRate
		k := t / dur // 0..1
		var v float64
		switch e {
		case Shot:
			f := 1400 - 900*k
			phase += f / SampleRate
			v = 0.35 * square(phase) * (1 - k)
		case Charge:
			f := 200 + 900*k*k
			phase += f / SampleRate
			trem := 0.7 + 0.3*math.Sin(2*math.Pi*t*(8+20*k))
			v = 0.25 * math.Sin(2*math.Pi*phase) * trem * math.Min(1, t*20) * math.Min(1, (dur-t)*20)
		case Beam:
			f := 600 - 450*k
			phase += f / SampleRate
			v = 0.4*saw(phase)*(1-k) + 0.2*nz.next()*(1-k)*(1-k)
		case Explosion:
			cut := 0.25 * (1 - k*0.9)
			lp += cut * (nz.next() - lp)
			env := math.Exp(-4 * k)
			v = 1.6 * lp * env
			phase += (60 - 30*k) / SampleRate
			v += 0.4 * math.Sin(2*math.Pi*phase) * env
		case Hit:
			v = 0.5 * nz.next() * (1 - k) * (1 - k)
		case PowerUp:
			notes := []float64{523.25, 659.25, 783.99, 1046.5}
			f := notes[int(k*4)%4]
			phase += f / SampleRate
			v = 0.3 * square(phase) * (1 - 0.5*math.Mod(k*4, 1))
		}
		buf[i] = v
	}
	return toPCM(buf)
}

// SongCount is the number of distinct music loops; MUSIC song ids are taken modulo SongCount.
const SongCount = 4

// Song names, by id modulo SongCount.
var SongNames = [SongCount]string{"stage", "stage-drive", "boss", "finale"}

// midi returns the frequency of MIDI note n.
func midi(n int) float64 { return 440 * math.Pow(2, float64(n-69)/12) }

// Song returns one seamless loop (16-bit LE stereo PCM at SampleRate) of music id (mod SongCount):
// 4 bars of 16 sixteenth notes with bass, arpeggio lead, kick and hi-hat.
func Song(id int) []byte {
	id = ((id % SongCount) + SongCount) % SongCount
	type style struct {
		bpm   float64
		roots [4]int // bass root per bar (MIDI)
		arp   []int  // lead intervals
		lead  float64
		kick  uint16 // 16-step kick pattern bits
	}
	styles := [SongCount]style{
		{bpm: 120, roots: [4]int{45, 41, 43, 40}, arp: []int{12, 15, 19, 24}, lead: 0.10, kick: 0x1111},
		{bpm: 140, roots: [4]int{40, 40, 43, 38}, arp: []int{12, 19, 24, 19, 15}, lead: 0.11, kick: 0x5555},
		{bpm: 160, roots: [4]int{38, 39, 38, 36}, arp: []int{12, 13, 19, 24, 18}, lead: 0.12, kick: 0x5555},
		{bpm: 110, roots: [4]int{48, 45, 41, 43}, arp: []int{12, 16, 19, 24}, lead: 0.10, kick: 0x0101},
	}
	st := styles[id]
	step := 60 / st.bpm / 4 // seconds per 16th
	stepN := int(step * SampleRate)
	total := stepN * 64
	buf := make([]float64, total)
	nz := noise{s: 777 + uint32(id)}
	var bassPh, leadPh, kickPh float64
	for i := 0; i < total; i++ {
		s := i / stepN
		in := float64(i%stepN) / float64(stepN) // position within the step 0..1
		bar := s / 16
		beat := s % 16
		root := st.roots[bar]
		// bass: eighth notes, root and octave
		bn := root
		if (s/2)%2 == 1 {
			bn += 12
		}
		bassPh += midi(bn) / SampleRate
		v := 0.22 * saw(bassPh) * (1 - 0.6*math.Mod(float64(s%2)+in, 2)/2)
		// lead arpeggio on every 16th
		ln := root + 12 + st.arp[s%len(st.arp)]
		leadPh += midi(ln) / SampleRate
		v += st.lead * square(leadPh) * math.Exp(-5*in)
		// kick
		if st.kick&(1<<uint(beat)) != 0 && in < 0.9 {
			if in == 0 || i%stepN == 0 {
				kickPh = 0
			}
			kickPh += (50 + 120*math.Exp(-20*in)) / SampleRate
			v += 0.5 * math.Sin(2*math.Pi*kickPh) * math.Exp(-6*in)
		}
		// hi-hat on off-beats
		if beat%2 == 1 {
			v += 0.06 * nz.next() * math.Exp(-30*in)
		}
		buf[i] = v * 0.8
	}
	// fade the last and first 64 samples slightly to keep the loop click-free
	for i := 0; i < 64; i++ {
		g := float64(i) / 64
		buf[i] *= g
		buf[total-1-i] *= g
	}
	return toPCM(buf)
}
