package server

import (
	"bytes"
	"errors"
	"net"
	"net/netip"
	"os"
	"testing"
	"time"
)

// TestICEPacketConn: the ICE mux's view of the game socket takes only STUN and DTLS datagrams,
// returns them in order with their source, holds at most ICEQueue of them (a flood costs
// bounded memory), writes through the game socket, and unblocks its reader on a deadline or
// Close.
func TestICEPacketConn(t *testing.T) {
	type sent struct {
		b  []byte
		to netip.AddrPort
	}
	var out []sent
	c := newICEPacketConn(&net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4242}, func(b []byte, to netip.AddrPort) error {
		out = append(out, sent{append([]byte(nil), b...), to})
		return nil
	})
	from := netip.MustParseAddrPort("192.0.2.1:5000")
	for _, b := range [][]byte{{0xA5, 0x5A, 1}, {0xFF, 0xFF}, {4}, {19}, {64}, {}} {
		if c.Offer(b, from) {
			t.Errorf("Offer took % x, which is not STUN or DTLS", b)
		}
	}
	stun := []byte{0x00, 0x01, 0x00, 0x00, 0x21, 0x12, 0xA4, 0x42}
	dtls := []byte{22, 0xFE, 0xFD}
	if !c.Offer(stun, from) || !c.Offer(dtls, netip.MustParseAddrPort("192.0.2.2:6000")) {
		t.Fatal("Offer refused STUN or DTLS")
	}
	stun[0] = 0xEE // Offer copied it
	buf := make([]byte, 64)
	n, a, err := c.ReadFrom(buf)
	if err != nil || !bytes.Equal(buf[:n], []byte{0x00, 0x01, 0x00, 0x00, 0x21, 0x12, 0xA4, 0x42}) || a.String() != "192.0.2.1:5000" {
		t.Fatalf("first ReadFrom: % x from %v, %v", buf[:n], a, err)
	}
	if n, a, err = c.ReadFrom(buf); err != nil || buf[0] != 22 || a.String() != "192.0.2.2:6000" {
		t.Fatalf("second ReadFrom: % x from %v, %v", buf[:n], a, err)
	}

	for range ICEQueue + 10 {
		c.Offer(dtls, from)
	}
	if len(c.q) != ICEQueue || c.dropped != 10 {
		t.Fatalf("after a flood: %d queued, %d dropped; want %d and 10", len(c.q), c.dropped, ICEQueue)
	}
	c.q = nil

	if _, err := c.WriteTo([]byte{1, 2}, net.UDPAddrFromAddrPort(netip.MustParseAddrPort("[::ffff:192.0.2.9]:7"))); err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].to != netip.MustParseAddrPort("192.0.2.9:7") || !bytes.Equal(out[0].b, []byte{1, 2}) {
		t.Fatalf("WriteTo sent %+v", out)
	}

	c.SetReadDeadline(time.Now().Add(-time.Second))
	if _, _, err := c.ReadFrom(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("ReadFrom past its deadline: %v", err)
	}
	c.SetReadDeadline(time.Time{})
	done := make(chan error, 1)
	go func() { _, _, err := c.ReadFrom(buf); done <- err }()
	c.Close()
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("ReadFrom once closed: %v", err)
	}
}
