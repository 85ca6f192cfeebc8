package wire

// Response is RESPONSE (id 17, c→s, extension): the answer to a CHALLENGE. Arguments: the
// challenge's nonce (16 bytes, echoed) and proof, 16 bytes: Prover.Proof of the token and the
// nonce under the player's session key (docs/PROTOCOL.md §5.9).
type Response struct {
	Nonce [NonceSize]byte
	Proof [ProofSize]byte
}

// Append appends the 35-byte command.
func (c Response) Append(buf []byte) []byte {
	buf = append(appendFrame(buf, CmdResponse, ResponseArgs), c.Nonce[:]...)
	return append(buf, c.Proof[:]...)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Response) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdResponse, ResponseArgs)
	if err != nil {
		return 0, err
	}
	c.Nonce = [NonceSize]byte(a[:NonceSize])
	c.Proof = [ProofSize]byte(a[NonceSize:])
	return n, nil
}
