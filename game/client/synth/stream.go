package synth

import (
	"io"
	"math"
)

// numVoices is the voice pool of one stream.
const numVoices = 40

// chunk is the most frames a Stream renders in one go.
const chunk = 256

// trackPatch is the instrument of each track (the lead's comes from the score).
var trackPatch = [numTracks]*patch{trCounter: &patchBell, trBass: &patchBass, trArp: &patchArp, trPad: &patchPad,
	trKick: &drumKick, trSnare: &drumSnare, trHat: &drumHat, trOpen: &drumOpen, trCrash: &drumCrash, trTom: &drumTom}

// Stream plays a compiled score as 16-bit LE stereo PCM (an io.Reader). A looping score never
// ends; a stinger returns io.EOF after its last note has died away. Not safe for concurrent use.
type Stream struct {
	c       *compiled
	pos     int64 // sample position in the piece's timeline (wraps at the loop end)
	next    int   // next event index
	voices  [numVoices]voice
	seed    uint32
	l, r    [chunk]float64
	el, er  [chunk]float64
	echoL   []float64
	echoR   []float64
	echoPos int
	tail    int64 // stinger: samples rendered after the end
	done    bool
}

func newStream(c *compiled) *Stream {
	return &Stream{c: c, seed: 0x9e3779b9, echoL: make([]float64, c.echoDelay), echoR: make([]float64, c.echoDelay)}
}

// LoopStart and LoopEnd are the sample positions of the loop (LoopEnd is also the length of one
// pass through the piece): after LoopEnd samples the stream goes on from LoopStart.
func (s *Stream) LoopStart() int64 { return s.c.loopStart }

// LoopEnd is the sample position where the stream wraps to LoopStart.
func (s *Stream) LoopEnd() int64 { return s.c.end }

// trigger starts event e on a free voice (or the quietest one).
func (s *Stream) trigger(e *event) {
	best, bestLevel := 0, math.Inf(1)
	for i := range s.voices {
		v := &s.voices[i]
		if !v.active() {
			best = i
			break
		}
		lv := v.level
		if v.stage != envRelease && v.p.osc <= oscPulse {
			lv += 1 // prefer stealing a releasing note or a drum
		}
		if lv < bestLevel {
			best, bestLevel = i, lv
		}
	}
	p := trackPatch[e.track]
	if e.track == trLead {
		p = s.c.s.Lead
	}
	s.seed = s.seed*1664525 + 1013904223
	s.voices[best].start(p, float64(e.note), int(e.gate), float64(e.vel), trackPan[e.track], s.seed)
}

// renderFloat renders n ≤ chunk frames into s.l, s.r (after gain and limiter). It returns the
// number of frames rendered (0 once a stinger has ended).
func (s *Stream) renderFloat(n int) int {
	if s.done {
		return 0
	}
	c := s.c
	l, r, el, er := s.l[:n], s.r[:n], s.el[:n], s.er[:n]
	clear(l)
	clear(r)
	clear(el)
	clear(er)
	for off := 0; off < n; {
		// events due now
		for s.next < len(c.events) && c.events[s.next].at <= s.pos {
			s.trigger(&c.events[s.next])
			s.next++
		}
		if c.s.Loop && s.pos >= c.end {
			s.pos, s.next = c.loopStart, c.loopEvent
			continue
		}
		// frames until the next event or the loop end
		m := int64(n - off)
		if s.next < len(c.events) {
			m = min(m, c.events[s.next].at-s.pos)
		}
		if c.s.Loop {
			m = min(m, c.end-s.pos)
		}
		k := int(m)
		for i := range s.voices {
			if v := &s.voices[i]; v.active() {
				v.render(l[off:off+k], r[off:off+k], el[off:off+k], er[off:off+k])
			}
		}
		off += k
		s.pos += int64(k)
	}
	// ping-pong echo: the left delay line feeds the right and the other way round
	d := len(s.echoL)
	g := c.gain
	for i := 0; i < n; i++ {
		dl, dr := s.echoL[s.echoPos], s.echoR[s.echoPos]
		s.echoL[s.echoPos] = el[i] + dr*0.45
		s.echoR[s.echoPos] = er[i]*0.3 + dl*0.45
		if s.echoPos++; s.echoPos == d {
			s.echoPos = 0
		}
		l[i] = limit((l[i] + 0.5*dl) * g)
		r[i] = limit((r[i] + 0.5*dr) * g)
	}
	if !c.s.Loop && s.pos >= c.end {
		quiet := true
		for i := range s.voices {
			if s.voices[i].active() {
				quiet = false
				break
			}
		}
		if s.tail += int64(n); quiet || s.tail > 3*SampleRate {
			s.done = true
		}
	}
	return n
}

// Read fills p with whole frames of PCM.
func (s *Stream) Read(p []byte) (int, error) {
	frames := len(p) / 4
	if frames == 0 {
		return 0, nil
	}
	w := 0
	for w < frames {
		n := s.renderFloat(min(chunk, frames-w))
		if n == 0 {
			break
		}
		for i := 0; i < n; i++ {
			putFrame(p[(w+i)*4:], s.l[i], s.r[i])
		}
		w += n
	}
	if w == 0 {
		return 0, io.EOF
	}
	return w * 4, nil
}
