package synth

// Stage 3's music: the Bydo warship. The approach is slow and ominous (the hull looms), the
// flight along the hull drives on, the reactor core is the finale.

// stage3Approach: D minor, 108 bpm, a dark march as the warship comes out of the dark.
func stage3Approach() *Score {
	intro := Part{Bars: 4, Chords: "Dm | Dm | Bb | A", Bass: "pedal", Arp: "slow", Pad: true, Drums: "none"}
	a := Part{Bars: 8, Chords: "Dm | Dm | Bb | A | Dm | Dm | Gm | A",
		Lead: "d5:2 a4:2 | f5:4 e5:4 d5:2 | d5:4. c5:8 bb4:2 | a4:1 | d5:2 f5:2 | a5:4 g5:4 f5:2 | g5:4. f5:8 d5:4 bb4:4 | c#5:1",
		Bass: "slow", Arp: "slow", Pad: true, Drums: "march", Crash: true}
	b := Part{Bars: 8, Chords: "Bb | C | Dm | A | Bb | C | A | A7",
		Lead: "f5:4 g5:4 a5:2 | g5:4 e5:4 c5:2 | d5:4 f5:4 a5:4 d6:4 | c#6:1 | bb5:4 a5:4 g5:4 f5:4 | e5:4 g5:4 c6:2 | a5:2 e5:2 | c#5:2 e5:2",
		Bass: "sync", Arp: "broken", Pad: true, Drums: "half", Fill: true}
	c := Part{Bars: 8, Chords: "Dm | C | Bb | A | Dm | C | Bb | A",
		Counter: "d5:1 | e5:1 | f5:1 | e5:1 | d5:1 | c5:1 | bb4:1 | a4:1",
		Bass:    "pedal", Arp: "sparkle", Pad: true, Drums: "sparse"}
	a2 := with(a, func(p *Part) { p.Arp, p.Drums = "broken", "drive" })
	b2 := with(b, func(p *Part) { p.Drums, p.Arp = "drive", "up" })
	return &Score{Name: "stage3-approach", BPM: 108, Lead: &patchPulseLead, Loop: true, LoopFrom: 1, Gain: -5,
		Parts: []Part{intro, a, b, c, a2, b2}}
}

// stage3Hull: C minor, 132 bpm, flying along the hull under its guns.
func stage3Hull() *Score {
	intro := Part{Bars: 2, Chords: "Cm | Cm", Bass: "drive", Drums: "drive"}
	a := Part{Bars: 8, Chords: "Cm | Ab | Bb | G | Cm | Ab | Fm | G",
		Lead: "c5:8 eb5:8 g5:8 c6:8 bb5:4 g5:4 | ab5:4. g5:8 eb5:2 | f5:8 g5:8 bb5:8 d6:8 c6:4 bb5:4 | b5:1 | " +
			"c6:4 g5:4 eb5:4 c5:4 | ab5:4. bb5:8 c6:2 | f5:4 ab5:4 c6:4 f6:4 | d6:2 b5:2",
		Bass: "drive", Arp: "up", Drums: "drive", Crash: true, Fill: true}
	b := Part{Bars: 8, Chords: "Ab | Bb | Eb | Cm | Ab | Bb | G | G7",
		Lead: "eb5:2 ab5:2 | f5:2 bb5:2 | g5:4. f5:8 eb5:4 g5:4 | c6:1 | " +
			"ab5:4 c6:4 eb6:4 c6:4 | bb5:4 d6:4 f6:4 d6:4 | b5:2 g5:2 | d5:2 f5:2",
		Bass: "gallop", Arp: "updown", Pad: true, Drums: "rock", Crash: true}
	c := Part{Bars: 8, Chords: "Cm | Cm | Ab | Ab | Fm | Fm | G | G",
		Counter: "g4:1 | c5:1 | eb5:1 | c5:1 | ab4:1 | c5:1 | d5:1 | b4:1",
		Bass:    "pulse", Arp: "triplet", Pad: true, Drums: "half"}
	a2 := with(a, func(p *Part) { p.Pad, p.Arp = true, "broken" })
	b2 := with(b, func(p *Part) { p.Drums = "drive" })
	return &Score{Name: "stage3-hull", BPM: 132, Lead: &patchSyncLead, Loop: true, LoopFrom: 1, Gain: -6,
		Parts: []Part{intro, a, b, c, a2, b2}}
}

// stage3Core: B minor, 156 bpm, the finale at the warship's reactor.
func stage3Core() *Score {
	intro := Part{Bars: 2, Chords: "Bm | C", Bass: "sixteen", Drums: "boss", Fill: true}
	a := Part{Bars: 8, Chords: "Bm | C | Bm | C | G | A | F# | F#",
		Lead: "b4:8 d5:8 f#5:8 b5:8 a5:8 f#5:8 d5:4 | e5:4 g5:4 c6:4 b5:8 g5:8 | f#5:8 f#5:8 b5:8 f#5:8 d6:8 b5:8 f#5:4 | g5:2 e5:2 | " +
			"d6:4 b5:4 g5:4 b5:4 | c#6:4 a5:4 e5:4 a5:4 | a#5:2 f#5:2 | c#5:2 f#5:2",
		Bass: "sixteen", Arp: "up", Drums: "boss", Crash: true, Fill: true}
	b := Part{Bars: 8, Chords: "G | A | Bm | Bm | G | A | F# | F#7",
		Lead: "b5:2 d6:2 | c#6:2 e6:2 | f#6:4. e6:8 d6:4 b5:4 | b5:1 | " +
			"g5:4 b5:4 d6:4 g6:4 | a6:4 e6:4 c#6:4 a5:4 | a#5:2 c#6:2 | f#6:1",
		Bass: "gallop", Arp: "updown", Pad: true, Drums: "drive", Crash: true, Fill: true}
	c := Part{Bars: 8, Chords: "Bm | Bm | C | C | Bm | Bm | C | F#",
		Counter: "f#4:1 | b4:1 | c5:1 | e5:1 | d5:1 | f#5:1 | g5:1 | f#5:2 a#4:2",
		Bass:    "pulse", Arp: "triplet", Pad: true, Drums: "march"}
	a2 := with(a, func(p *Part) { p.Pad = true })
	b2 := with(b, func(p *Part) { p.Drums = "boss" })
	a3 := with(a, func(p *Part) { p.Pad, p.Arp = true, "broken" })
	return &Score{Name: "stage3-core", BPM: 156, Lead: &patchBrass, Loop: true, LoopFrom: 1, Gain: -7,
		Parts: []Part{intro, a, b, a2, c, b2, a3}}
}
