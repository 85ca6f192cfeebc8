package lobby

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"testing"
)

// TestExplain: errors on screen are in player words (issue 13), the raw error as detail.
func TestExplain(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	_, refused := Dial(context.Background(), closed)
	if refused == nil {
		t.Fatal("dial to a closed port succeeded")
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{refused, "The server at " + closed + " is not answering. Is it running?"},
		{&ResponseError{Code: 500, Reason: "lobby VS7UQ is full (4 players)"}, "Lobby VS7UQ is full (4 players)."},
		{fmt.Errorf("authenticate: %w", &ResponseError{Code: 500, Reason: "only the lobby owner (alice) may start the game"}),
			"Only the lobby owner (alice) may start the game."},
		{&ServerClosedError{Reason: "too many connections from 10.0.0.1 (max 16), closing connection"},
			"The server closed the connection: too many connections from 10.0.0.1 (max 16), closing connection."},
		{io.EOF, "The server at " + closed + " closed the connection."},
		{&net.DNSError{Err: "no such host", Name: "nosuch.example", IsNotFound: true}, "Cannot find the server " + closed + ": check the address."},
		{fmt.Errorf("%w: bad START push", ErrProtocol), "The server at " + closed + " does not speak the rtype protocol this game knows (is it another version?)."},
		{context.DeadlineExceeded, "The server at " + closed + " did not answer in time."},
		{fmt.Errorf("game: %w", noWelcome{netip.MustParseAddrPort("203.0.113.7:4243")}),
			"The game server at 203.0.113.7 did not answer on UDP port 4243: a firewall or NAT between you may block UDP (the server needs 4243/udp open, not only its lobby's TCP port)."},
	} {
		msg, detail := Explain(tc.err, closed)
		if msg != tc.want || detail != tc.err.Error() {
			t.Errorf("Explain(%v) = %q, %q; want %q", tc.err, msg, detail, tc.want)
		}
		for _, raw := range []string{"EOF", "dial tcp", "server answered", "500"} {
			if strings.Contains(msg, raw) {
				t.Errorf("Explain(%v) = %q shows %q", tc.err, msg, raw)
			}
		}
	}
}

// noWelcome stands for net/session.NoWelcomeError (which imports this package's users, not it).
type noWelcome struct{ at netip.AddrPort }

func (e noWelcome) Error() string               { return "session: no WELCOME from udp " + e.at.String() }
func (e noWelcome) GameUDPAddr() netip.AddrPort { return e.at }
