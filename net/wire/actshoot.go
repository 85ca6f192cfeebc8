package wire

// ActShoot is ACT_SHOOT (id 9, c→s): one normal shot (seed 004 §3.3.2,
// legacy input). No arguments.
type ActShoot struct{}

// Append appends the 3-byte command.
func (c ActShoot) Append(buf []byte) []byte {
	return appendFrame(buf, CmdActShoot, ActShootArgs)
}

// Parse decodes the command at the start of b and returns its length.
func (c *ActShoot) Parse(b []byte) (int, error) {
	_, n, err := fixed(b, CmdActShoot, ActShootArgs)
	if err != nil {
		return 0, err
	}
	return n, nil
}
