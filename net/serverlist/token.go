package serverlist

import (
	"crypto/hmac"
	"crypto/sha256"
	"net/netip"
)

// The reachability exchange (docs/PROTOCOL.md §11.3): the list server sends a token datagram to
// the registered query port; the game server answers from that socket with an echo that proves it
// holds the registration's secret. Both are TokenSize bytes: the echo is never larger than what
// it answers.
const (
	// TokenLen is the length of the list server's random token.
	TokenLen = 16
	// MACLen is the length of the echo's proof: the first MACLen bytes of
	// HMAC-SHA256(secret, token).
	MACLen = 8
	// TokenSize is the size of the token datagram and of its echo.
	TokenSize = 5 + TokenLen
	// TypeToken and TypeEcho follow the connectionless prefix FF FF FF FF.
	TypeToken = 'r'
	TypeEcho  = 'R'
)

// AppendToken appends the token datagram FF FF FF FF 'r' token to b.
func AppendToken(b []byte, token [TokenLen]byte) []byte {
	b = append(b, 0xff, 0xff, 0xff, 0xff, TypeToken)
	return append(b, token[:]...)
}

// ParseToken reads a token datagram.
func ParseToken(b []byte) (token [TokenLen]byte, ok bool) {
	if len(b) != TokenSize || !connectionless(b) || b[4] != TypeToken {
		return token, false
	}
	copy(token[:], b[5:])
	return token, true
}

// AppendEcho appends the echo of token under secret: FF FF FF FF 'R', the token's first
// TokenLen-MACLen bytes, then the first MACLen bytes of HMAC-SHA256(secret, token).
func AppendEcho(b []byte, secret string, token [TokenLen]byte) []byte {
	b = append(b, 0xff, 0xff, 0xff, 0xff, TypeEcho)
	b = append(b, token[:TokenLen-MACLen]...)
	return append(b, tokenMAC(secret, token)[:MACLen]...)
}

// checkEcho reports whether b is the echo of token under secret.
func checkEcho(b []byte, secret string, token [TokenLen]byte) bool {
	if len(b) != TokenSize || !connectionless(b) || b[4] != TypeEcho {
		return false
	}
	want := AppendEcho(make([]byte, 0, TokenSize), secret, token)
	return hmac.Equal(b, want)
}

// echoPrefix is the token bytes an echo repeats (how the list server finds its registration).
func echoPrefix(b []byte) (p [TokenLen - MACLen]byte, ok bool) {
	if len(b) != TokenSize || !connectionless(b) || b[4] != TypeEcho {
		return p, false
	}
	copy(p[:], b[5:])
	return p, true
}

func tokenMAC(secret string, token [TokenLen]byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(token[:])
	return m.Sum(nil)
}

func connectionless(b []byte) bool {
	return len(b) >= 5 && b[0] == 0xff && b[1] == 0xff && b[2] == 0xff && b[3] == 0xff
}

// AnswerToken is the game server's answerer of token datagrams (net/server/connectionless.go):
// it takes a token datagram and replies with its echo under secret, the same size, from the
// socket it came in on; it leaves every other datagram (false).
func AnswerToken(secret string) func(b []byte, from netip.AddrPort, reply func([]byte, netip.AddrPort) error) bool {
	return func(b []byte, from netip.AddrPort, reply func([]byte, netip.AddrPort) error) bool {
		tok, ok := ParseToken(b)
		if !ok {
			return false
		}
		var out [TokenSize]byte
		reply(AppendEcho(out[:0], secret, tok), from)
		return true
	}
}
