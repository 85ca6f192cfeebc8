package wire

// Music is MUSIC (id 4, s→c): switch to song Song (seed 004 §3.2.2).
// Arguments: songId u8.
type Music struct{ Song uint8 }

// Append appends the 4-byte command.
func (c Music) Append(buf []byte) []byte {
	return append(appendFrame(buf, CmdMusic, MusicArgs), c.Song)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Music) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdMusic, MusicArgs)
	if err != nil {
		return 0, err
	}
	c.Song = a[0]
	return n, nil
}
