package wire

// DelComp is DEL_COMP (id 3, s→c): the entity lost a component
// (seed 004 §3.2.2). Arguments: entId u64, componentId u32 (4 bytes, as the
// seed's "componentId" piece; the value must be a known component id).
type DelComp struct {
	Entity    uint64
	Component uint32
}

// Append appends the 15-byte command.
func (c DelComp) Append(buf []byte) []byte {
	buf = appendFrame(buf, CmdDelComp, DelCompArgs)
	buf = le.AppendUint64(buf, c.Entity)
	return le.AppendUint32(buf, c.Component)
}

// Parse decodes the command at the start of b and returns its length.
func (c *DelComp) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdDelComp, DelCompArgs)
	if err != nil {
		return 0, err
	}
	e, err := entityID(a)
	if err != nil {
		return 0, err
	}
	comp := le.Uint32(a[8:])
	if comp > 0xffff || ComponentSize(uint16(comp)) == 0 || comp == uint32(CompMotion) || comp == uint32(CompSpawn) {
		return 0, ErrComponent
	}
	c.Entity, c.Component = e, comp
	return n, nil
}
