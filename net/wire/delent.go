package wire

// DelEnt is DEL_ENT (id 2, s→c): the entity no longer exists
// (seed 004 §3.2.2). Arguments: entId u64 (8 bytes).
type DelEnt struct{ Entity uint64 }

// Append appends the 11-byte command.
func (c DelEnt) Append(buf []byte) []byte {
	buf = appendFrame(buf, CmdDelEnt, DelEntArgs)
	return le.AppendUint64(buf, c.Entity)
}

// Parse decodes the command at the start of b and returns its length.
func (c *DelEnt) Parse(b []byte) (n int, err error) {
	c.Entity, n, err = parseEntityCmd(b, CmdDelEnt)
	return n, err
}
