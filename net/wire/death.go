package wire

// Death is DEATH (id 6, s→c): a player's ship died. Arguments (extension):
// entId u64 (the ship), slot u8 (0..3), livesLeft u8.
type Death struct {
	Entity uint64
	Slot   uint8
	Lives  uint8
}

// Append appends the 13-byte command.
func (c Death) Append(buf []byte) []byte {
	buf = appendFrame(buf, CmdDeath, DeathArgs)
	buf = le.AppendUint64(buf, c.Entity)
	return append(buf, c.Slot, c.Lives)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Death) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdDeath, DeathArgs)
	if err != nil {
		return 0, err
	}
	e, err := entityID(a)
	if err != nil {
		return 0, err
	}
	if a[8] > MaxSlot {
		return 0, ErrBadValue
	}
	c.Entity, c.Slot, c.Lives = e, a[8], a[9]
	return n, nil
}
