package wire

// NonceSize is the size of a CHALLENGE nonce and ProofSize that of a RESPONSE proof (bytes).
const (
	NonceSize = 16
	ProofSize = 16
)

// Challenge is CHALLENGE (id 16, s→c, extension): the server got a datagram with this player's
// token from an address the session is not bound to, and asks the sender to prove that it holds
// the player's session key (docs/PROTOCOL.md §5.9). Arguments: nonce, 16 bytes, opaque to the
// client. It travels alone, in a datagram outside the session's sequence (seq, ack, ackBits and
// relAck 0).
type Challenge struct{ Nonce [NonceSize]byte }

// Append appends the 19-byte command.
func (c Challenge) Append(buf []byte) []byte {
	return append(appendFrame(buf, CmdChallenge, ChallengeArgs), c.Nonce[:]...)
}

// Parse decodes the command at the start of b and returns its length.
func (c *Challenge) Parse(b []byte) (int, error) {
	a, n, err := fixed(b, CmdChallenge, ChallengeArgs)
	if err != nil {
		return 0, err
	}
	c.Nonce = [NonceSize]byte(a)
	return n, nil
}
