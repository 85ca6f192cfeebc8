package server

import (
	"bufio"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/pires/go-proxyproto"
)

// TestProxyProtocol: behind a trusted proxy (-trusted-proxies 127.0.0.1) the lobby's
// per-address limits see the address a PROXY v2 header names, not the proxy's: with one
// connection per address, two players behind the same proxy both get in, a second connection
// "from" one of them is refused under that player's address; a PROXY header from an address
// that is not trusted (127.0.0.2) is refused; and a direct connection from the proxy's address
// with no header still works.
func TestProxyProtocol(t *testing.T) {
	t.Parallel()
	trusted, err := ParseTrustedProxies("127.0.0.1, 10.0.0.0/8")
	if err != nil || len(trusted) != 2 || trusted[0] != netip.MustParsePrefix("127.0.0.1/32") {
		t.Fatalf("ParseTrustedProxies: %v %v", trusted, err)
	}
	if _, err := ParseTrustedProxies("10.0.0.0/33"); err == nil {
		t.Fatal("a bad CIDR accepted")
	}
	addr, _, stop := startServerTB(t, Config{Stage: "short", Logger: quietLog(), MaxConnsPerAddr: 1, TrustedProxies: trusted})
	defer stop()

	// dial connects from local (""/ an address) and, with src, first sends a PROXY v2 header
	// naming src; it returns the lobby's refusal, or "" when the connection is held open.
	dial := func(local, src string) (net.Conn, string) {
		t.Helper()
		d := net.Dialer{Timeout: 5 * time.Second}
		if local != "" {
			d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(local)}
		}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if src != "" {
			h := proxyproto.HeaderProxyFromAddrs(2, &net.TCPAddr{IP: net.ParseIP(src), Port: 40000}, c.RemoteAddr())
			if _, err := h.WriteTo(c); err != nil {
				t.Fatal(err)
			}
		}
		// A refused connection gets its refusal before anything it sends is read; a held one
		// answers the command sent here (no wait on the clock: the order tells them apart).
		if _, err := c.Write([]byte("GET_LOBBIES ;\r\n")); err != nil {
			return c, "write: " + err.Error()
		}
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		_ = c.SetReadDeadline(time.Time{})
		if err == nil && !strings.Contains(line, "closing connection") {
			t.Logf("held open, answered %q", strings.TrimSpace(line))
			return c, ""
		}
		return c, line
	}
	if _, r := dial("127.0.0.1", "203.0.113.7"); r != "" {
		t.Fatalf("first player behind the proxy refused: %q", r)
	}
	if _, r := dial("127.0.0.1", "203.0.113.8"); r != "" {
		t.Fatalf("second player behind the same proxy refused: %q (the limit saw the proxy's address)", r)
	}
	if _, r := dial("127.0.0.1", "203.0.113.7"); !strings.Contains(r, "too many connections from 203.0.113.7") {
		t.Fatalf("a second connection of 203.0.113.7: %q, want refused under that address", r)
	}
	if _, r := dial("127.0.0.1", ""); r != "" {
		t.Fatalf("a direct connection from the proxy's own address: %q", r)
	}
	c, r := dial("127.0.0.2", "198.51.100.1")
	if r == "" {
		// The refusal may be a closed connection rather than a line: a read must fail.
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Fatal("a PROXY header from an untrusted address was accepted")
		}
	} else if strings.Contains(r, "198.51.100.1") {
		t.Fatalf("an untrusted proxy's header was used: %q", r)
	}
}
