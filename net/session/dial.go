package session

import (
	"fmt"
	"net/netip"
	"strconv"
)

// bindFor is the local address Dial binds for a game instance at server: the server's address
// family (an IPv4 socket cannot reach [::1]), loopback for a loopback server (tests bind
// loopback only), every interface otherwise.
func bindFor(server netip.AddrPort) string {
	switch a := server.Addr(); {
	case a.Is4() && a.IsLoopback():
		return "127.0.0.1:0"
	case a.Is4():
		return "0.0.0.0:0"
	case a.IsLoopback():
		return "[::1]:0"
	}
	return "[::]:0"
}

// NoWelcomeError is Dial's error when the game instance never answered HERE with WELCOME
// (errors.Is(err, ErrNoWelcome) holds): most often its UDP port is not reachable, while the
// lobby's TCP port was.
type NoWelcomeError struct {
	Server  netip.AddrPort // the game instance's UDP address that HERE went to
	SendErr error          // the first error sending HERE, if any (e.g. no route for that family)
}

func (e *NoWelcomeError) Error() string {
	port := strconv.Itoa(int(e.Server.Port()))
	s := fmt.Sprintf("session: no WELCOME from the game instance at udp %v within %v: is UDP port %s blocked by a firewall or a NAT (Docker needs -p %s:%s/udp), or does the server advertise the wrong port (-public-udp)?",
		e.Server, WelcomeTimeout, port, port, port)
	if e.SendErr != nil {
		s += " Sending HERE failed: " + e.SendErr.Error()
	}
	return s
}

// Is makes errors.Is(err, ErrNoWelcome) true.
func (e *NoWelcomeError) Is(target error) bool { return target == ErrNoWelcome }

// Unwrap is the send error.
func (e *NoWelcomeError) Unwrap() error { return e.SendErr }

// GameUDPAddr is the game instance's UDP address (lobby.Explain names it to the player).
func (e *NoWelcomeError) GameUDPAddr() netip.AddrPort { return e.Server }
