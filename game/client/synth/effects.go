package synth

import (
	"math"
	"sync/atomic"
)

// Effect names a sound effect.
type Effect uint8

// The effects.
const (
	Shot            Effect = iota // normal shot: short falling pulse blip
	Beam1                         // wave-cannon release, charge level 1
	Beam2                         // level 2: longer and lower
	Beam3                         // level 3 (full charge): a roaring sweep with a sub drop
	ExplosionSmall                // a small enemy
	ExplosionMedium               // a large enemy, a weak point, a carrier
	ExplosionLarge                // a boss or a ship
	Hit                           // damage on an enemy: metallic tick
	PowerUp                       // capsule picked up: rising jingle
	ForceLaunch                   // the Force flies off: whoosh
	ForceAttach                   // the Force docks: clunk
	Death                         // the own ship is destroyed: falling wail
	Respawn                       // the own ship comes back: rising shimmer
	MenuMove                      // menu selection moved: blip
	MenuConfirm                   // menu item chosen: two-note chirp
	NumEffects
)

var effectNames = [NumEffects]string{"shot", "beam1", "beam2", "beam3", "explosion-small", "explosion-medium",
	"explosion-large", "hit", "powerup", "force-launch", "force-attach", "death", "respawn", "menu-move", "menu-confirm"}

func (e Effect) String() string {
	if e < NumEffects {
		return effectNames[e]
	}
	return "effect?"
}

// BeamEffect returns the release effect of beam level 1..3 (game.ChargeLevel; out-of-range
// levels are clamped).
func BeamEffect(level int) Effect { return Beam1 + Effect(min(2, max(0, level-1))) }

// effectSpec is an effect's length (s), peak level (dBFS) and renderer.
type effectSpec struct {
	dur    float64
	peakDB float64
	render func(l, r []float64, nz *noise)
}

// The mix against the music: the frequent small sounds sit well below it, big events on top.
var effectSpecs = [NumEffects]effectSpec{
	Shot:            {0.075, -11, renderShot},
	Beam1:           {0.35, -6, func(l, r []float64, nz *noise) { renderBeam(l, r, nz, 1) }},
	Beam2:           {0.6, -3.5, func(l, r []float64, nz *noise) { renderBeam(l, r, nz, 2) }},
	Beam3:           {1.0, -1, func(l, r []float64, nz *noise) { renderBeam(l, r, nz, 3) }},
	ExplosionSmall:  {0.4, -8, func(l, r []float64, nz *noise) { renderExplosion(l, r, nz, 0) }},
	ExplosionMedium: {0.8, -4, func(l, r []float64, nz *noise) { renderExplosion(l, r, nz, 1) }},
	ExplosionLarge:  {1.7, -1, func(l, r []float64, nz *noise) { renderExplosion(l, r, nz, 2) }},
	Hit:             {0.06, -15, renderHit},
	PowerUp:         {0.75, -4, renderPowerUp},
	ForceLaunch:     {0.32, -7, renderForceLaunch},
	ForceAttach:     {0.2, -6, renderForceAttach},
	Death:           {1.3, -2, renderDeath},
	Respawn:         {0.8, -5, renderRespawn},
	MenuMove:        {0.045, -13, renderMenuMove},
	MenuConfirm:     {0.22, -9, renderMenuConfirm},
}

// PeakDB returns e's peak level in dBFS (≤ −1).
func (e Effect) PeakDB() float64 { return effectSpecs[e].peakDB }

// Render returns the PCM (16-bit LE stereo at SampleRate) of effect e, normalised to peak at
// e.PeakDB(). It is deterministic.
func Render(e Effect) []byte {
	sp := effectSpecs[e]
	n := int(sp.dur * SampleRate)
	l, r := make([]float64, n), make([]float64, n)
	nz := noise{s: 0x2545f491 + uint32(e)*7919}
	sp.render(l, r, &nz)
	// 1 ms fade in and 6 ms fade out: no click at either end
	fi, fo := SampleRate/1000, 6*SampleRate/1000
	for i := 0; i < n; i++ {
		g := math.Min(1, math.Min(float64(i)/float64(fi), float64(n-1-i)/float64(fo)))
		l[i] *= g
		r[i] *= g
	}
	m := 0.0
	for i := range l {
		m = max(m, math.Abs(l[i]), math.Abs(r[i]))
	}
	g := 0.0
	if m > 0 {
		g = dB(sp.peakDB) * 0.9995 / m
	}
	out := make([]byte, n*4)
	for i := range l {
		putFrame(out[i*4:], l[i]*g, r[i]*g)
	}
	return out
}

// onePole is a one-pole low-pass filter.
type onePole struct{ a, y float64 }

func lowPass(fc float64) onePole { return onePole{a: 1 - math.Exp(-2*math.Pi*fc/SampleRate)} }

func (f *onePole) set(fc float64) { f.a = 1 - math.Exp(-2*math.Pi*fc/SampleRate) }

func (f *onePole) step(x float64) float64 { f.y += f.a * (x - f.y); return f.y }

