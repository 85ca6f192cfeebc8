package wire

// Argument lengths of PAUSE and RESULTS (bytes after the id).
const (
	PauseArgs = 1
	// ResultsEntryArgs is one player's entry of RESULTS; ResultsArgs(count) = 1 + 19·count.
	ResultsEntryArgs = 19
)

// Result flags (ResultEntry.Flags).
const (
	ResultOut  uint8 = 1 // bit0: out of lives at the end
	ResultLeft uint8 = 2 // bit1: left the game (or was dropped) before its end
	// ResultContinued: bit2: the player took at least one continue (an arcade score marked as
	// continued).
	ResultContinued uint8 = 4
	// ResultPractice: bit3: a practice game (it started past the stage's start,
	// docs/PROTOCOL.md §2.4.16, or with infinite lives, §2.4.17): not an arcade score.
	ResultPractice uint8 = 8
	// ResultFlagsMask: the defined bits; the others MUST be 0.
	ResultFlagsMask = ResultOut | ResultLeft | ResultContinued | ResultPractice
)

// ResultEntry is one player's figures in RESULTS: slot u8 (0..3), flags u8 (ResultOut,
// ResultLeft, ResultContinued), score u32 (points), kills u16 (enemies and bosses destroyed), deaths u8 (ships
// lost), beamHits u16 (charged beams that damaged something), shots u32 (player bullets, beams,
// lasers and missiles fired, the Force's and Bits' included), hits u32 (of those shots, the ones
// that damaged something). Accuracy is hits/shots.
type ResultEntry struct {
	Slot, Flags uint8
	Score       uint32
	Kills       uint16
	Deaths      uint8
	BeamHits    uint16
	Shots, Hits uint32
}

// Results is RESULTS (id 19, s→c, extension, reliable-capable; docs/PROTOCOL.md §3.4.8): count
// u8 (1..4), count × ResultEntry in slot order. The server sends it reliably right before
// GAME_END (victory or defeat).
type Results struct {
	Count   uint8
	Entries [MaxSlot + 1]ResultEntry
}

// Append appends the command (3 + 1 + 19·Count bytes).
func (c Results) Append(buf []byte) []byte {
	buf = appendFrame(buf, CmdResults, 1+ResultsEntryArgs*int(c.Count))
	buf = append(buf, c.Count)
	for i := 0; i < int(c.Count); i++ {
		e := &c.Entries[i]
		buf = append(buf, e.Slot, e.Flags)
		buf = le.AppendUint32(buf, e.Score)
		buf = le.AppendUint16(buf, e.Kills)
		buf = append(buf, e.Deaths)
		buf = le.AppendUint16(buf, e.BeamHits)
		buf = le.AppendUint32(buf, e.Shots)
		buf = le.AppendUint32(buf, e.Hits)
	}
	return buf
}

// Parse decodes the command at the start of b and returns its length. A count of 0 or above 4, a
// slot above 3, a slot not above the previous entry's, or an undefined flag bit is ErrBadValue.
func (c *Results) Parse(b []byte) (int, error) {
	a, n, err := frame(b, CmdResults)
	if err != nil {
		return 0, err
	}
	if len(a) < 1 || len(a) != 1+ResultsEntryArgs*int(a[0]) {
		return 0, ErrArgLen
	}
	count := a[0]
	if count == 0 || count > MaxSlot+1 {
		return 0, ErrBadValue
	}
	p := a[1:]
	for i := 0; i < int(count); i++ {
		e := &c.Entries[i]
		if p[0] > MaxSlot || p[1]&^ResultFlagsMask != 0 || (i > 0 && p[0] <= c.Entries[i-1].Slot) {
			return 0, ErrBadValue
		}
		e.Slot, e.Flags = p[0], p[1]
		e.Score = le.Uint32(p[2:])
		e.Kills = le.Uint16(p[6:])
		e.Deaths = p[8]
		e.BeamHits = le.Uint16(p[9:])
		e.Shots = le.Uint32(p[11:])
		e.Hits = le.Uint32(p[15:])
		p = p[ResultsEntryArgs:]
	}
	c.Count = count
	return n, nil
}
