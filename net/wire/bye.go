package wire

// Bye is BYE (id 15, both ways, extension): the peer is leaving. Arguments:
// reason u8 = 0 left, 1 timeout, 2 server shutdown, 3 kicked.
type Bye struct{ Reason uint8 }

// Append appends the 4-byte command.
func (c Bye) Append(buf []byte) []byte {
	return append(appendFrame(buf, CmdBye, ByeArgs), c.Reason)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Bye) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdBye, ByeArgs)
	if err != nil {
		return 0, err
	}
	if a[0] > ByeKicked {
		return 0, ErrBadValue
	}
	c.Reason = a[0]
	return n, nil
}
