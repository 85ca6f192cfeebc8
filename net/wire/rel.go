package wire

// Rel is REL (id 12, both ways, extension): the NEXT command of the datagram
// is reliable-ordered with id ID (1..65535, wraps skipping 0).
type Rel struct{ ID uint16 }

// Append appends the 5-byte command.
func (c Rel) Append(buf []byte) []byte {
	return le.AppendUint16(appendFrame(buf, CmdRel, RelArgs), c.ID)
}

// Parse decodes the command at the start of b and returns its length. It
// cannot check what follows; Validate does.
func (c *Rel) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdRel, RelArgs)
	if err != nil {
		return 0, err
	}
	id := le.Uint16(a)
	if id == 0 {
		return 0, ErrBadValue
	}
	c.ID = id
	return n, nil
}
