package synth

// The compositions: one Score per SongID and per Stinger. All are this project's own.
// Each looping song is an intro followed by a loop of at least 60 s (TestSongsLoopAtLeast60s);
// variations of a part (A', A'') change the lead's instrument or octave, the arpeggio, the drums.

var songs = [NumSongs]*Score{
	SongTitle:          titleSong(),
	SongStage1Space:    stage1Space(),
	SongStage1Base:     stage1Base(),
	SongStage1Boss:     stage1Boss(),
	SongStage1Armada:   stage1Armada(),
	SongStage2Cave:     stage2Cave(),
	SongStage2Depths:   stage2Depths(),
	SongStage2Boss:     stage2Boss(),
	SongStage3Approach: stage3Approach(),
	SongStage3Hull:     stage3Hull(),
	SongStage3Core:     stage3Core(),
}

var stingers = [NumStingers]*Score{
	StingerVictory:  victory(),
	StingerGameOver: gameOver(),
}

// with returns p changed by f (for variations of a part).
func with(p Part, f func(*Part)) Part { f(&p); return p }

// titleSong: A minor, 112 bpm, a broad heroic theme over a calm beat.
func titleSong() *Score {
	intro := Part{Bars: 2, Chords: "Am | E", Pad: true, Bass: "pedal", Arp: "slow", Drums: "none"}
	a := Part{Bars: 8, Chords: "Am | F | G | E | Am | F | Dm E | Am",
		Lead: "a4:4. b4:8 c5:4 e5:4 | f5:2 e5:4 c5:4 | d5:4. e5:8 d5:4 b4:4 | g#4:2 e4:2 | " +
			"a4:4. c5:8 e5:4 a5:4 | a5:2 g5:4 f5:4 | f5:4 d5:4 e5:4 g#5:4 | a5:1",
		Bass: "slow", Arp: "slow", Pad: true, Drums: "half", Crash: true}
	b := Part{Bars: 8, Chords: "F | G | Em | Am | F | G | E7 | E",
		Lead: "c6:2 a5:4 f5:4 | b5:2 g5:4 d5:4 | e5:4. g5:8 b5:4 e6:4 | c6:1 | " +
			"a5:4 c6:4 f6:4 e6:4 | d6:4. c6:8 b5:4 g5:4 | g#5:4 b5:4 e6:4 d6:4 | b5:2 g#5:2",
		Bass: "octaves", Arp: "up", Pad: true, Drums: "rock", Fill: true}
	a2 := with(a, func(p *Part) { p.Bass, p.Arp, p.Drums, p.Counter = "drive", "broken", "rock", "" })
	b2 := with(b, func(p *Part) { p.Arp = "updown" })
	return &Score{Name: "title", BPM: 112, Lead: &patchBrass, Loop: true, LoopFrom: 1, Gain: -6,
		Parts: []Part{intro, a, b, a2, b2}}
}

