package lobby

import (
	"errors"
	"strings"
)

// Refusals of a private server's AUTHENTICATE (docs/PROTOCOL.md §2.4.1, "Decision (private
// server)"): the server's answer texts, which a client reads to ask its player for the password.
const (
	NeedServerPassword  = "this server is private: send AUTHENTICATE ;<name>,<password>"
	WrongServerPassword = "wrong server password, closing connection"
)

// NeedLobbyPassword and WrongLobbyPassword are the refusals of JOIN_LOBBY for the private lobby
// code (§2.4.3, "Decision (private lobby)").
func NeedLobbyPassword(code string) string {
	return "lobby " + code + " is private: send JOIN_LOBBY <uuid>;" + code + ",,<password>"
}

func WrongLobbyPassword(code string) string { return "wrong password for lobby " + code }

// PasswordAsk is what a refusal asks of the player: a password for the server or for a lobby,
// given for the first time or again after a wrong one.
type PasswordAsk uint8

const (
	AskNone        PasswordAsk = iota // not a password refusal
	AskServer                         // the server is private: no password was sent
	AskServerAgain                    // the server's password was wrong (the server closed the connection)
	AskLobby                          // the lobby is private: no password was sent
	AskLobbyAgain                     // the lobby's password was wrong (the connection stays)
)

// PasswordRefusal reads err (a ResponseError of AUTHENTICATE or JOIN_LOBBY) as a password
// refusal: AskNone when it is another error.
func PasswordRefusal(err error) PasswordAsk {
	var re *ResponseError
	if !errors.As(err, &re) || re.Code != CodeWrongRequest {
		return AskNone
	}
	switch r := re.Reason; {
	case r == NeedServerPassword:
		return AskServer
	case r == WrongServerPassword:
		return AskServerAgain
	case strings.HasPrefix(r, "lobby ") && strings.HasSuffix(r, ",,<password>") && strings.Contains(r, " is private: send JOIN_LOBBY "):
		return AskLobby
	case strings.HasPrefix(r, "wrong password for lobby "):
		return AskLobbyAgain
	}
	return AskNone
}