func pulse(ph uint32, duty float64) float64 {
	if float64(ph)/(1<<32) < duty {
		return 1
	}
	return -1
}

func renderShot(l, r []float64, nz *noise) {
	var ph uint32
	n := len(l)
	lp := lowPass(6000)
	for i := range l {
		k := float64(i) / float64(n)
		f := 700 + 1300*math.Exp(-k*5)
		ph += phaseInc(f)
		v := pulse(ph, 0.25)*(1-k)*(1-k) + 0.4*nz.next()*math.Exp(-k*30)
		v = lp.step(v)
		l[i], r[i] = v, v*0.9
	}
}

// renderBeam: an FM sweep whose size grows with the level, noise, and (level 3) a sub drop.
func renderBeam(l, r []float64, nz *noise, level int) {
	n := len(l)
	var ph, mph, sub uint32
	f0, f1 := 900.0, 260.0
	idx := 1.5
	if level == 2 {
		f0, f1, idx = 760, 160, 2.5
	} else if level == 3 {
		f0, f1, idx = 1100, 90, 4
	}
	lpl, lpr := lowPass(5000), lowPass(5000)
	for i := range l {
		k := float64(i) / float64(n)
		f := f1 + (f0-f1)*math.Exp(-k*4)
		env := math.Pow(1-k, 1.5)
		m := sin32(mph) * idx * (1 - 0.6*k) * radToPhase
		mph += phaseInc(f * 1.5)
		ph += phaseInc(f)
		v := sin32(ph+uint32(int64(m))) * env
		nzv := nz.next() * env * env * 0.5
		cut := 1500 + 5000*(1-k)
		lpl.set(cut)
		lpr.set(cut)
		vl := v + lpl.step(nzv)
		vr := v*0.9 + lpr.step(nz.next()*env*env*0.5)
		if level == 3 {
			sub += phaseInc(70 - 40*k)
			s := 0.7 * sin32(sub) * math.Min(1, k*8) * (1 - k)
			vl += s
			vr += s
		}
		l[i], r[i] = vl, vr
	}
}

// renderExplosion: low-passed noise (decorrelated left/right), a pitch-dropping boom and, for the
// larger sizes, crackles.
func renderExplosion(l, r []float64, nz *noise, size int) {
	n := len(l)
	decay := []float64{5, 3.5, 2.6}[size]
	cut0 := []float64{3500, 2600, 2000}[size]
	boomF := []float64{130, 90, 65}[size]
	lpl, lpr := lowPass(cut0), lowPass(cut0)
	lp2l, lp2r := lowPass(cut0), lowPass(cut0)
	var ph uint32
	crack := 0.0
	for i := range l {
		k := float64(i) / float64(n)
		env := math.Exp(-decay*k) * math.Min(1, float64(i)/(0.004*SampleRate))
		cut := cut0 * (1 - 0.85*k)
		lpl.set(cut)
		lpr.set(cut)
		lp2l.set(cut)
		lp2r.set(cut)
		a := lp2l.step(lpl.step(nz.next()))
		b := lp2r.step(lpr.step(nz.next()))
		ph += phaseInc(boomF * (0.35 + 0.65*math.Exp(-k*8)))
		boom := sin32(ph) * math.Exp(-decay*1.6*k)
		if size > 0 && nz.next() > 0.9993-0.0004*float64(size) {
			crack = 1
		}
		c := crack * nz.next() * 0.8
		crack *= 0.996
		l[i] = (2.2*a+c)*env + 0.9*boom
		r[i] = (2.2*b-c)*env + 0.9*boom
	}
}

func renderHit(l, r []float64, nz *noise) {
	n := len(l)
	var ph, mph uint32
	for i := range l {
		k := float64(i) / float64(n)
		m := sin32(mph) * 2 * radToPhase
		mph += phaseInc(1700 * 1.41)
		ph += phaseInc(1700)
		v := (sin32(ph+uint32(int64(m)))*0.7 + 0.5*nz.next()) * math.Exp(-k*6)
		l[i], r[i] = v, v
	}
}

// renderPowerUp: a rising arpeggio C E G C E G C with a little echo, the last note held.
func renderPowerUp(l, r []float64, _ *noise) {
	notes := []float64{72, 76, 79, 84, 88, 91, 96}
	step := SampleRate * 55 / 1000
	var ph uint32
	for i := range l {
		ni := min(len(notes)-1, i/step)
		t := float64(i-ni*step) / SampleRate
		f := midiFreq(notes[ni])
		if ni == len(notes)-1 {
			f *= 1 + 0.01*math.Sin(2*math.Pi*7*t)
		}
		ph += phaseInc(f)
		v := pulse(ph, 0.25) * math.Exp(-t*3)
		l[i] += v
		if d := i + SampleRate*9/100; d < len(r) {
			r[d] += 0.45 * v
		}
		r[i] += 0.6 * v
	}
}

