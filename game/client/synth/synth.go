// Package synth makes all of the game's sound in Go, at run time: no audio file is loaded or
// embedded. It does not import ebiten, so everything it outputs is unit-tested. Its output is
// 16-bit little-endian stereo PCM at SampleRate, the format ebiten's audio.Context plays.
//
// # Music
//
// The music is composed, not generated at random: songs.go holds one score per song id (the
// MUSIC ids of docs/PROTOCOL.md §3.4.4, see SongID) written by hand as text in the source — a
// tempo, a patch per track, and parts of whole bars (chord changes, a lead melody in a small note
// notation, a bass figure, an arpeggio figure, a drum pattern) arranged into a form such as
// intro A B A' C B' A”. The score is the source: it is a few kilobytes of Go, so there is no
// generator and no generated file to keep in step with it, and the binary needs nothing beside it.
// Every looping song runs at least 60 s (tested) before it repeats its loop, which starts after
// the intro.
//
// Compile turns a score into note events (sample position, track, pitch, length, velocity);
// Stream plays them through a small FM/pulse synthesizer (instruments.go): a fixed pool of
// voices with ADSR envelopes — a 2-operator FM lead, a pulse lead, an FM bell, a punchy FM bass,
// a pulse arpeggio, a detuned FM pad and a drum kit made of pitch-swept sines and filtered noise
// — panned into a stereo mix with a ping-pong echo on the lead and the arpeggio. The stream is
// rendered on the fly in small chunks by whoever reads it (the audio player's goroutine), so a
// song costs a few kilobytes of memory instead of ~10 MB of PCM per minute. The loop is exact:
// event positions are whole samples computed from ticks, the sequencer wraps from the loop end
// to the loop start without resetting any voice, so notes ringing over the loop point go on as
// they would anywhere else in the piece. Jukebox crossfades linearly from one stream to the next.
//
// Levels: every voice output is bounded, the song's master gain keeps the mix's peaks below
// −3 dBFS, and a soft limiter (limit) maps anything louder asymptotically onto Ceiling (−1 dBFS),
// so the music can never clip; a linear crossfade of two bounded streams stays bounded.
//
// # Effects
//
// Render returns the PCM of a short effect (shot, beam release per level, three explosion sizes,
// hit, power-up, Force launch/attach, death, respawn, menu move/confirm), rendered once at
// start-up and normalised to its own peak level (Effect.PeakDB, all ≤ −1 dBFS) so the effects sit
// against the music: frequent small sounds quieter, big events louder. Hum is the charge hum: an
// endless stream whose pitch and brightness follow the beam charge as it rises.
package synth

import (
	"encoding/binary"
	"math"
)

// SampleRate is the PCM rate in Hz (the client creates its audio.Context with it).
const SampleRate = 44100

// Ceiling is the highest sample magnitude the package outputs, as a fraction of full scale:
// −1 dBFS (0.891).
var Ceiling = math.Pow(10, -1.0/20)

// limitKnee is where the soft limiter starts bending (−3 dBFS).
var limitKnee = math.Pow(10, -3.0/20)

// limit is a soft limiter: identity up to limitKnee, then a tanh knee that approaches Ceiling and
// never reaches it.
func limit(x float64) float64 {
	a := math.Abs(x)
	if a <= limitKnee {
		return x
	}
	w := Ceiling - 1.0/32767 - limitKnee // the asymptote stays a rounding step below Ceiling
	y := limitKnee + w*math.Tanh((a-limitKnee)/w)
	if x < 0 {
		return -y
	}
	return y
}

// sineTable is one period of a sine, indexed by the top sineBits bits of a uint32 phase.
const sineBits = 12

var sineTable = func() (t [1 << sineBits]float64) {
	for i := range t {
		t[i] = math.Sin(2 * math.Pi * float64(i) / float64(len(t)))
	}
	return
}()

// sin32 is sin(2π·ph/2³²) from the table.
func sin32(ph uint32) float64 { return sineTable[ph>>(32-sineBits)] }

// phaseInc is the per-sample phase increment of frequency f Hz (2³² = one period).
func phaseInc(f float64) uint32 { return uint32(f * (1 << 32) / SampleRate) }

// radToPhase converts radians to uint32 phase units.
const radToPhase = (1 << 32) / (2 * math.Pi)

// noise is a xorshift32 white-noise source (deterministic for a seed).
type noise struct{ s uint32 }

func (n *noise) next() float64 {
	n.s ^= n.s << 13
	n.s ^= n.s >> 17
	n.s ^= n.s << 5
	return float64(int32(n.s)) / (1 << 31)
}

// midiFreq returns the frequency in Hz of MIDI note n (69 = A4 = 440 Hz).
func midiFreq(n float64) float64 { return 440 * math.Pow(2, (n-69)/12) }

// dB converts decibels to a linear gain.
func dB(d float64) float64 { return math.Pow(10, d/20) }

// putFrame writes one 16-bit LE stereo frame (values −1..1, clamped) at b[0:4].
func putFrame(b []byte, l, r float64) {
	binary.LittleEndian.PutUint16(b, uint16(toInt16(l)))
	binary.LittleEndian.PutUint16(b[2:], uint16(toInt16(r)))
}

func toInt16(v float64) int16 {
	if v > 1 {
		v = 1
	} else if v < -1 {
		v = -1
	}
	return int16(math.Round(v * 32767))
}
