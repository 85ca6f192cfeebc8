package synth

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Score timing: TicksPerBar ticks in a 4/4 bar (48 per quarter note, 12 per sixteenth).
const (
	TicksPerBar  = 192
	ticksPerStep = TicksPerBar / 16
)

// Part is a stretch of whole bars with one arrangement. The notations:
//
//   - Chords: bars separated by "|", chords in a bar by spaces, each chord sharing the bar
//     equally: "Am | F G | E7". A chord is a root (C, C#, Db, ...) and a quality: "" major,
//     "m", "7", "m7", "maj7", "dim", "sus4", "5".
//   - Lead, Counter: notes "<name><octave>[:<length>]" (e4:8 is E4 an eighth long; lengths
//     1 2 4 8 16, "." dots; the length carries over to the next note), "r" a rest, "~" holds the
//     previous note longer, "|" a bar line (checked to fall on a bar boundary). "" = silent.
//   - Bass, Arp: names of 16-step figures (bassFigures, arpFigures) played on each chord.
//   - Drums: the name of a one-bar pattern (drumPatterns); Fill puts the "fill" pattern in the
//     last bar, Crash a cymbal on the first beat.
type Part struct {
	Bars    int
	Chords  string
	Lead    string
	Counter string // a second melodic line (bell patch), "" = none
	Bass    string
	Arp     string
	Pad     bool
	Drums   string
	Fill    bool
	Crash   bool
	Lift    int // semitones added to the lead (an octave up for a final chorus)
}

// Score is one piece: tempo, the lead's instrument, and the parts in playing order. When Loop,
// the parts from LoopFrom on repeat for ever; otherwise the piece ends (a stinger).
type Score struct {
	Name     string
	BPM      int
	Lead     *patch
	Parts    []Part
	Loop     bool
	LoopFrom int
	Gain     float64 // master gain (dB) before the limiter
}

// Tracks of a compiled score (each has its own pan and patch).
const (
	trLead = iota
	trCounter
	trBass
	trArp
	trPad
	trKick
	trSnare
	trHat
	trOpen
	trCrash
	trTom
	numTracks
)

var trackPan = [numTracks]float64{trLead: 0.05, trCounter: -0.35, trBass: 0, trArp: -0.45, trPad: 0,
	trKick: 0, trSnare: 0.08, trHat: 0.4, trOpen: 0.4, trCrash: -0.3, trTom: -0.2}

// event is one note of a compiled score.
type event struct {
	at    int64 // sample position from the start of the piece
	gate  int32 // samples the note is held
	track uint8
	note  uint8 // MIDI
	vel   float32
}

// compiled is a score ready to play.
type compiled struct {
	s         *Score
	events    []event
	loopStart int64 // samples
	end       int64 // samples: the loop end (or the last note's end for a stinger)
	loopEvent int   // index of the first event at or after loopStart
	echoDelay int   // samples
	gain      float64
}

// sampleAt converts an absolute tick to a sample position (exact integer arithmetic).
func (s *Score) sampleAt(tick int64) int64 {
	return tick * SampleRate * 60 / (int64(s.BPM) * (TicksPerBar / 4))
}

var noteBase = map[string]int{"c": 0, "c#": 1, "db": 1, "d": 2, "d#": 3, "eb": 3, "e": 4, "f": 5,
	"f#": 6, "gb": 6, "g": 7, "g#": 8, "ab": 8, "a": 9, "a#": 10, "bb": 10, "b": 11}

// parseLen parses a length such as "4", "8.", "2" into ticks.
func parseLen(s string) (int, error) {
	dots := strings.Count(s, ".")
	n, err := strconv.Atoi(strings.TrimRight(s, "."))
	if err != nil || n <= 0 || TicksPerBar%n != 0 {
		return 0, fmt.Errorf("bad length %q", s)
	}
	t, add := TicksPerBar/n, TicksPerBar/n
	for range dots {
		add /= 2
		t += add
	}
	return t, nil
}

