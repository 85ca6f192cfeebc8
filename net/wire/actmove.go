package wire

// ActMove is ACT_MOVE (id 10, c→s): the held direction until the next
// ACT_MOVE (seed 004 §3.3.2). Arguments: direction u8 bitmask, bit0 up,
// bit1 down, bit2 left, bit3 right; bits 4..7 must be 0.
type ActMove struct{ Dir uint8 }

// Append appends the 4-byte command.
func (c ActMove) Append(buf []byte) []byte {
	return append(appendFrame(buf, CmdActMove, ActMoveArgs), c.Dir)
}

// Parse decodes the command at the start of b and returns its length.
func (c *ActMove) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdActMove, ActMoveArgs)
	if err != nil {
		return 0, err
	}
	if a[0]&^DirMask != 0 {
		return 0, ErrBadValue
	}
	c.Dir = a[0]
	return n, nil
}