func renderForceLaunch(l, r []float64, nz *noise) {
	n := len(l)
	lo, hi := lowPass(400), lowPass(400)
	var ph uint32
	for i := range l {
		k := float64(i) / float64(n)
		fc := 400 + 5000*k
		hi.set(fc * 1.6)
		lo.set(fc * 0.6)
		x := nz.next()
		band := hi.step(x) - lo.step(x)
		ph += phaseInc(300 + 700*k)
		env := math.Sin(math.Pi * k)
		v := (1.8*band + 0.35*sin32(ph)) * env
		l[i], r[i] = v*(1-0.5*k), v*(0.5+0.5*k) // sweeps left to right
	}
}

func renderForceAttach(l, r []float64, nz *noise) {
	n := len(l)
	var ph, bell, mph uint32
	for i := range l {
		k := float64(i) / float64(n)
		ph += phaseInc(90 + 120*math.Exp(-k*12))
		m := sin32(mph) * 1.5 * radToPhase
		mph += phaseInc(1500 * 2.76)
		bell += phaseInc(1500)
		v := sin32(ph)*math.Exp(-k*5) + 0.35*sin32(bell+uint32(int64(m)))*math.Exp(-k*9) + 0.3*nz.next()*math.Exp(-k*60)
		l[i], r[i] = v, v
	}
}

func renderDeath(l, r []float64, nz *noise) {
	n := len(l)
	var ph uint32
	lp := lowPass(1200)
	for i := range l {
		k := float64(i) / float64(n)
		t := float64(i) / SampleRate
		f := 60 + 740*math.Pow(1-k, 2)
		f *= 1 + 0.06*math.Sin(2*math.Pi*11*t)
		ph += phaseInc(f)
		v := pulse(ph, 0.5)*0.6*(1-k) + lp.step(nz.next())*2*math.Exp(-k*3)
		l[i], r[i] = v, v
	}
}

func renderRespawn(l, r []float64, _ *noise) {
	n := len(l)
	var a, b, mph uint32
	for i := range l {
		k := float64(i) / float64(n)
		f := midiFreq(60 + 24*k)
		m := sin32(mph) * 1.2 * radToPhase
		mph += phaseInc(f * 3)
		a += phaseInc(f)
		b += phaseInc(f * 1.007)
		trem := 0.6 + 0.4*sin32(uint32(float64(i)*float64(phaseInc(18))))
		env := math.Min(1, k*6) * (1 - k)
		l[i] = sin32(a+uint32(int64(m))) * env * trem
		r[i] = sin32(b+uint32(int64(m))) * env * trem
	}
}

func renderMenuMove(l, r []float64, _ *noise) {
	var ph uint32
	n := len(l)
	for i := range l {
		ph += phaseInc(880)
		v := pulse(ph, 0.5) * (1 - float64(i)/float64(n))
		l[i], r[i] = v, v
	}
}

func renderMenuConfirm(l, r []float64, _ *noise) {
	var ph uint32
	half := len(l) / 3
	for i := range l {
		f, t := 880.0, float64(i)/SampleRate
		if i >= half {
			f, t = 1318.5, float64(i-half)/SampleRate
		}
		ph += phaseInc(f)
		v := pulse(ph, 0.25) * math.Exp(-t*9)
		l[i], r[i] = v, v
	}
}

// Hum is the beam-charge hum: an endless PCM stream (io.Reader) that is silent while the charge
// is 0 and otherwise hums with a pitch and brightness rising with the charge (SetCharge), with a
// fast pulsing once the beam is full. Its peak stays below −6 dBFS. SetCharge may be called from
// any goroutine while another reads.
type Hum struct {
	charge   atomic.Uint32 // 0..255
	amp, f   float64       // smoothed level and pitch
	ph, ph2  uint32
	mph, lfo uint32
}

// NewHum returns a silent hum.
func NewHum() *Hum { return &Hum{f: 110} }

// SetCharge sets the beam charge 0..255 (game.ChargeAt): 0 silences the hum.
func (h *Hum) SetCharge(c uint8) { h.charge.Store(uint32(c)) }

// Read fills p with whole frames of PCM; it never ends.
func (h *Hum) Read(p []byte) (int, error) {
	c := float64(h.charge.Load()) / 255
	target, tf := 0.0, 110*math.Pow(2, 2.6*c)
	if c > 0 {
		target = 0.22 + 0.22*c
	}
	full := c >= 1
	const smooth = 1.0 / (0.02 * SampleRate)
	frames := len(p) / 4
	idx := 0.5 + 2.5*c
	lfoInc := phaseInc(6 + 14*c)
	if full {
		lfoInc = phaseInc(24)
	}
	for i := 0; i < frames; i++ {
		h.amp += (target - h.amp) * smooth
		h.f += (tf - h.f) * smooth
		m := sin32(h.mph) * idx * radToPhase
		h.mph += phaseInc(h.f * 2)
		h.ph += phaseInc(h.f)
		h.ph2 += phaseInc(h.f * 1.006)
		h.lfo += lfoInc
		trem := 0.75 + 0.25*sin32(h.lfo)
		a := h.amp * trem
		putFrame(p[i*4:], sin32(h.ph+uint32(int64(m)))*a, sin32(h.ph2+uint32(int64(m)))*a)
	}
	return frames * 4, nil
}
