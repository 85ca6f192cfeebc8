package lobbyserver

import (
	"crypto/subtle"
	"time"

	"github.com/rtype/rtype/lobby"
)

// Refusals of a private server's AUTHENTICATE (ServerConfig.Password; docs/PROTOCOL.md §2.4.1,
// "Decision (private server)").
const (
	NeedPassword  = lobby.NeedServerPassword
	WrongPassword = lobby.WrongServerPassword
)

// checkPassword answers an AUTHENTICATE of a private server whose password (the command's
// second argument, "" when none) is missing (500, the connection stays) or wrong (500, then
// closed: each guess costs a connection): false when cs was answered. A server without a
// password takes any (old clients send none).
func (c *Core) checkPassword(now time.Duration, cs *connState, given string) bool {
	want := c.cfg.Password
	switch {
	case want == "":
		return true
	case given == "":
		c.reply(cs, lobby.CodeWrongRequest, NeedPassword)
		return false
	case subtle.ConstantTimeCompare([]byte(given), []byte(want)) != 1:
		c.bursts.hit(c.log, now, "password "+cs.addr, "lobby authentication refused: wrong server password", "remote", cs.addr)
		c.reply(cs, lobby.CodeWrongRequest, WrongPassword)
		c.close(cs, "wrong password")
		return false
	}
	return true
}

// lobbyPassword reads the password of JOIN_LOBBY's third argument ("" when none): it must be
// one the protocol carries (lobby.ValidPassword); false when cs was answered 500.
func (c *Core) lobbyPassword(cs *connState, args []string) (string, bool) {
	if len(args) < 3 {
		return "", true
	}
	if !lobby.ValidPassword(args[2]) {
		c.reply(cs, lobby.CodeWrongRequest, "invalid lobby password: "+lobby.PasswordRule)
		return "", false
	}
	return args[2], true
}

// lobbyAdmits checks the password of a JOIN_LOBBY of lobby l (as a player or a spectator):
// false when cs was answered 500 (the connection stays: the lobby's code is not a secret
// worth a connection).
func (c *Core) lobbyAdmits(cs *connState, l *lobbyState, given string) bool {
	switch {
	case l.password == "":
		return true
	case given == "":
		c.reply(cs, lobby.CodeWrongRequest, lobby.NeedLobbyPassword(l.code))
		return false
	case subtle.ConstantTimeCompare([]byte(given), []byte(l.password)) != 1:
		c.reply(cs, lobby.CodeWrongRequest, lobby.WrongLobbyPassword(l.code))
		return false
	}
	return true
}
