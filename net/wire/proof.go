package wire

import (
	"crypto/hmac"
	"crypto/sha256"
	"hash"
)

// KeySize is the size in bytes of a player's session key, handed out with the token by the
// lobby's START push (docs/PROTOCOL.md §2.5.1) and used only to answer CHALLENGE.
const KeySize = 16

// Prover computes RESPONSE proofs under one session key (docs/PROTOCOL.md §5.9):
//
//	proof = first 16 bytes of HMAC-SHA256(key, token u32 little-endian || nonce[16])
//
// The server checks with the same function what the client computed. It allocates only in
// NewProver; not safe for concurrent use.
type Prover struct {
	mac hash.Hash
	in  [4 + NonceSize]byte
	sum [sha256.Size]byte
}

// NewProver returns a Prover for key.
func NewProver(key [KeySize]byte) *Prover {
	return &Prover{mac: hmac.New(sha256.New, key[:])}
}

// Proof returns the proof of token and nonce.
func (p *Prover) Proof(token uint32, nonce *[NonceSize]byte) [ProofSize]byte {
	le.PutUint32(p.in[:], token)
	copy(p.in[4:], nonce[:])
	p.mac.Reset()
	p.mac.Write(p.in[:])
	sum := p.mac.Sum(p.sum[:0])
	return [ProofSize]byte(sum)
}

// Check reports whether proof is the proof of token and nonce, in constant time.
func (p *Prover) Check(token uint32, nonce *[NonceSize]byte, proof *[ProofSize]byte) bool {
	want := p.Proof(token, nonce)
	return hmac.Equal(want[:], proof[:])
}