// stage1Space: E minor, 138 bpm, driving octave bass, heroic lead.
func stage1Space() *Score {
	intro := Part{Bars: 4, Chords: "Em | Em | C | D", Bass: "pulse", Pad: true, Drums: "pulse"}
	a := Part{Bars: 8, Chords: "Em | C | D | Bm | Em | C | Am D | B",
		Lead: "e4:4 g4:8 b4:8 e5:4. d5:8 | c5:4 b4:8 g4:8 e5:4 c5:4 | d5:4. a4:8 f#4:4 a4:4 | b4:2 f#4:4 b4:4 | " +
			"e5:4 g5:8 f#5:8 e5:4 b4:4 | c5:4 e5:8 g5:8 g5:4. e5:8 | a5:4 e5:8 g5:8 f#5:4 a5:4 | d#5:4 f#5:4 b5:2",
		Bass: "drive", Arp: "up", Drums: "drive", Crash: true, Fill: true}
	b := Part{Bars: 8, Chords: "C | D | Em | Em | C | D | B7 | B",
		Lead: "g5:2 e5:4 c5:4 | d5:4. e5:8 f#5:2 | g5:4. f#5:8 e5:4 b4:4 | e5:1 | " +
			"c5:4 e5:4 g5:4 c6:4 | b5:4. a5:8 f#5:4 d5:4 | d#5:4 f#5:4 b5:4 a5:4 | f#5:2 d#5:4 f#5:4",
		Bass: "octaves", Arp: "broken", Pad: true, Drums: "rock", Crash: true, Fill: true}
	c := Part{Bars: 8, Chords: "Am | Em | Am | Em | C | D | Em | B",
		Counter: "r:2 e5:4 a5:4 | g5:2. e5:4 | a5:4 c6:4 b5:4 a5:4 | g5:1 | " +
			"e5:4 g5:4 c6:4 e6:4 | d6:2 a5:2 | b5:2. g5:4 | f#5:2 d#5:2",
		Bass: "slow", Arp: "updown", Pad: true, Drums: "half", Crash: true}
	a2 := with(a, func(p *Part) { p.Arp, p.Pad = "broken", true })
	b2 := with(b, func(p *Part) { p.Drums, p.Arp = "drive", "updown" })
	a3 := with(a, func(p *Part) { p.Lift, p.Pad = 12, true })
	return &Score{Name: "stage1-space", BPM: 138, Lead: &patchBrass, Loop: true, LoopFrom: 1, Gain: -6,
		Parts: []Part{intro, a, b, a2, c, b2, a3}}
}

// stage1Base: D minor with a Phrygian E-flat, 126 bpm, syncopated bass, a pulse lead.
func stage1Base() *Score {
	intro := Part{Bars: 4, Chords: "Dm | Dm | Eb | Dm", Bass: "sync", Pad: true, Drums: "sparse"}
	a := Part{Bars: 8, Chords: "Dm | Eb | Dm | C | Bb | C | Dm | A",
		Lead: "d5:8. f5:16 a5:8 d5:8 r:8 c5:8 d5:4 | eb5:4. g5:8 bb5:4 g5:4 | a5:8. g5:16 f5:8 e5:8 f5:4 d5:4 | e5:4. g5:8 c5:2 | " +
			"d5:8. f5:16 bb5:8 a5:8 r:8 g5:8 f5:4 | e5:4. f5:8 g5:4 c5:4 | f5:4 e5:8 d5:8 a5:4 f5:4 | e5:2 c#5:2",
		Bass: "sync", Arp: "broken", Drums: "groove", Crash: true, Fill: true}
	b := Part{Bars: 8, Chords: "Bb | C | Am | Dm | Bb | C | A | A7",
		Lead: "f5:2 bb5:4 a5:4 | g5:4. e5:8 c5:2 | e5:4 a5:4 c6:4 b5:8 a5:8 | a5:1 | " +
			"d6:4. c6:8 bb5:4 f5:4 | g5:4. a5:8 bb5:4 c6:4 | c#6:2 a5:4 e5:4 | a5:2 g5:4 e5:4",
		Bass: "groove", Arp: "up", Pad: true, Drums: "rock", Fill: true}
	c := Part{Bars: 8, Chords: "Dm | Eb | Dm | Eb | Gm | A | Dm | A",
		Counter: "a5:1 | bb5:1 | a5:2 f5:2 | g5:1 | bb5:2 d6:2 | c#6:1 | d6:2 a5:2 | e5:2 c#5:2",
		Bass:    "pedal", Arp: "sparkle", Pad: true, Drums: "ride", Crash: true}
	a2 := with(a, func(p *Part) { p.Pad, p.Arp = true, "updown" })
	b2 := with(b, func(p *Part) { p.Drums = "drive" })
	return &Score{Name: "stage1-base", BPM: 126, Lead: &patchPulseLead, Loop: true, LoopFrom: 1, Gain: -6,
		Parts: []Part{intro, a, b, c, a2, b2}}
}

