package wire

// GameEnd is GAME_END (id 5, s→c): the game is over. Arguments (extension):
// result u8 = 0 defeat, 1 victory, 2 aborted; other values are invalid.
type GameEnd struct{ Result uint8 }

// Append appends the 4-byte command.
func (c GameEnd) Append(buf []byte) []byte {
	return append(appendFrame(buf, CmdGameEnd, GameEndArgs), c.Result)
}

// Parse decodes the command at the start of b and returns its length.
func (c *GameEnd) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdGameEnd, GameEndArgs)
	if err != nil {
		return 0, err
	}
	if a[0] > ResultAborted {
		return 0, ErrBadValue
	}
	c.Result = a[0]
	return n, nil
}
