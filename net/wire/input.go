package wire

// Input is INPUT (id 13, c→s, extension): the client's latest inputs,
// newest first. Arguments: count u8 (1..16), then count × {tick u32,
// buttons u8 (game.Buttons, bits 6..7 zero)}. Entry i is Ticks[i], Buttons[i].
type Input struct {
	Count   uint8
	Ticks   [MaxInputs]uint32
	Buttons [MaxInputs]uint8
}

// Append appends the command (4 + 5*Count bytes). A Count above 16 is
// written as 16.
func (c Input) Append(buf []byte) []byte {
	cnt := int(c.Count)
	if cnt > MaxInputs {
		cnt = MaxInputs
	}
	buf = appendFrame(buf, CmdInput, 1+InputEntryArgs*cnt)
	buf = append(buf, byte(cnt))
	for i := 0; i < cnt; i++ {
		buf = le.AppendUint32(buf, c.Ticks[i])
		buf = append(buf, c.Buttons[i])
	}
	return buf
}

// Parse decodes the command at the start of b and returns its length.
func (c *Input) Parse(b []byte) (int, error) {
	a, n, err := frame(b, CmdInput)
	if err != nil {
		return 0, err
	}
	if len(a) < 1 {
		return 0, ErrArgLen
	}
	cnt := int(a[0])
	if cnt < 1 || cnt > MaxInputs {
		return 0, ErrBadValue
	}
	if len(a) != 1+InputEntryArgs*cnt {
		return 0, ErrArgLen
	}
	for i := 0; i < cnt; i++ {
		if a[1+InputEntryArgs*i+4]&^ButtonsMask != 0 {
			return 0, ErrBadValue
		}
	}
	c.Count = uint8(cnt)
	for i := 0; i < cnt; i++ {
		e := a[1+InputEntryArgs*i:]
		c.Ticks[i] = le.Uint32(e)
		c.Buttons[i] = e[4]
	}
	for i := cnt; i < MaxInputs; i++ {
		c.Ticks[i], c.Buttons[i] = 0, 0
	}
	return n, nil
}