// stage1Boss: C minor, 152 bpm, galloping bass, short aggressive riffs.
func stage1Boss() *Score {
	intro := Part{Bars: 2, Chords: "Cm | G", Bass: "sixteen", Drums: "boss", Fill: true}
	a := Part{Bars: 8, Chords: "Cm | Cm | Ab | G | Cm | Cm | Fm | G",
		Lead: "c5:8 c5:8 g5:8 c5:8 eb5:8 c5:8 g5:8 f5:8 | eb5:4 d5:8 c5:8 g4:2 | ab4:8 c5:8 eb5:8 ab5:8 g5:8 eb5:8 c5:8 eb5:8 | d5:2 b4:2 | " +
			"c6:8 c6:8 g5:8 c6:8 eb6:8 c6:8 g5:8 f5:8 | eb5:4 f5:8 g5:8 c6:2 | ab5:4 g5:8 f5:8 c5:4 f5:4 | g5:4 f5:8 eb5:8 d5:4 b4:4",
		Bass: "gallop", Arp: "up", Drums: "boss", Crash: true, Fill: true}
	b := Part{Bars: 8, Chords: "Ab | Bb | G | Cm | Ab | Bb | G7 | G",
		Lead: "eb5:2 ab5:2 | bb5:2 f5:2 | g5:4. f5:8 d5:4 b4:4 | c5:1 | " +
			"c6:2 ab5:4 eb5:4 | d6:2 bb5:4 f5:4 | b5:4 d6:4 g6:4 f6:4 | d6:2 b5:2",
		Bass: "sixteen", Arp: "updown", Pad: true, Drums: "drive", Crash: true, Fill: true}
	c := Part{Bars: 8, Chords: "Cm | Db | Cm | Db | Cm | Db | Bdim | G",
		Counter: "c5:1 | db5:1 | c5:2 eb5:2 | db5:1 | g5:1 | ab5:1 | f5:2 d5:2 | b4:2 d5:2",
		Bass:    "pulse", Arp: "triplet", Pad: true, Drums: "pulse"}
	a2 := with(a, func(p *Part) { p.Pad = true })
	b2 := with(b, func(p *Part) { p.Drums = "boss" })
	a3 := with(a, func(p *Part) { p.Pad, p.Arp = true, "broken" })
	return &Score{Name: "stage1-boss", BPM: 152, Lead: &patchSyncLead, Loop: true, LoopFrom: 1, Gain: -7,
		Parts: []Part{intro, a, b, a2, c, b2, a3}}
}

// stage1Armada: B minor, 144 bpm, a march with snare rolls.
func stage1Armada() *Score {
	intro := Part{Bars: 4, Chords: "Bm | Bm | G | F#", Bass: "march", Pad: true, Drums: "march"}
	a := Part{Bars: 8, Chords: "Bm | G | A | F# | Bm | G | Em F# | Bm",
		Lead: "f#4:4. b4:8 d5:4 c#5:8 b4:8 | d5:4 b4:4 g4:2 | a4:4. c#5:8 e5:4 d5:8 c#5:8 | c#5:2 a#4:2 | " +
			"b4:4 d5:8 f#5:8 f#5:4 e5:8 d5:8 | d5:4 e5:8 d5:8 b4:2 | g4:4 b4:4 a#4:4 c#5:4 | b4:2. r:4",
		Bass: "march", Arp: "up", Drums: "march", Crash: true, Fill: true}
	b := Part{Bars: 8, Chords: "G | A | F#m | Bm | G | A | F# | F#",
		Lead: "d5:8 d5:8 d5:8 e5:8 d5:4 b4:4 | c#5:8 c#5:8 c#5:8 d5:8 e5:2 | f#5:4. e5:8 c#5:4 a4:4 | b4:1 | " +
			"g5:8 g5:8 g5:8 a5:8 g5:4 d5:4 | a5:8 a5:8 a5:8 b5:8 c#6:2 | a#5:4 c#6:4 f#5:4 a#5:4 | c#6:1",
		Bass: "drive", Arp: "broken", Pad: true, Drums: "drive", Crash: true, Fill: true}
	c := Part{Bars: 8, Chords: "Em | Bm | Em | Bm | G | A | F# | F#",
		Lead: "e5:2. f#5:4 | d5:1 | e5:4 g5:4 b5:4 a5:4 | f#5:1 | g5:2 b5:2 | c#6:2 e6:2 | a#5:1 | c#6:2 f#5:2",
		Bass: "slow", Arp: "updown", Pad: true, Drums: "half", Crash: true}
	a2 := with(a, func(p *Part) { p.Lift, p.Pad = 12, true })
	b2 := with(b, func(p *Part) { p.Arp = "updown" })
	return &Score{Name: "stage1-armada", BPM: 144, Lead: &patchBrass, Loop: true, LoopFrom: 1, Gain: -6,
		Parts: []Part{intro, a, b, c, a2, b2}}
}