type melNote struct {
	tick, len, note int // note −1: rest
}

// parseMelody parses the Lead/Counter notation into notes from tick 0.
func parseMelody(src string) ([]melNote, int, error) {
	var out []melNote
	tick, length := 0, TicksPerBar/4
	for _, tok := range strings.Fields(src) {
		if tok == "|" {
			if tick%TicksPerBar != 0 {
				return nil, 0, fmt.Errorf("bar line at tick %d (bar %d + %d ticks)", tick, tick/TicksPerBar+1, tick%TicksPerBar)
			}
			continue
		}
		name, l, hasLen := strings.Cut(tok, ":")
		if hasLen {
			n, err := parseLen(l)
			if err != nil {
				return nil, 0, fmt.Errorf("%q: %v", tok, err)
			}
			length = n
		}
		switch {
		case name == "r":
			out = append(out, melNote{tick, length, -1})
		case name == "~":
			if len(out) == 0 {
				return nil, 0, fmt.Errorf("%q: nothing to hold", tok)
			}
			out[len(out)-1].len += length
		default:
			i := strings.IndexAny(name, "0123456789")
			if i < 1 {
				return nil, 0, fmt.Errorf("bad note %q", tok)
			}
			base, ok := noteBase[name[:i]]
			oct, err := strconv.Atoi(name[i:])
			if !ok || err != nil {
				return nil, 0, fmt.Errorf("bad note %q", tok)
			}
			out = append(out, melNote{tick, length, 12*(oct+1) + base})
		}
		tick += length
	}
	return out, tick, nil
}

// chord is a chord's root pitch class and its intervals above the root.
type chord struct {
	tick, len int
	root      int
	iv        []int
}

var chordQualities = map[string][]int{"": {0, 4, 7}, "m": {0, 3, 7}, "7": {0, 4, 7, 10}, "m7": {0, 3, 7, 10},
	"maj7": {0, 4, 7, 11}, "dim": {0, 3, 6}, "sus4": {0, 5, 7}, "5": {0, 7}}

func parseChords(src string, bars int) ([]chord, error) {
	barStrs := strings.Split(src, "|")
	if len(barStrs) != bars {
		return nil, fmt.Errorf("%d bars of chords, want %d", len(barStrs), bars)
	}
	var out []chord
	for b, bs := range barStrs {
		names := strings.Fields(bs)
		if len(names) == 0 || TicksPerBar%len(names) != 0 {
			return nil, fmt.Errorf("bar %d: %d chords", b+1, len(names))
		}
		l := TicksPerBar / len(names)
		for i, nm := range names {
			rl := 1
			if len(nm) > 1 && (nm[1] == '#' || nm[1] == 'b') {
				rl = 2
			}
			root, ok := noteBase[strings.ToLower(nm[:rl])]
			iv, ok2 := chordQualities[nm[rl:]]
			if !ok || !ok2 {
				return nil, fmt.Errorf("bar %d: bad chord %q", b+1, nm)
			}
			out = append(out, chord{b*TicksPerBar + i*l, l, root, iv})
		}
	}
	return out, nil
}

// into returns pitch class pc placed in [lo, lo+12).
func into(pc, lo int) int { return lo + ((pc-lo)%12+12)%12 }

// Figures: 16 steps per bar. Bass: R root, O octave up, F fifth, '-' hold, '.' rest.
// Arp: digits index the chord tones upwards (wrapping into the next octave), '-' hold, '.' rest.
var bassFigures = map[string]string{
	"drive":   "R-R-O-R-R-O-R-O-",
	"octaves": "R-O-R-O-R-O-R-O-",
	"gallop":  "R-RRR-RRR-RRR-RR",
	"sixteen": "RRORRRORRRORRROR",
	"sync":    "R--R--R-O--R--F-",
	"groove":  "R--R-OR--R--O-F-",
	"march":   "R--RR-R-R--RR-O-",
	"slow":    "R-------F-------",
	"pedal":   "R---------------",
	"pulse":   "R-R-R-R-R-R-R-R-",
}

