package lobby

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/game/rules"
)

const (
	tUser = "0b5c1f9e-6f0a-4c5e-9f43-2d3b8f1f2a77"
	tSrv  = "7d444840-9dc0-11d1-b245-5ffdce74fad2"
)

func TestParseCommand(t *testing.T) {
	tests := []struct {
		line string
		want Command
	}{
		{"AUTHENTICATE ;alice\r\n", Command{Name: "AUTHENTICATE", Args: []string{"alice"}}},
		{"AUTHENTICATE ;\r\n", Command{Name: "AUTHENTICATE"}},
		{"GET_LOBBIES " + tUser + ";\r\n", Command{Name: "GET_LOBBIES", Header: tUser}},
		{"JOIN_LOBBY " + tUser + ";K7QF2\r\n", Command{Name: "JOIN_LOBBY", Header: tUser, Args: []string{"K7QF2"}}},
		{"START " + tSrv + ";4243,3735928559\r\n", Command{Name: "START", Header: tSrv, Args: []string{"4243", "3735928559"}}},
		{"MEMBERS " + tSrv + ";K7QF2,alice,bob\r\n", Command{Name: "MEMBERS", Header: tSrv, Args: []string{"K7QF2", "alice", "bob"}}},
		// Empty arguments are kept; ';' and spaces are allowed inside arguments.
		{"X h;,a,,b \r\n", Command{Name: "X", Header: "h", Args: []string{"", "a", "", "b "}}},
		{"X2_Y ;a;b\r\n", Command{Name: "X2_Y", Args: []string{"a;b"}}},
	}
	for _, tt := range tests {
		got, err := ParseCommand([]byte(tt.line))
		if err != nil {
			t.Errorf("ParseCommand(%q): %v", tt.line, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseCommand(%q) = %#v, want %#v", tt.line, got, tt.want)
		}
		back, err := AppendCommand(nil, got)
		if err != nil || string(back) != tt.line {
			t.Errorf("AppendCommand(ParseCommand(%q)) = %q, %v", tt.line, back, err)
		}
	}
}

func TestParseCommandErrors(t *testing.T) {
	tests := []struct{ line, reason string }{
		{"", "CRLF"},
		{"GET_LOBBIES x;", "CRLF"},
		{"GET_LOBBIES x;\n", "bare LF"},
		{"GET_LOBBIES x;\r", "CRLF"},
		{"\r\n", "empty"},
		{"GET_LOBBIES\r\n", "space"},
		{"get_lobbies x;\r\n", "capital"},
		{"1GET x;\r\n", "capital"},
		{" GET x;\r\n", "capital"},
		{"GET x\r\n", "';'"},
		{"GET a b;\r\n", "space inside the header"},
		{"GET x;a\rb\r\n", "printable"},
		{"GET x;a\nb\r\n", "printable"},
		{"GET x;caf\xc3\xa9\r\n", "printable"},
		{"GET x;\x00\r\n", "printable"},
	}
	for _, tt := range tests {
		_, err := ParseCommand([]byte(tt.line))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ParseCommand(%q) error = %v, want *SyntaxError", tt.line, err)
			continue
		}
		if !strings.Contains(se.Reason, tt.reason) {
			t.Errorf("ParseCommand(%q) reason %q does not mention %q", tt.line, se.Reason, tt.reason)
		}
	}
	long := "GET_LOBBIES " + tUser + ";" + strings.Repeat("a", MaxLine) + "\r\n"
	if _, err := ParseCommand([]byte(long)); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("ParseCommand(%d bytes) error = %v, want ErrLineTooLong", len(long), err)
	}
	// Exactly MaxLine bytes including CRLF is accepted.
	prefix := "X ;"
	exact := prefix + strings.Repeat("a", MaxLine-len(prefix)-2) + "\r\n"
	if _, err := ParseCommand([]byte(exact)); err != nil {
		t.Errorf("ParseCommand(%d bytes): %v", len(exact), err)
	}
	if _, err := ParseCommand([]byte(exact[:len(exact)-2] + "a\r\n")); !errors.Is(err, ErrLineTooLong) {
		t.Errorf("ParseCommand(%d bytes) error = %v, want ErrLineTooLong", MaxLine+1, err)
	}
}

