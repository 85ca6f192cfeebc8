package server

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rtype/rtype/lobby"
)

// webDial opens the WebSocket lobby of the web address web from local (an http.Client bound to
// it) with header, and returns it as a stream of lines.
func webDial(t *testing.T, web, local string, header http.Header) (net.Conn, *bufio.Reader, *http.Response, error) {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	hc := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws://"+web+lobby.WebSocketPath, &websocket.DialOptions{HTTPClient: hc, HTTPHeader: header})
	if err != nil {
		return nil, nil, resp, err
	}
	nc := websocket.NetConn(context.Background(), c, websocket.MessageText)
	t.Cleanup(func() { nc.Close() })
	return nc, bufio.NewReader(nc), resp, nil
}

// readLine reads one lobby line within a generous deadline.
func readLine(t *testing.T, nc net.Conn, r *bufio.Reader) string {
	t.Helper()
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading a lobby line: %q, %v", line, err)
	}
	return line
}

// TestWebLobby: the web address's /lobby carries the lobby's lines over a WebSocket to the
// same lobby as the TCP address (a lobby created over TCP is listed over the WebSocket), with
// the same per-address limit, counted for the peer's address or, from a trusted proxy only, for
// its X-Forwarded-For; a page on another origin and a foreign Host are refused.
func TestWebLobby(t *testing.T) {
	webc := make(chan string, 1)
	cfg := Config{WebAddr: "127.0.0.1:0", MaxConnsPerAddr: 3, OnWeb: func(a net.Addr) { webc <- a.String() },
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}
	addr, _, stop := startServer(t, cfg)
	defer stop()
	web := <-webc

	// A lobby created over TCP...
	tc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	tr := bufio.NewReader(tc)
	tc.Write([]byte("AUTHENTICATE ;bob\r\n"))
	hello := strings.Fields(readLine(t, tc, tr))
	if len(hello) != 3 || hello[0] != "200" {
		t.Fatalf("TCP AUTHENTICATE: %q", hello)
	}
	tc.Write([]byte("JOIN_LOBBY " + hello[2] + ";\r\n"))
	joined := readLine(t, tc, tr)
	jf := strings.Fields(strings.TrimSuffix(joined, ";\r\n"))
	if len(jf) < 3 || jf[0] != "200" {
		t.Fatalf("TCP JOIN_LOBBY: %q", joined)
	}
	code := strings.SplitN(jf[2], ",", 2)[0]

	// ...is listed over the WebSocket (a page on its own origin).
	wc, wr, _, err := webDial(t, web, "127.0.0.1", http.Header{"Origin": {"http://" + web}})
	if err != nil {
		t.Fatal(err)
	}
	wc.Write(protocolWebExample(t))
	wh := strings.Fields(readLine(t, wc, wr))
	if len(wh) != 3 || wh[0] != "200" || wh[1] != hello[1] {
		t.Fatalf("WebSocket AUTHENTICATE: %q (the TCP lobby's server is %s)", wh, hello[1])
	}
	wc.Write([]byte("GET_LOBBIES " + wh[2] + ";\r\n"))
	if l := readLine(t, wc, wr); !strings.HasPrefix(l, "200 ") || !strings.Contains(l, "("+code+",") {
		t.Fatalf("WebSocket GET_LOBBIES: %q, want bob's lobby %s (%q)", l, code, joined)
	}

	// The client's WebSocket transport (what the browser build's lobby.Dial uses) joins it too.
	lc, err := lobby.DialWebSocket(context.Background(), "http://"+web)
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	if _, err := lc.Authenticate("carol"); err != nil {
		t.Fatalf("lobby.DialWebSocket, Authenticate: %v", err)
	}
	if ls, err := lc.Lobbies(); err != nil || len(ls) != 1 || ls[0].Code != code {
		t.Fatalf("lobby.DialWebSocket, Lobbies: %+v %v, want bob's %s", ls, err, code)
	}

	// A page on another origin, a foreign Host: refused before any line.
	if _, _, resp, err := webDial(t, web, "127.0.0.1", http.Header{"Origin": {"http://evil.example"}}); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign Origin: %v %v, want 403", resp, err)
	}
	req, _ := http.NewRequest("GET", "http://"+web+lobby.WebSocketPath, nil)
	req.Host = "evil.example"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Fatalf("foreign Host: %v %v, want 421", resp, err)
	} else {
		resp.Body.Close()
	}

	// The per-address limit (3): 127.0.0.1 has three (TCP and two WebSockets); a fourth is
	// refused, whatever X-Forwarded-For a stranger sends.
	fake := http.Header{"X-Forwarded-For": {"203.0.113.9"}}
	if c3, r3, _, err := webDial(t, web, "127.0.0.1", fake); err != nil {
		t.Fatal(err)
	} else if l := readLine(t, c3, r3); !strings.HasPrefix(l, "500 ") || !strings.Contains(l, "too many connections from 127.0.0.1") {
		t.Fatalf("fourth connection from 127.0.0.1: %q, want the per-address 500", l)
	}
	// From the trusted proxy, X-Forwarded-For names the player: 203.0.113.9 has three of its own.
	for i := range 4 {
		c, r, _, err := webDial(t, web, "127.0.0.2", fake)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("AUTHENTICATE ;p\r\n"))
		l := readLine(t, c, r)
		if ok := strings.HasPrefix(l, "200 "); ok != (i < 3) {
			t.Fatalf("connection %d via the trusted proxy for 203.0.113.9: %q", i, l)
		}
		if i == 3 && !strings.Contains(l, "203.0.113.9") {
			t.Fatalf("the fourth via the proxy: %q, want the limit of 203.0.113.9", l)
		}
	}

	// On shutdown a WebSocket player is told (CLOSING), then its connection closes cleanly.
	stop()
	if l := readLine(t, wc, wr); !strings.HasPrefix(l, "CLOSING ") {
		t.Fatalf("at shutdown the WebSocket got %q, want CLOSING", l)
	}
	wc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if l, err := wr.ReadString('\n'); !errors.Is(err, io.EOF) {
		t.Fatalf("after CLOSING: %q, %v; want the connection closed (EOF)", l, err)
	}
}

// TestWebSplitRefused: -web with -role is refused with a clear error (browsers play on the
// all-in-one server only).
func TestWebSplitRefused(t *testing.T) {
	err := Run(context.Background(), Config{WebAddr: "127.0.0.1:0", Fleet: FleetConfig{Role: "lobby", Secret: []byte(strings.Repeat("s", 32))}})
	if !errors.Is(err, ErrWebSplit) {
		t.Fatalf("Run with -role lobby -web: %v, want ErrWebSplit", err)
	}
}

// protocolWebExample is the text message of docs/PROTOCOL.md §2.8's example, from its hex.
func protocolWebExample(t *testing.T) []byte {
	t.Helper()
	doc, err := os.ReadFile("../../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("the text message `AUTHENTICATE ;alice\\\\r\\\\n` \\(hex\\s+`([0-9A-F \\n]+)`\\)").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/PROTOCOL.md §2.8 has no hex example of AUTHENTICATE ;alice")
	}
	b, err := hex.DecodeString(strings.Join(strings.Fields(string(m[1])), ""))
	if err != nil || string(b) != "AUTHENTICATE ;alice\r\n" {
		t.Fatalf("§2.8's hex example is %q (%v), not AUTHENTICATE ;alice CR LF", b, err)
	}
	return b
}
