package synth

import "math"

// osc is a voice's oscillator kind.
type osc uint8

const (
	oscFM    osc = iota // 2-operator FM: sin(carrier + index·sin(modulator)), index with its own decay
	oscPulse            // band-limited (polyBLEP) pulse of a given duty cycle
	oscKick             // drum: sine swept down from a high start pitch
	oscSnare            // drum: short tone plus high-passed noise
	oscHat              // drum: high-passed noise (closed, open and crash by decay)
	oscTom              // drum: sine swept down a fifth
)

// patch is an instrument: oscillator, envelope and pitch modulation. Times are in seconds.
type patch struct {
	osc                             osc
	ratio                           float64 // FM: modulator frequency / carrier frequency
	index, index0                   float64 // FM: sustained modulation index (radians) and extra index at note-on
	indexDecay                      float64 // FM: time constant of the extra index
	duty                            float64 // pulse: duty cycle 0..1
	detune                          float64 // cents: a second carrier detuned by this much, panned apart (chorus)
	attack, decay, sustain, release float64
	vibDepth                        float64 // semitones
	vibRate                         float64 // Hz
	vibDelay                        float64 // s after note-on
	gain                            float64
	decayTime                       float64 // drums: amplitude time constant
	echo                            float64 // send to the ping-pong echo (0..1)
}

// The instruments. Gains keep a full arrangement around −6 dBFS before the song's master gain.
var (
	patchBrass = patch{osc: oscFM, ratio: 1, index: 1.3, index0: 2.2, indexDecay: 0.12,
		attack: 0.012, decay: 0.25, sustain: 0.75, release: 0.12,
		vibDepth: 0.18, vibRate: 5.5, vibDelay: 0.22, gain: 0.42, echo: 0.30}
	patchPulseLead = patch{osc: oscPulse, duty: 0.25,
		attack: 0.004, decay: 0.3, sustain: 0.65, release: 0.09,
		vibDepth: 0.15, vibRate: 6, vibDelay: 0.18, gain: 0.28, echo: 0.35}
	patchBell = patch{osc: oscFM, ratio: 3.5, index: 0.4, index0: 2.4, indexDecay: 0.25,
		attack: 0.002, decay: 0.9, sustain: 0.15, release: 0.35, gain: 0.40, echo: 0.40}
	patchSyncLead = patch{osc: oscFM, ratio: 2, index: 1.6, index0: 1.5, indexDecay: 0.2,
		attack: 0.006, decay: 0.2, sustain: 0.7, release: 0.1,
		vibDepth: 0.2, vibRate: 6.5, vibDelay: 0.2, gain: 0.36, echo: 0.30}
	patchBass = patch{osc: oscFM, ratio: 1, index: 1.0, index0: 3.5, indexDecay: 0.05,
		attack: 0.003, decay: 0.18, sustain: 0.65, release: 0.05, gain: 0.42}
	patchArp = patch{osc: oscPulse, duty: 0.5,
		attack: 0.002, decay: 0.11, sustain: 0.0, release: 0.04, gain: 0.15, echo: 0.45}
	patchPad = patch{osc: oscFM, ratio: 1, index: 0.7, indexDecay: 1, detune: 9,
		attack: 0.35, decay: 0.6, sustain: 0.8, release: 0.5, gain: 0.07}
	drumKick  = patch{osc: oscKick, gain: 0.55, decayTime: 0.22}
	drumSnare = patch{osc: oscSnare, gain: 0.28, decayTime: 0.11}
	drumHat   = patch{osc: oscHat, gain: 0.16, decayTime: 0.025}
	drumOpen  = patch{osc: oscHat, gain: 0.12, decayTime: 0.16}
	drumCrash = patch{osc: oscHat, gain: 0.09, decayTime: 0.9}
	drumTom   = patch{osc: oscTom, gain: 0.45, decayTime: 0.18}
)

// envelope stages.
const (
	envOff uint8 = iota
	envAttack
	envDecay
	envRelease
)

// voice is one sounding note. Everything per sample is multiply-adds and table lookups.
type voice struct {
	p         *patch
	stage     uint8
	level     float64 // envelope 0..1
	atkInc    float64 // per sample
	decMul    float64 // decay: level = sus + (level−sus)·decMul
	relMul    float64
	gateLeft  int // samples until note-off
	vel       float64
	gl, gr    float64 // pan gains
	ph, ph2   uint32  // carrier (and detuned carrier) phases
	mph       uint32  // modulator phase
	inc, inc2 uint32
	minc      uint32
	idxExtra  float64 // FM extra index, decays by idxMul
	idxMul    float64
	vibPh     uint32
	vibInc    uint32
	vibAmt    float64 // fraction of inc at full vibrato
	vibWait   int
	t         int // samples since note-on
	// drums
	dmul     float64 // amplitude decay per sample
	freq     float64 // current pitch (drums), Hz
	fmul     float64 // pitch sweep multiplier per sample
	fend     float64
	nz       noise
	hp1, hp2 float64 // high-pass filter memories
	tone     float64 // snare tone level
}

// tc returns the per-sample multiplier of an exponential decay with time constant sec.
func tc(sec float64) float64 {
	if sec <= 0 {
		return 0
	}
	return math.Exp(-1 / (sec * SampleRate))
}

