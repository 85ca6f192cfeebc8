package lobbyserver

import (
	"crypto/subtle"
	"time"

	"github.com/rtype/rtype/lobby"
)

// Refusals of a private server's AUTHENTICATE (ServerConfig.Password; docs/PROTOCOL.md §2.4.1,
// "Decision (private server)").
const (
	NeedPassword  = "this server is private: send AUTHENTICATE ;<name>,<password>"
	WrongPassword = "wrong server password, closing connection"
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
