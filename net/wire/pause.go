package wire

// Pause is PAUSE (id 18, both ways, extension, reliable-capable; docs/PROTOCOL.md §3.6.4, §5.11).
// Argument: paused u8, 0 or 1. From a client it asks the server to pause (1) or resume (0) the
// game, honoured only while the client is the game's only player; from the server it tells every
// client the game's pause state whenever it changes.
type Pause struct{ Paused uint8 }

// Append appends the 4-byte command.
func (c Pause) Append(buf []byte) []byte {
	return append(appendFrame(buf, CmdPause, PauseArgs), c.Paused)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Pause) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdPause, PauseArgs)
	if err != nil {
		return 0, err
	}
	if a[0] > 1 {
		return 0, ErrBadValue
	}
	c.Paused = a[0]
	return n, nil
}