// start sets v up to play note (MIDI, fractional allowed) for gate samples at velocity vel
// (0..1) and pan (−1 left .. 1 right).
func (v *voice) start(p *patch, note float64, gate int, vel, pan float64, seed uint32) {
	*v = voice{p: p, stage: envAttack, gateLeft: gate, vel: vel * p.gain, nz: noise{s: seed | 1}}
	a := (pan + 1) * math.Pi / 4
	v.gl, v.gr = math.Cos(a)*math.Sqrt2, math.Sin(a)*math.Sqrt2 // centre: 1, 1
	f := midiFreq(note)
	switch p.osc {
	case oscKick:
		v.freq, v.fend, v.fmul = 150, 44, tc(0.035)
		v.dmul, v.level = tc(p.decayTime), 1
		return
	case oscTom:
		v.freq, v.fend, v.fmul = f*1.5, f, tc(0.08)
		v.dmul, v.level = tc(p.decayTime), 1
		return
	case oscSnare:
		v.freq, v.tone = 185, 1
		v.dmul, v.fmul, v.level = tc(p.decayTime), tc(0.045), 1
		return
	case oscHat:
		v.dmul, v.level = tc(p.decayTime), 1
		return
	}
	v.inc = phaseInc(f)
	v.inc2 = phaseInc(f * math.Pow(2, p.detune/1200))
	v.ph2 = 0x40000000 // the detuned twin starts a quarter period apart
	v.minc = phaseInc(f * p.ratio)
	v.idxExtra, v.idxMul = p.index0, tc(p.indexDecay)
	v.atkInc = 1 / math.Max(1, p.attack*SampleRate)
	v.decMul, v.relMul = tc(p.decay), tc(p.release)
	if p.vibDepth > 0 {
		v.vibInc = phaseInc(p.vibRate)
		v.vibAmt = math.Pow(2, p.vibDepth/12) - 1
		v.vibWait = int(p.vibDelay * SampleRate)
	}
}

// active reports whether v still sounds.
func (v *voice) active() bool { return v.stage != envOff }

// polyBLEP is the band-limiting correction of a step at phase t (0..1) for increment dt.
func polyBLEP(t, dt float64) float64 {
	if t < dt {
		t /= dt
		return t + t - t*t - 1
	}
	if t > 1-dt {
		t = (t - 1) / dt
		return t*t + t + t + 1
	}
	return 0
}

// render adds n samples of v into l and r, times gain, and the echo send into el and er
// (which may be nil when the patch sends nothing).
func (v *voice) render(l, r, el, er []float64) {
	p := v.p
	n := len(l)
	switch p.osc {
	case oscKick, oscTom:
		ph := v.ph
		for i := 0; i < n; i++ {
			s := sin32(ph) * v.level * v.vel
			ph += phaseInc(v.freq)
			v.freq = v.fend + (v.freq-v.fend)*v.fmul
			v.level *= v.dmul
			l[i] += s * v.gl
			r[i] += s * v.gr
		}
		v.ph = ph
		if v.level < 1e-4 {
			v.stage = envOff
		}
		return
	case oscSnare, oscHat:
		inc := phaseInc(v.freq)
		hat := p.osc == oscHat
		for i := 0; i < n; i++ {
			x := v.nz.next()
			h := x - v.hp1 // first-order high-pass (difference)
			v.hp1 = x
			var s float64
			if hat {
				h2 := h - v.hp2
				v.hp2 = h
				s = h2 * 0.5
			} else {
				s = 0.55*h + 0.6*sin32(v.ph)*v.tone
				v.ph += inc
				v.tone *= v.fmul
			}
			s *= v.level * v.vel
			v.level *= v.dmul
			l[i] += s * v.gl
			r[i] += s * v.gr
		}
		if v.level < 1e-4 {
			v.stage = envOff
		}
		return
	}
	send := p.echo
	for i := 0; i < n; i++ {
		// envelope
		switch v.stage {
		case envAttack:
			v.level += v.atkInc
			if v.level >= 1 {
				v.level, v.stage = 1, envDecay
			}
		case envDecay:
			v.level = p.sustain + (v.level-p.sustain)*v.decMul
		case envRelease:
			v.level *= v.relMul
		}
		if v.gateLeft--; v.gateLeft == 0 && v.stage != envRelease {
			v.stage = envRelease
		}
		inc, inc2 := v.inc, v.inc2
		if v.vibAmt > 0 {
			if v.t >= v.vibWait {
				m := 1 + v.vibAmt*sin32(v.vibPh)*math.Min(1, float64(v.t-v.vibWait)/(0.3*SampleRate))
				inc, inc2 = uint32(float64(inc)*m), uint32(float64(inc2)*m)
				v.vibPh += v.vibInc
			}
		}
		v.t++
		var s, s2 float64
		switch p.osc {
		case oscFM:
			idx := p.index + v.idxExtra
			v.idxExtra *= v.idxMul
			m := sin32(v.mph) * idx * radToPhase
			v.mph += v.minc
			s = sin32(v.ph + uint32(int64(m)))
			if p.detune != 0 {
				s2 = sin32(v.ph2 + uint32(int64(m)))
				v.ph2 += inc2
			}
		case oscPulse:
			t := float64(v.ph) / (1 << 32)
			dt := float64(inc) / (1 << 32)
			if t < p.duty {
				s = 1
			} else {
				s = -1
			}
			s += polyBLEP(t, dt)
			t2 := t - p.duty
			if t2 < 0 {
				t2++
			}
			s -= polyBLEP(t2, dt)
			s -= 2*p.duty - 1 // remove the DC of the duty cycle
		}
		v.ph += inc
		a := v.level * v.vel
		if p.detune != 0 {
			l[i] += (s*0.8 + s2*0.45) * a * v.gl
			r[i] += (s*0.45 + s2*0.8) * a * v.gr
		} else {
			l[i] += s * a * v.gl
			r[i] += s * a * v.gr
		}
		if send > 0 {
			e := (s + s2) * a * send
			el[i] += e * v.gl
			er[i] += e * v.gr
		}
	}
	if v.stage == envRelease && v.level < 3e-4 {
		v.stage = envOff
	}
}
