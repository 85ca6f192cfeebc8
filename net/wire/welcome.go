package wire

// SpectatorSlot is WELCOME's slot for a spectator (docs/PROTOCOL.md §3.4.7, §5.10): it has no
// ship (entId 0) and sends no input.
const SpectatorSlot uint8 = 0xff

// Welcome is WELCOME (id 14, s→c, extension): the answer to HERE, sent
// reliable. Arguments: player entId u64, slot u8 (0..3, or SpectatorSlot for a
// spectator, whose entId is then 0), serverTick u32, tickRate u8 (60; 0 is
// invalid).
type Welcome struct {
	Entity   uint64
	Slot     uint8
	Tick     uint32
	TickRate uint8
}

// Append appends the 17-byte command.
func (c Welcome) Append(buf []byte) []byte {
	buf = appendFrame(buf, CmdWelcome, WelcomeArgs)
	buf = le.AppendUint64(buf, c.Entity)
	buf = append(buf, c.Slot)
	buf = le.AppendUint32(buf, c.Tick)
	return append(buf, c.TickRate)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Welcome) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdWelcome, WelcomeArgs)
	if err != nil {
		return 0, err
	}
	e, err := entityID(a)
	if err != nil {
		return 0, err
	}
	if (a[8] > MaxSlot && a[8] != SpectatorSlot) || a[13] == 0 {
		return 0, ErrBadValue
	}
	c.Entity, c.Slot, c.Tick, c.TickRate = e, a[8], le.Uint32(a[9:]), a[13]
	return n, nil
}