func TestAppendCommandRefusesInjection(t *testing.T) {
	bad := []Command{
		{Name: "", Header: tUser},
		{Name: "get", Header: tUser},
		{Name: "GET LOBBIES", Header: tUser},
		{Name: "GET", Header: "a b"},
		{Name: "GET", Header: "a;b"},
		{Name: "GET", Header: "a\r\n"},
		{Name: "AUTHENTICATE", Args: []string{"bob\r\nLEAVE x;"}},
		{Name: "AUTHENTICATE", Args: []string{"a,b"}},
		{Name: "AUTHENTICATE", Args: []string{strings.Repeat("a", MaxLine)}},
	}
	for _, c := range bad {
		buf := []byte("keep")
		out, err := AppendCommand(buf, c)
		if err == nil {
			t.Errorf("AppendCommand(%#v) = %q, want an error", c, out)
		}
		if string(out) != "keep" {
			t.Errorf("AppendCommand(%#v) modified buf on error: %q", c, out)
		}
	}
}

func TestParseResponse(t *testing.T) {
	tests := []struct {
		line string
		want Response
	}{
		{"200 " + tSrv + " " + tUser + "\r\n", Response{200, tSrv, tUser}},
		{"200 " + tSrv + " \r\n", Response{200, tSrv, ""}},
		{"500 " + tSrv + " unknown command FOO\r\n", Response{500, tSrv, "unknown command FOO"}},
		{"401 " + tSrv + " unknown user uuid\r\n", Response{401, tSrv, "unknown user uuid"}},
		{"200 " + tSrv + " (K7QF2,2,false);(ABCD3,1,true);\r\n", Response{200, tSrv, "(K7QF2,2,false);(ABCD3,1,true);"}},
	}
	for _, tt := range tests {
		got, err := ParseResponse([]byte(tt.line))
		if err != nil || got != tt.want {
			t.Errorf("ParseResponse(%q) = %#v, %v; want %#v", tt.line, got, err, tt.want)
			continue
		}
		back, err := AppendResponse(nil, got)
		if err != nil || string(back) != tt.line {
			t.Errorf("AppendResponse(ParseResponse(%q)) = %q, %v", tt.line, back, err)
		}
	}
	for _, line := range []string{
		"200 " + tSrv + "\r\n", // no SP before the (empty) body
		"200  body\r\n",        // empty header
		"20 x y\r\n",
		"2000 x y\r\n",
		"099 x y\r\n",
		"200 x y\n",
		"200 x y",
		"OK x y\r\n",
		"200 x y\x7f\r\n",
	} {
		if r, err := ParseResponse([]byte(line)); err == nil {
			t.Errorf("ParseResponse(%q) = %#v, want an error", line, r)
		}
	}
	for _, r := range []Response{{99, tSrv, ""}, {1000, tSrv, ""}, {200, "", "x"}, {200, "a b", "x"}, {200, tSrv, "a\r\nb"}} {
		if out, err := AppendResponse(nil, r); err == nil {
			t.Errorf("AppendResponse(%#v) = %q, want an error", r, out)
		}
	}
}

