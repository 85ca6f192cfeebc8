package invite

import (
	"errors"
	"strings"
	"testing"
)

// TestParse: the links a player pastes or a desktop hands over open the lobby they name; anything
// else is refused with a reason, never half-read.
func TestParse(t *testing.T) {
	for _, tc := range []struct{ in, addr, code string }{
		{"rtype://play.example.org:4242/ABCDE", "play.example.org:4242", "ABCDE"},
		{"rtype://127.0.0.1:4242/abcde", "127.0.0.1:4242", "ABCDE"},  // typed in lower case
		{"RTYPE://127.0.0.1:4242/ABCDE/", "127.0.0.1:4242", "ABCDE"}, // a trailing slash, the scheme in capitals
		{"rtype://[::1]:5000/ABCDE", "[::1]:5000", "ABCDE"},
	} {
		addr, code, err := Parse(tc.in)
		if err != nil || addr != tc.addr || code != tc.code {
			t.Errorf("Parse(%q) = %q, %q, %v; want %q, %q", tc.in, addr, code, err, tc.addr, tc.code)
		}
	}
	for _, in := range []string{
		"", "ABCDE", "http://h:4242/ABCDE", "rtype:h:4242/ABCDE", "rtype://h/ABCDE", "rtype://h:0/ABCDE",
		"rtype://h:99999/ABCDE", "rtype://:4242/ABCDE", "rtype://h:4242/", "rtype://h:4242/ABCD",
		"rtype://h:4242/ABCDEF", "rtype://h:4242/AB/CDE", "rtype://u@h:4242/ABCDE", "rtype://h:4242/ABCDE?x=1",
		"rtype://h:4242/ABCDE#x", "rtype://h:4242/AB%20E", "rtype://" + strings.Repeat("a", MaxLen) + ":1/ABCDE",
	} {
		if addr, code, err := Parse(in); !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q) = %q, %q, %v; want ErrInvalid", in, addr, code, err)
		}
	}
}

// TestLinkRoundTrip: the link the lobby screen shows opens that lobby (Parse of Link).
func TestLinkRoundTrip(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:4242", "play.example.org:4242", "[2001:db8::1]:4242"} {
		l := Link(addr, "QX7PM")
		if !Is(l) {
			t.Errorf("Is(%q) = false", l)
		}
		a, c, err := Parse(l)
		if err != nil || a != addr || c != "QX7PM" {
			t.Errorf("Parse(Link(%q)) = %q, %q, %v", addr, a, c, err)
		}
	}
	if Is("-server") || Is("rtyp") || Is("replay.rtr") {
		t.Error("Is takes a flag or a file for a link")
	}
}
