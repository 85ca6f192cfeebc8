package lobby

import (
	"context"
	"fmt"
	"io"
	"net"
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