// stage2Cave: G minor, 100 bpm, eerie bell melody, pad and slow arpeggios.
func stage2Cave() *Score {
	intro := Part{Bars: 4, Chords: "Gm | Gm | Eb | D", Bass: "pedal", Arp: "slow", Pad: true, Drums: "none"}
	a := Part{Bars: 8, Chords: "Gm | Eb | Cm | D | Gm | Eb | Ab | D",
		Lead: "d5:2 bb4:4 g4:4 | g4:4. bb4:8 eb5:2 | c5:2 eb5:4 g5:4 | f#5:1 | " +
			"g5:2 f5:4 d5:4 | eb5:4. d5:8 bb4:2 | c5:4 eb5:4 ab5:4 g5:4 | f#5:2 d5:2",
		Bass: "slow", Arp: "slow", Pad: true, Drums: "sparse", Crash: true}
	b := Part{Bars: 8, Chords: "Cm | Gm | Cm | D | Eb | Bb | Ab | D",
		Lead: "eb5:4 g5:4 c6:2 | bb5:2. a5:4 | g5:4 eb5:4 c5:2 | d5:2 f#5:2 | " +
			"g5:4. bb5:8 eb6:2 | d6:2 f5:2 | eb6:4 c6:4 ab5:4 c6:4 | a5:1",
		Bass: "sync", Arp: "broken", Pad: true, Drums: "half", Fill: true}
	c := Part{Bars: 8, Chords: "Gm | Gm | Ab | Ab | Gm | Gm | Ab | D",
		Bass: "pedal", Arp: "sparkle", Pad: true, Drums: "sparse"}
	a2 := with(a, func(p *Part) { p.Drums, p.Arp, p.Counter = "half", "broken", "" })
	b2 := with(b, func(p *Part) { p.Arp = "updown" })
	return &Score{Name: "stage2-cave", BPM: 100, Lead: &patchBell, Loop: true, LoopFrom: 1, Gain: -5,
		Parts: []Part{intro, a, b, c, a2, b2}}
}

// stage2Depths: F minor, 116 bpm, a heavy groove.
func stage2Depths() *Score {
	intro := Part{Bars: 2, Chords: "Fm | Fm", Bass: "groove", Drums: "groove"}
	a := Part{Bars: 8, Chords: "Fm | Fm | Db | C | Fm | Fm | Db | C",
		Lead: "f4:8 ab4:8 c5:8 f5:8 eb5:8 c5:8 ab4:4 | g4:4. ab4:8 f4:2 | f4:8 ab4:8 db5:8 f5:8 eb5:8 db5:8 ab4:4 | g4:2 e4:2 | " +
			"c5:4 f5:4 ab5:4 g5:8 f5:8 | eb5:4. f5:8 c5:2 | db5:4 f5:4 ab5:4 f5:4 | e5:2 g5:2",
		Bass: "groove", Arp: "broken", Drums: "groove", Crash: true, Fill: true}
	b := Part{Bars: 8, Chords: "Bbm | Fm | Bbm | C | Db | Eb | C | C7",
		Lead: "db5:2 f5:4 bb5:4 | ab5:2. f5:4 | bb5:4 ab5:8 f5:8 db5:4 f5:4 | e5:1 | " +
			"f5:4 ab5:4 db6:4 c6:4 | bb5:4. g5:8 eb5:2 | g5:4 e5:4 c5:4 e5:4 | g5:1",
		Bass: "drive", Arp: "up", Pad: true, Drums: "rock", Crash: true, Fill: true}
	c := Part{Bars: 8, Chords: "Fm | Gb | Fm | Gb | Fm | Gb | Eb | C",
		Counter: "c5:1 | db5:1 | c5:2 ab4:2 | bb4:1 | f5:1 | gb5:1 | g5:1 | e5:1",
		Bass:    "sync", Arp: "triplet", Pad: true, Drums: "half"}
	a2 := with(a, func(p *Part) { p.Lift, p.Pad = 12, true })
	b2 := with(b, func(p *Part) { p.Drums = "groove" })
	return &Score{Name: "stage2-depths", BPM: 116, Lead: &patchSyncLead, Loop: true, LoopFrom: 1, Gain: -6,
		Parts: []Part{intro, a, b, c, a2, b2}}
}