func TestIsResponse(t *testing.T) {
	for line, want := range map[string]bool{
		"200 x y\r\n":  true,
		"500 x y\r\n":  true,
		"START x;\r\n": false,
		"20":           false,
		"2a0 x\r\n":    false,
	} {
		if got := IsResponse([]byte(line)); got != want {
			t.Errorf("IsResponse(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestLobbiesBody(t *testing.T) {
	ls := []LobbyInfo{{"K7QF2", 2, false, "stage1", rules.DifficultyNormal}, {"ABCD3", 4, true, "short", rules.DifficultyHard}}
	body := string(AppendLobbies(nil, ls))
	if want := "(K7QF2,2,false,stage1,normal);(ABCD3,4,true,short,hard);"; body != want {
		t.Fatalf("AppendLobbies = %q, want %q", body, want)
	}
	got, err := ParseLobbies(body)
	if err != nil || !reflect.DeepEqual(got, ls) {
		t.Fatalf("ParseLobbies(%q) = %v, %v", body, got, err)
	}
	// A server from before difficulty levels lists four fields: Normal. A client that reads the
	// first three fields (seed 004) reads both forms.
	if got, err := ParseLobbies("(K7QF2,2,false,stage1);"); err != nil || len(got) != 1 || got[0].Difficulty != rules.DifficultyNormal || got[0].Stage != "stage1" {
		t.Fatalf("ParseLobbies(four fields) = %v, %v", got, err)
	}
	if got, err := ParseLobbies(""); err != nil || len(got) != 0 {
		t.Fatalf("ParseLobbies(\"\") = %v, %v; want empty", got, err)
	}
	if string(AppendLobbies(nil, nil)) != "" {
		t.Fatal("empty list must give an empty body")
	}
	for _, bad := range []string{
		"(K7QF2,2,false,s)",                  // missing ';'
		"K7QF2,2,false,s;",                   // missing parentheses
		"(K7QF2,2,false);",                   // the 3-field form of seed 004 (no stage)
		"(K7QF2,2,false,s,x);",               // not a difficulty
		"(K7QF2,2,false,s,easy,x);",          // extra field
		"(K7QF2,5,false,s);",                 // more than 4 players
		"(K7QF2,-1,false,s);",                // negative
		"(K7QF2,2,yes,s);",                   // not a bool
		"(K7QF0,2,false,s);",                 // '0' is not in the alphabet
		"(k7qf2,2,false,s);",                 // lower case
		"(K7QF2,2,false,);",                  // empty stage
		"(K7QF2,2,false,a b);",               // space in the stage name
		"(K7QF2,2,false,s);(ABCD3,1,true,s)", // second entry without ';'
	} {
		if got, err := ParseLobbies(bad); err == nil {
			t.Errorf("ParseLobbies(%q) = %v, want an error", bad, got)
		}
	}
}

func TestValidCodeAndName(t *testing.T) {
	for s, want := range map[string]bool{
		"K7QF2": true, "ABCDE": true, "23456": true,
		"K7QF": false, "K7QF22": false, "K0QF2": false, "KOQF2": false, "K1QF2": false, "KIQF2": false, "k7qf2": false,
	} {
		if ValidCode(s) != want {
			t.Errorf("ValidCode(%q) = %v, want %v", s, !want, want)
		}
	}
	for s, want := range map[string]bool{
		"alice": true, "Bob_2-x": true, "a": true, strings.Repeat("n", 16): true,
		"": false, strings.Repeat("n", 17): false, "a b": false, "a,b": false, "é": false, "a;b": false,
	} {
		if ValidName(s) != want {
			t.Errorf("ValidName(%q) = %v, want %v", s, !want, want)
		}
	}
}

// chunkReader returns its chunks one Read at a time, then err.
type chunkReader struct {
	chunks []string
	err    error
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		return 0, r.err
	}
	n := copy(p, r.chunks[0])
	r.chunks[0] = r.chunks[0][n:]
	if r.chunks[0] == "" {
		r.chunks = r.chunks[1:]
	}
	return n, nil
}

func TestLineReader(t *testing.T) {
	// Lines split across reads, several lines per read.
	lr := NewLineReader(&chunkReader{chunks: []string{"AB", "C\r\nD\r\nE", "F\r\n"}, err: io.EOF})
	for _, want := range []string{"ABC\r\n", "D\r\n", "EF\r\n"} {
		got, err := lr.ReadLine()
		if err != nil || string(got) != want {
			t.Fatalf("readLine = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := lr.ReadLine(); err != io.EOF {
		t.Fatalf("readLine at end = %v, want EOF", err)
	}

	// A partial line survives a read error (an expired deadline) and
	// completes on the next call.
	cr := &chunkReader{chunks: []string{"GET_LOB"}, err: os.ErrDeadlineExceeded}
	lr = NewLineReader(cr)
	if _, err := lr.ReadLine(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("readLine = %v, want deadline error", err)
	}
	cr.chunks = []string{"BIES x;\r\n"}
	if got, err := lr.ReadLine(); err != nil || string(got) != "GET_LOBBIES x;\r\n" {
		t.Fatalf("readLine after deadline = %q, %v", got, err)
	}

	// MaxLine bytes with the LF last is fine; one more byte is too long.
	exact := strings.Repeat("a", MaxLine-2) + "\r\n"
	lr = NewLineReader(&chunkReader{chunks: []string{exact, strings.Repeat("a", MaxLine-1) + "\r\n"}, err: io.EOF})
	if got, err := lr.ReadLine(); err != nil || len(got) != MaxLine {
		t.Fatalf("readLine(%d bytes) = %d bytes, %v", MaxLine, len(got), err)
	}
	if _, err := lr.ReadLine(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("readLine(%d bytes) = %v, want ErrLineTooLong", MaxLine+1, err)
	}
	lr = NewLineReader(&chunkReader{chunks: []string{strings.Repeat("b", 3*MaxLine)}, err: io.EOF})
	if _, err := lr.ReadLine(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("readLine(no LF) = %v, want ErrLineTooLong", err)
	}
}

var fuzzSeeds = []string{
	"AUTHENTICATE ;alice\r\n",
	"AUTHENTICATE ;\r\n",
	"GET_LOBBIES " + tUser + ";\r\n",
	"JOIN_LOBBY " + tUser + ";\r\n",
	"JOIN_LOBBY " + tUser + ";K7QF2\r\n",
	"START " + tUser + ";\r\n",
	"LEAVE " + tUser + ";\r\n",
	"START " + tSrv + ";4243,3735928559\r\n",
	"MEMBERS " + tSrv + ";K7QF2,alice,bob\r\n",
	"END " + tSrv + ";1\r\n",
	"X ;,,\r\n",
	"GET_LOBBIES x;\n",
	"200 " + tSrv + " OK\r\n",
	"",
}

// FuzzParseCommand: ParseCommand never panics, and whatever it accepts
// formats back to exactly the same bytes.
func FuzzParseCommand(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		c, err := ParseCommand(line)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) && !errors.Is(err, ErrLineTooLong) {
				t.Fatalf("ParseCommand(%q): unexpected error type %T", line, err)
			}
			return
		}
		out, err := AppendCommand(nil, c)
		if err != nil {
			t.Fatalf("AppendCommand(ParseCommand(%q) = %#v): %v", line, c, err)
		}
		if !bytes.Equal(out, line) {
			t.Fatalf("round trip: %q -> %#v -> %q", line, c, out)
		}
	})
}

