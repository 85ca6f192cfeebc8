package lobby

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Explain turns an error of Dial or of a Client method into a sentence for a
// player (docs: no "EOF" or "dial tcp ...: connection refused" on screen), and
// the raw error as detail for small print. server is the address the player
// chose, e.g. "127.0.0.1:4242". A nil err gives "".
func Explain(err error, server string) (msg, detail string) {
	if err == nil {
		return "", ""
	}
	detail = err.Error()
	var re *ResponseError
	var sc *ServerClosedError
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var udp interface{ GameUDPAddr() netip.AddrPort } // net/session.NoWelcomeError
	switch {
	case errors.As(err, &udp):
		port := strconv.Itoa(int(udp.GameUDPAddr().Port()))
		return "The game server at " + udp.GameUDPAddr().Addr().String() + " did not answer on UDP port " + port +
			": a firewall or NAT between you may block UDP (the server needs " + port + "/udp open, not only its lobby's TCP port).", detail
	case errors.As(err, &re):
		return sentence(re.Reason), detail
	case errors.As(err, &sc):
		return "The server closed the connection: " + sc.Reason + ".", detail
	case errors.Is(err, ErrClosed):
		return "The connection to the server is closed.", detail
	case errors.Is(err, ErrBadStage):
		return "The stage sent by the server at " + server + " is damaged; try again or pick another stage.", detail
	case errors.Is(err, ErrProtocol):
		return "The server at " + server + " does not speak the rtype protocol this game knows (is it another version?).", detail
	case errors.Is(err, ErrBadText):
		return sentence(TextReason(err)), detail
	case errors.As(err, &dnsErr):
		return "Cannot find the server " + server + ": check the address.", detail
	case errors.Is(err, syscall.ECONNREFUSED):
		return "The server at " + server + " is not answering. Is it running?", detail
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "The server at " + server + " cannot be reached from this network.", detail
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return "The server at " + server + " did not answer in time.", detail
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed):
		return "The server at " + server + " closed the connection.", detail
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return "Cannot connect to the server at " + server + ".", detail
	}
	return "Something went wrong with the server at " + server + ".", detail
}

// sentence capitalises a server reason and ends it with a full stop:
// "lobby VS7UQ is full (4 players)" -> "Lobby VS7UQ is full (4 players).".
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "The server refused the request."
	}
	if c := s[0]; c >= 'a' && c <= 'z' {
		s = string(c-'a'+'A') + s[1:]
	}
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s
}
