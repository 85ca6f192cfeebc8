package transport

import (
	"bytes"
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

func listenLoopback(t *testing.T) *UDPSocket {
	t.Helper()
	s, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatalf("ListenUDP: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

var _ Socket = (*UDPSocket)(nil)

// A datagram goes out and its answer comes back over loopback; the sender's address as seen by
// the receiver is the sender's LocalAddr (IPv4, not IPv4-mapped).
func TestUDPSocketRoundTrip(t *testing.T) {
	a, b := listenLoopback(t), listenLoopback(t)
	la, lb := a.LocalAddr(), b.LocalAddr()
	if !la.Addr().Is4() || la.Port() == 0 || la.Addr().String() != "127.0.0.1" {
		t.Fatalf("LocalAddr %v, want 127.0.0.1 with a port chosen by the OS", la)
	}
	_ = a.SetReadDeadline(time.Now().Add(2 * time.Second))
	_ = b.SetReadDeadline(time.Now().Add(2 * time.Second))

	ping := []byte("RT\x01\x00ping")
	if n, err := a.WriteTo(ping, lb); err != nil || n != len(ping) {
		t.Fatalf("WriteTo: %d, %v", n, err)
	}
	buf := make([]byte, 2048)
	n, from, err := b.ReadFrom(buf)
	if err != nil {
		t.Fatalf("ReadFrom: %v", err)
	}
	if !bytes.Equal(buf[:n], ping) || from != la {
		t.Fatalf("got %q from %v, want %q from %v", buf[:n], from, ping, la)
	}
	pong := bytes.Repeat([]byte{0xAB}, 1200) // a full-size datagram
	if _, err := b.WriteTo(pong, from); err != nil {
		t.Fatalf("WriteTo: %v", err)
	}
	n, from, err = a.ReadFrom(buf)
	if err != nil || !bytes.Equal(buf[:n], pong) || from != lb {
		t.Fatalf("answer: %d bytes from %v, err %v; want 1200 bytes from %v", n, from, err, lb)
	}
}

// The read deadline ends a read with a timeout error (os.ErrDeadlineExceeded, net.Error.Timeout),
// not before the deadline; a past deadline fails at once; clearing it lets reads block again.
func TestUDPSocketReadDeadline(t *testing.T) {
	s := listenLoopback(t)
	buf := make([]byte, 64)
	start := time.Now()
	_ = s.SetReadDeadline(start.Add(50 * time.Millisecond))
	_, _, err := s.ReadFrom(buf)
	el := time.Since(start)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("ReadFrom after the deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("error %v is not a net.Error timeout", err)
	}
	if el < 45*time.Millisecond || el > 2*time.Second {
		t.Fatalf("read returned after %v, want ≈ 50ms", el)
	}
	_ = s.SetReadDeadline(time.Now().Add(-time.Second))
	if _, _, err := s.ReadFrom(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("past deadline: %v", err)
	}
	// Cleared: a datagram sent to ourselves is read.
	_ = s.SetReadDeadline(time.Time{})
	if _, err := s.WriteTo([]byte("x"), s.LocalAddr()); err != nil {
		t.Fatal(err)
	}
	if n, _, err := s.ReadFrom(buf); err != nil || n != 1 {
		t.Fatalf("after clearing the deadline: %d, %v", n, err)
	}
}

// After Close, ReadFrom fails with net.ErrClosed (the Socket contract), also a ReadFrom that was
// blocked when Close happened.
func TestUDPSocketClose(t *testing.T) {
	s, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, _, err := s.ReadFrom(make([]byte, 64))
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("blocked ReadFrom after Close: %v, want net.ErrClosed", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("ReadFrom still blocked 2s after Close")
	}
	if _, _, err := s.ReadFrom(make([]byte, 64)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("ReadFrom after Close: %v, want net.ErrClosed", err)
	}
}

func TestListenUDPBadAddr(t *testing.T) {
	for _, addr := range []string{"no-port", "127.0.0.1:99999", "[::1:0"} {
		if s, err := ListenUDP(addr); err == nil {
			_ = s.Close()
			t.Errorf("ListenUDP(%q) succeeded", addr)
		}
	}
}