var arpFigures = map[string]string{
	"up":      "0123012301230123",
	"updown":  "0123432101234321",
	"broken":  "0213021302130213",
	"slow":    "0-2-3-2-0-2-3-2-",
	"sparkle": "3.5.4.3.5.4.3.5.",
	"triplet": "012012012012012.",
}

// drumPatterns: lanes k kick, s snare, h closed hat, o open hat, t tom; 'X' accent, 'x' hit.
var drumPatterns = map[string]map[byte]string{
	"rock":   {'k': "X.......x.x.....", 's': "....X.......X...", 'h': "x.x.x.x.x.x.x.x."},
	"drive":  {'k': "X...x...X...x...", 's': "....X.......X...", 'h': "x.x.x.x.x.x.x.x.", 'o': "..x...x...x...x."},
	"half":   {'k': "X.........x.....", 's': "........X.......", 'h': "x...x...x...x..."},
	"boss":   {'k': "X..x..x.X..x..x.", 's': "....X.......X..x", 'h': "xxxxxxxxxxxxxxxx"},
	"march":  {'k': "X.......X.......", 's': "..x.X.x...x.X.xx", 'h': "x...x...x...x..."},
	"groove": {'k': "X..x...x..x.....", 's': "....X.......X...", 'h': "x.xxx.xxx.xxx.xx"},
	"sparse": {'k': "X...............", 'h': "....x.......x..."},
	"pulse":  {'k': "X...x...X...x..."},
	"ride":   {'k': "X.......X.......", 'o': "x...x...x...x..."},
	"fill":   {'k': "X.......x.......", 's': "....X.x.xxx.XxXx", 't': "..........x..x.."},
	"none":   {},
}

var drumTrack = map[byte]int{'k': trKick, 's': trSnare, 'h': trHat, 'o': trOpen, 't': trTom}

