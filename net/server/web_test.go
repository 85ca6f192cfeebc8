package server

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// webDial opens the WebSocket lobby of the web address web from local (an http.Client bound to
// it) with header, and returns it as a stream of lines.
func webDial(t *testing.T, web, local string, header http.Header) (net.Conn, *bufio.Reader, *http.Response, error) {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	hc := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws://"+web+WebLobbyPath, &websocket.DialOptions{HTTPClient: hc, HTTPHeader: header})
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
	cfg := Config{WebAddr: "127.0.0.1:0", MaxConnsPerAddr: 2, OnWeb: func(a net.Addr) { webc <- a.String() },
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
	wc.Write([]byte("AUTHENTICATE ;alice\r\n"))
	wh := strings.Fields(readLine(t, wc, wr))
	if len(wh) != 3 || wh[0] != "200" || wh[1] != hello[1] {
		t.Fatalf("WebSocket AUTHENTICATE: %q (the TCP lobby's server is %s)", wh, hello[1])
	}
	wc.Write([]byte("GET_LOBBIES " + wh[2] + ";\r\n"))
	if l := readLine(t, wc, wr); !strings.HasPrefix(l, "200 ") || !strings.Contains(l, "("+code+",") {
		t.Fatalf("WebSocket GET_LOBBIES: %q, want bob's lobby %s (%q)", l, code, joined)
	}

	// A page on another origin, a foreign Host: refused before any line.
	if _, _, resp, err := webDial(t, web, "127.0.0.1", http.Header{"Origin": {"http://evil.example"}}); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign Origin: %v %v, want 403", resp, err)
	}
	req, _ := http.NewRequest("GET", "http://"+web+WebLobbyPath, nil)
	req.Host = "evil.example"
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Fatalf("foreign Host: %v %v, want 421", resp, err)
	} else {
		resp.Body.Close()
	}

	// The per-address limit (2): 127.0.0.1 has two (TCP and WebSocket); a third is refused,
	// whatever X-Forwarded-For a stranger sends.
	fake := http.Header{"X-Forwarded-For": {"203.0.113.9"}}
	if c3, r3, _, err := webDial(t, web, "127.0.0.1", fake); err != nil {
		t.Fatal(err)
	} else if l := readLine(t, c3, r3); !strings.HasPrefix(l, "500 ") || !strings.Contains(l, "too many connections from 127.0.0.1") {
		t.Fatalf("third connection from 127.0.0.1: %q, want the per-address 500", l)
	}
	// From the trusted proxy, X-Forwarded-For names the player: 203.0.113.9 has two of its own.
	for i := range 3 {
		c, r, _, err := webDial(t, web, "127.0.0.2", fake)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("AUTHENTICATE ;p\r\n"))
		l := readLine(t, c, r)
		if ok := strings.HasPrefix(l, "200 "); ok != (i < 2) {
			t.Fatalf("connection %d via the trusted proxy for 203.0.113.9: %q", i, l)
		}
		if i == 2 && !strings.Contains(l, "203.0.113.9") {
			t.Fatalf("the third via the proxy: %q, want the limit of 203.0.113.9", l)
		}
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
