package lobby

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/google/uuid"
)

// RESUME (docs/PROTOCOL.md §2.4.20).
const CmdResume = "RESUME"

// ResumeProofLen is the length of RESUME's proof: 32 lowercase hex digits (16 bytes).
const ResumeProofLen = 32

// resumeLabel starts the MAC input of a resume proof (domain separation from REJOIN's proof
// and the UDP CHALLENGE proof, made with the same key).
const resumeLabel = "rtype resume v1"

// ResumeProof is the proof a player sends with RESUME (docs/PROTOCOL.md §2.4.20): the first 16
// bytes of HMAC-SHA256(key, "rtype resume v1" || code || slot u8 || user UUID's 16 bytes), in
// lowercase hex. key is the session key of the START push that gave the slot (its latest
// START: a rejoin changes it); user is the UUID AUTHENTICATE gave the resuming connection.
func ResumeProof(key [16]byte, code string, slot int, user uuid.UUID) string {
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte(resumeLabel))
	m.Write([]byte(code))
	m.Write([]byte{byte(slot)})
	m.Write(user[:])
	return hex.EncodeToString(m.Sum(nil)[:ResumeProofLen/2])
}

// NoLobbyReason starts the 500 reason of JOIN_LOBBY, REJOIN and RESUME for a code the server
// does not know; a lobby restarted a moment ago answers it to a RESUME until its hosts have
// handed the game back, so resuming clients ask again (IsNoLobby).
const NoLobbyReason = "no lobby with code "

// IsNoLobby reports whether err is the server's refusal of an unknown lobby code.
func IsNoLobby(err error) bool {
	var re *ResponseError
	return errors.As(err, &re) && strings.HasPrefix(re.Reason, NoLobbyReason)
}