// FuzzParseResponse: same property for responses.
func FuzzParseResponse(f *testing.F) {
	for _, s := range []string{
		"200 " + tSrv + " " + tUser + "\r\n",
		"200 " + tSrv + " \r\n",
		"500 " + tSrv + " unknown command FOO\r\n",
		"200 " + tSrv + " (K7QF2,2,false,stage1);\r\n",
		"200 " + tSrv + " stage1:0123456789abcdef,short:fedcba9876543210\r\n",
		"200 " + tSrv + " 1,H4sIAAAAAAAC/w==\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := ParseResponse(line)
		if err != nil {
			return
		}
		out, err := AppendResponse(nil, r)
		if err != nil || !bytes.Equal(out, line) {
			t.Fatalf("round trip: %q -> %#v -> %q, %v", line, r, out, err)
		}
		// the body parsers never panic, and what they accept formats back to the same body
		// (a four-field entry, from a server without difficulty levels, formats back with the
		// fifth field: compare what the two parses say)
		if ls, err := ParseLobbies(r.Body); err == nil {
			if again, err := ParseLobbies(string(AppendLobbies(nil, ls))); err != nil || !reflect.DeepEqual(again, ls) {
				t.Fatalf("lobbies round trip: %q -> %v -> %v, %v", r.Body, ls, again, err)
			}
		}
		if ss, err := ParseStages(r.Body); err == nil && string(AppendStages(nil, ss)) != r.Body {
			t.Fatalf("stages round trip: %q -> %v", r.Body, ss)
		}
		if n, gz, err := ParseStagePart(r.Body); err == nil && string(AppendStagePart(nil, n, gz)) != r.Body {
			t.Fatalf("stage part round trip: %q -> %d, %x", r.Body, n, gz)
		}
	})
}

// The reader must not block forever on a quiet connection when a deadline
// is set: sanity check with a real pipe.
func TestLineReaderDeadline(t *testing.T) {
	a, b := tcpPair(t)
	lr := NewLineReader(a)
	a.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	b.Write([]byte("PART"))
	if _, err := lr.ReadLine(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("readLine = %v, want deadline exceeded", err)
	}
	a.SetReadDeadline(time.Now().Add(5 * time.Second))
	b.Write([]byte("IAL\r\n"))
	if got, err := lr.ReadLine(); err != nil || string(got) != "PARTIAL\r\n" {
		t.Fatalf("readLine = %q, %v", got, err)
	}
}

// tcpPair returns both ends of a loopback TCP connection.
func tcpPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	b, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	a, err := ln.Accept()
	if err != nil {
		b.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// TestWebSocketURL: the browser's lobby address (a page's origin, host:port or a ws URL) names
// the server's WebSocket lobby.
func TestWebSocketURL(t *testing.T) {
	for in, want := range map[string]string{
		"example.org:8080":        "ws://example.org:8080/lobby",
		"http://127.0.0.1:8080":   "ws://127.0.0.1:8080/lobby",
		"https://play.example/":   "wss://play.example/lobby",
		"wss://play.example/x/ws": "wss://play.example/x/ws",
	} {
		if got, err := WebSocketURL(in); err != nil || got != want {
			t.Errorf("WebSocketURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"ftp://example.org", "http://", "ws://[::1"} {
		if got, err := WebSocketURL(bad); err == nil {
			t.Errorf("WebSocketURL(%q) = %q, want an error", bad, got)
		}
	}
}
