package wire

// GetEnt is GET_ENT (id 8, c→s): ask for the full state of an entity
// (seed 004 §3.3.2). Arguments: entId u64.
type GetEnt struct{ Entity uint64 }

// Append appends the 11-byte command.
func (c GetEnt) Append(buf []byte) []byte {
	buf = appendFrame(buf, CmdGetEnt, GetEntArgs)
	return le.AppendUint64(buf, c.Entity)
}

// Parse decodes the command at the start of b and returns its length.
func (c *GetEnt) Parse(b []byte) (n int, err error) {
	c.Entity, n, err = parseEntityCmd(b, CmdGetEnt)
	return n, err
}
