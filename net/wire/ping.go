package wire

// Ping is PING (id 11, both ways): keep-alive and RTT probe. Arguments
// (extension): nonce u32; the server echoes a client's PING with the same
// nonce (the pong).
type Ping struct{ Nonce uint32 }

// Append appends the 7-byte command.
func (c Ping) Append(buf []byte) []byte {
	return le.AppendUint32(appendFrame(buf, CmdPing, PingArgs), c.Nonce)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Ping) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdPing, PingArgs)
	if err != nil {
		return 0, err
	}
	c.Nonce = le.Uint32(a)
	return n, nil
}
