package wire

// Here is HERE (id 7, c→s): the client announces itself (seed 004 §3.3.2).
// Arguments: uuid, 16 raw bytes in RFC 4122 order (the lobby's user UUID);
// the nil UUID is invalid.
type Here struct{ UUID [16]byte }

// Append appends the 19-byte command.
func (c Here) Append(buf []byte) []byte {
	return append(appendFrame(buf, CmdHere, HereArgs), c.UUID[:]...)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Here) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdHere, HereArgs)
	if err != nil {
		return 0, err
	}
	var zero [16]byte
	if [16]byte(a) == zero {
		return 0, ErrBadValue
	}
	c.UUID = [16]byte(a)
	return n, nil
}