// stage2Boss: E minor with a Phrygian F, 160 bpm.
func stage2Boss() *Score {
	intro := Part{Bars: 2, Chords: "Em | F", Bass: "sixteen", Drums: "boss", Fill: true}
	a := Part{Bars: 8, Chords: "Em | F | Em | F | Em | F | D | B",
		Lead: "e5:8 e5:8 b4:8 e5:8 g5:8 e5:8 b4:8 e5:8 | f5:4 e5:8 f5:8 a5:2 | g5:8 g5:8 e5:8 g5:8 b5:8 g5:8 e5:8 g5:8 | a5:4 g5:8 f5:8 c5:2 | " +
			"b5:4 e6:4 d6:8 b5:8 g5:4 | a5:4 c6:4 f6:4 e6:8 c6:8 | d6:4 a5:4 f#5:4 d5:4 | d#5:2 f#5:2",
		Bass: "sixteen", Arp: "up", Drums: "boss", Crash: true, Fill: true}
	b := Part{Bars: 8, Chords: "C | D | Bm | Em | C | D | B | B7",
		Lead: "e5:2 g5:2 | f#5:2 a5:2 | b5:4. a5:8 f#5:4 d5:4 | e5:1 | " +
			"g5:4 c6:4 e6:4 c6:4 | d6:4 f#6:4 a6:4 f#6:4 | d#6:2 b5:2 | f#5:2 a5:2",
		Bass: "gallop", Arp: "updown", Pad: true, Drums: "drive", Crash: true, Fill: true}
	c := Part{Bars: 8, Chords: "Em | Em | F | F | Em | Em | F | B",
		Counter: "b4:1 | e5:1 | f5:1 | a5:1 | g5:1 | b5:1 | c6:1 | b5:2 d#5:2",
		Bass:    "pulse", Arp: "triplet", Pad: true, Drums: "march"}
	a2 := with(a, func(p *Part) { p.Pad = true })
	b2 := with(b, func(p *Part) { p.Drums = "boss" })
	a3 := with(a, func(p *Part) { p.Pad, p.Arp = true, "broken" })
	return &Score{Name: "stage2-boss", BPM: 160, Lead: &patchBrass, Loop: true, LoopFrom: 1, Gain: -7,
		Parts: []Part{intro, a, b, a2, c, b2, a3}}
}

// victory: a C major fanfare (Ab–Bb–C), 132 bpm, about 5 s.
func victory() *Score {
	p := Part{Bars: 3, Chords: "C | Ab Bb | C",
		Lead: "g4:16 g4:16 g4:8 c5:4 e5:4 g5:4 | eb5:4 ab5:4 f5:4 bb5:4 | c6:1",
		Bass: "pulse", Arp: "up", Pad: true, Drums: "rock", Crash: true}
	return &Score{Name: "victory", BPM: 132, Lead: &patchBrass, Gain: -6, Parts: []Part{p}}
}

// gameOver: a slow falling line in A minor, 96 bpm, about 9 s.
func gameOver() *Score {
	p := Part{Bars: 3, Chords: "Am | Dm E | Am",
		Lead: "e5:4 c5:4 a4:4 e4:4 | f4:2 g#4:2 | a4:1",
		Bass: "slow", Pad: true, Drums: "none"}
	return &Score{Name: "game-over", BPM: 96, Lead: &patchBell, Gain: -6, Parts: []Part{p}}
}
