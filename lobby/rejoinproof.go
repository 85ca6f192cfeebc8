package lobby

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"

	"github.com/google/uuid"
)

// REJOIN and the SPECTATE push (docs/PROTOCOL.md §2.4.10, §2.5.7).
const (
	CmdRejoin    = "REJOIN"
	PushSpectate = "SPECTATE"
)

// RejoinProofLen is the length of REJOIN's proof: 32 lowercase hex digits (16 bytes).
const RejoinProofLen = 32

// rejoinLabel starts the MAC input of a rejoin proof (domain separation from the UDP
// CHALLENGE proof, which uses the same key).
const rejoinLabel = "rtype rejoin v1"

// RejoinProof is the proof a rejoining player sends with REJOIN (docs/PROTOCOL.md §2.4.10): the
// first 16 bytes of HMAC-SHA256(key, "rtype rejoin v1" || code || slot u8 || user UUID's 16
// bytes), in lowercase hex. key is the session key of the START push that gave the slot; user
// is the UUID AUTHENTICATE gave the rejoining connection, so a proof seen on the wire cannot be
// replayed by another connection, and the key itself never travels again.
func RejoinProof(key [16]byte, code string, slot int, user uuid.UUID) string {
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte(rejoinLabel))
	m.Write([]byte(code))
	m.Write([]byte{byte(slot)})
	m.Write(user[:])
	return hex.EncodeToString(m.Sum(nil)[:RejoinProofLen/2])
}
