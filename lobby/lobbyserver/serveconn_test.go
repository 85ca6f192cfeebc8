package lobbyserver

import (
	"bufio"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestServeConn: a connection accepted elsewhere (the web address's WebSocket) is one more
// lobby connection, counted for the address it is given; before Serve it is closed with
// ErrNotServing.
func TestServeConn(t *testing.T) {
	idle := NewServer(withStages(ServerConfig{Logger: discardLogger()}))
	a, b := net.Pipe()
	defer b.Close()
	if err := idle.ServeConn(a, netip.MustParseAddr("192.0.2.1")); !errors.Is(err, ErrNotServing) {
		t.Fatalf("ServeConn before Serve: %v, want ErrNotServing", err)
	}
	b.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := b.Read(make([]byte, 1)); err == nil {
		t.Fatal("ServeConn before Serve left the connection open")
	}

	s, _ := startServer(t, ServerConfig{MaxConnsPerAddr: 1})
	from := netip.MustParseAddr("192.0.2.7")
	// A loopback TCP pair (a net.Pipe has no buffer: a refusal's bounded write could time out
	// before the test reads it on a slow machine).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	open := func() (net.Conn, *bufio.Reader, chan error) {
		b, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		a, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- s.ServeConn(a, from) }()
		t.Cleanup(func() { b.Close() })
		return b, bufio.NewReader(b), done
	}
	line := func(c net.Conn, r *bufio.Reader) string {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading: %q %v", l, err)
		}
		return l
	}
	c1, r1, done1 := open()
	c1.Write([]byte("AUTHENTICATE ;alice\r\n"))
	if l := line(c1, r1); !strings.HasPrefix(l, "200 ") {
		t.Fatalf("AUTHENTICATE through ServeConn: %q", l)
	}
	c2, r2, done2 := open()
	if l := line(c2, r2); !strings.HasPrefix(l, "500 ") || !strings.Contains(l, "too many connections from 192.0.2.7") {
		t.Fatalf("a second connection from 192.0.2.7: %q, want the per-address 500", l)
	}
	if err := <-done2; err != nil {
		t.Fatalf("ServeConn of a refused connection: %v", err)
	}
	c1.Close()
	if err := <-done1; err != nil {
		t.Fatalf("ServeConn once the client closed: %v", err)
	}
}
