package bot

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/rtype/rtype/lobby"
)

// RejoinInfo is what a player needs to take its slot back after a crash (docs/PROTOCOL.md
// §2.4.10): the lobby code, the slot and the session key of its START push. Its text form
// (String, ParseRejoin; rtype-bot -rejoin) is "CODE,SLOT,KEY" with the key in 32 hex digits.
type RejoinInfo struct {
	Code string   `json:"code"`
	Slot int      `json:"slot"`
	Key  [16]byte `json:"-"`
}

func (r RejoinInfo) String() string {
	return r.Code + "," + strconv.Itoa(r.Slot) + "," + hex.EncodeToString(r.Key[:])
}

// MarshalText writes the String form (the bot's JSON line carries it as one string).
func (r RejoinInfo) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// ParseRejoin reads "CODE,SLOT,KEY".
func ParseRejoin(s string) (RejoinInfo, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return RejoinInfo{}, fmt.Errorf("bot: rejoin %q: want CODE,SLOT,KEY", s)
	}
	var r RejoinInfo
	r.Code = strings.ToUpper(parts[0])
	slot, err := strconv.Atoi(parts[1])
	if !lobby.ValidCode(r.Code) || err != nil || slot < 0 || slot > 3 || !lobby.ValidSessionKey(parts[2]) {
		return RejoinInfo{}, fmt.Errorf("bot: rejoin %q: want CODE,SLOT,KEY (a 5-letter code, slot 0..3, 32 hex digits)", s)
	}
	r.Slot = slot
	_, _ = hex.Decode(r.Key[:], []byte(parts[2]))
	return r, nil
}