// compile turns s into events. It checks every part's notation and lengths.
func compile(s *Score) (*compiled, error) {
	c := &compiled{s: s, gain: dB(s.Gain)}
	var ev []event
	add := func(tick, length int, track, note int, vel float64, gateFrac float64) {
		at := s.sampleAt(int64(tick))
		g := s.sampleAt(int64(tick+length)) - at
		g = max(1, int64(float64(g)*gateFrac))
		ev = append(ev, event{at: at, gate: int32(g), track: uint8(track), note: uint8(note), vel: float32(vel)})
	}
	start := 0
	loopTick := -1
	endTick := 0
	for pi, p := range s.Parts {
		if pi == s.LoopFrom {
			loopTick = start
		}
		where := fmt.Sprintf("%s part %d", s.Name, pi+1)
		chords, err := parseChords(p.Chords, p.Bars)
		if err != nil {
			return nil, fmt.Errorf("%s: chords: %v", where, err)
		}
		for ti, mel := range []string{p.Lead, p.Counter} {
			if mel == "" {
				continue
			}
			notes, n, err := parseMelody(mel)
			if err != nil {
				return nil, fmt.Errorf("%s: melody: %v", where, err)
			}
			if n != p.Bars*TicksPerBar {
				return nil, fmt.Errorf("%s: melody is %d ticks, want %d bars", where, n, p.Bars)
			}
			for _, m := range notes {
				if m.note < 0 {
					continue
				}
				vel := 0.85
				if m.tick%(TicksPerBar/2) == 0 {
					vel = 1
				}
				tr, nt := trLead, m.note+p.Lift
				if ti == 1 {
					tr, nt = trCounter, m.note
				}
				add(start+m.tick, m.len, tr, nt, vel, 0.92)
			}
		}
		for _, ch := range chords {
			ct := start + ch.tick
			if p.Pad {
				for _, iv := range ch.iv {
					add(ct, ch.len, trPad, into(ch.root+iv, 55), 1, 1)
				}
			}
			if p.Bass != "" {
				fig, ok := bassFigures[p.Bass]
				if !ok {
					return nil, fmt.Errorf("%s: no bass figure %q", where, p.Bass)
				}
				root := into(ch.root, 33)
				if err := figure(fig, ch, func(step, steps int, sym byte) {
					n := root
					switch sym {
					case 'O':
						n += 12
					case 'F':
						n += 7
					}
					vel := 0.8
					if step%4 == 0 {
						vel = 1
					}
					add(ct+step*ticksPerStep, steps*ticksPerStep, trBass, n, vel, 0.8)
				}); err != nil {
					return nil, fmt.Errorf("%s: bass: %v", where, err)
				}
			}
			if p.Arp != "" {
				fig, ok := arpFigures[p.Arp]
				if !ok {
					return nil, fmt.Errorf("%s: no arp figure %q", where, p.Arp)
				}
				root := into(ch.root, 60)
				if err := figure(fig, ch, func(step, steps int, sym byte) {
					d := int(sym - '0')
					n := root + ch.iv[d%len(ch.iv)] + 12*(d/len(ch.iv))
					add(ct+step*ticksPerStep, steps*ticksPerStep, trArp, n, 0.7+0.3*float64(1-step%2), 0.6)
				}); err != nil {
					return nil, fmt.Errorf("%s: arp: %v", where, err)
				}
			}
		}
		for bar := 0; bar < p.Bars; bar++ {
			name := p.Drums
			if p.Fill && bar == p.Bars-1 && name != "none" && name != "" {
				name = "fill"
			}
			if name == "" {
				continue
			}
			pat, ok := drumPatterns[name]
			if !ok {
				return nil, fmt.Errorf("%s: no drum pattern %q", where, name)
			}
			bt := start + bar*TicksPerBar
			for lane, steps := range pat {
				for i := 0; i < len(steps) && i < 16; i++ {
					if steps[i] == '.' {
						continue
					}
					vel := 0.75
					if steps[i] == 'X' {
						vel = 1
					}
					note := 60
					if lane == 't' {
						note = 52 - i/2 // the toms step down across the fill
					}
					add(bt+i*ticksPerStep, ticksPerStep, drumTrack[lane], note, vel, 1)
				}
			}
			if p.Crash && bar == 0 {
				add(bt, ticksPerStep, trCrash, 60, 1, 1)
			}
		}
		start += p.Bars * TicksPerBar
		endTick = start
	}
	if s.Loop {
		if loopTick < 0 {
			return nil, fmt.Errorf("%s: LoopFrom %d is not a part", s.Name, s.LoopFrom)
		}
		c.loopStart = s.sampleAt(int64(loopTick))
	}
	c.end = s.sampleAt(int64(endTick))
	sort.SliceStable(ev, func(i, j int) bool { return ev[i].at < ev[j].at })
	c.events = ev
	c.loopEvent = sort.Search(len(ev), func(i int) bool { return ev[i].at >= c.loopStart })
	c.echoDelay = int(s.sampleAt(3 * ticksPerStep)) // a dotted eighth
	return c, nil
}

// figure walks a 16-step figure over chord ch (a chord shorter than a bar uses the first steps),
// calling note for each note start with its length in steps.
func figure(fig string, ch chord, note func(step, steps int, sym byte)) error {
	if len(fig) != 16 {
		return fmt.Errorf("figure %q is not 16 steps", fig)
	}
	n := ch.len / ticksPerStep
	for i := 0; i < n; i++ {
		sym := fig[i]
		if sym == '-' || sym == '.' {
			continue
		}
		l := 1
		for i+l < n && fig[i+l] == '-' {
			l++
		}
		note(i, l, sym)
	}
	return nil
}
