// Package invite is the client's invite link: rtype://host:port/CODE names a lobby server (its
// TCP lobby address, as players dial it) and a lobby code on it. The lobby screen shows the link
// of the lobby joined (Link); `rtype-client rtype://host:port/CODE`, the Linux desktop file's URL
// handler (deploy/linux/rtype.desktop), opens the client straight into that lobby (Parse).
package invite

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/rtype/rtype/lobby/joincode"
)

// Scheme is the invite link's URL scheme (x-scheme-handler/rtype).
const Scheme = "rtype"

// MaxLen bounds an invite link: a host name of at most 253 bytes, a port, a code and the
// scheme's punctuation, with room to spare. A longer argument is refused unread.
const MaxLen = 320

// Link is the invite link of lobby code on the lobby server addr (host:port; an IPv6 host in
// brackets, as net.JoinHostPort writes it).
func Link(addr, code string) string {
	return Scheme + "://" + addr + "/" + code
}

// Is reports whether s looks like an invite link (starts with rtype:, any case), so that a
// command line can tell it from a mistyped flag or file.
func Is(s string) bool {
	return len(s) > len(Scheme) && strings.EqualFold(s[:len(Scheme)+1], Scheme+":")
}

// ErrInvalid is wrapped by every error of Parse.
var ErrInvalid = errors.New("not an invite link")

// Parse returns the lobby server address (host:port) and the lobby code (upper case) of an
// invite link rtype://host:port/CODE. The port is required; a trailing slash is accepted; a
// user, query or fragment is refused (a link is only an address and a code).
func Parse(s string) (addr, code string, err error) {
	bad := func(why string) (string, string, error) {
		return "", "", fmt.Errorf("%w: %q: %s (want %s://host:port/CODE)", ErrInvalid, trim(s), why, Scheme)
	}
	if len(s) > MaxLen {
		return bad(fmt.Sprintf("longer than %d bytes", MaxLen))
	}
	u, err := url.Parse(s)
	if err != nil {
		return bad("not a URL")
	}
	if !strings.EqualFold(u.Scheme, Scheme) {
		return bad("the scheme is not " + Scheme)
	}
	if u.Opaque != "" || u.Host == "" {
		return bad("no host:port after " + Scheme + "://")
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return bad("only a host, a port and a code")
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil || host == "" {
		return bad("the server is not host:port")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return bad("the port is not 1..65535")
	}
	code = strings.ToUpper(strings.Trim(u.Path, "/"))
	if !joincode.Valid(code) {
		return bad(fmt.Sprintf("the lobby code is not %d letters or digits", joincode.Len))
	}
	return net.JoinHostPort(host, port), code, nil
}

// trim shortens s for a message.
func trim(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
