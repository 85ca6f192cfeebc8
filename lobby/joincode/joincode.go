// Package joincode is the form of a lobby's join code (docs/PROTOCOL.md §2.4.3), with no
// dependency: the client's flag parsing (invite links) reads codes before the display, the lobby
// client and the network exist (game/client/displaycheck runs it before Ebitengine's init).
package joincode

import "strings"

// Alphabet holds the 32 characters of lobby join codes: A-Z and 2-9 without the ambiguous 0, O,
// 1 and I (decision, docs/PROTOCOL.md §2.4.3).
const Alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// Len is the length of a lobby join code.
const Len = 5

// Valid reports whether s is a canonical (upper-case) join code.
func Valid(s string) bool {
	if len(s) != Len {
		return false
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(Alphabet, s[i]) < 0 {
			return false
		}
	}
	return true
}
