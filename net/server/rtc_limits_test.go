package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/lobbyserver"
)

// rtcOnSocket is the WebRTC side of a game socket: a real UDP socket on loopback whose
// datagrams go to the peers' mux as the game socket's Connectionless hook gives them.
func rtcOnSocket(t *testing.T, connect, idle time.Duration, receive func([]byte, netip.AddrPort)) *rtcPeers {
	t.Helper()
	sock, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	r := newRTCPeersTimed(sock.LocalAddr().(*net.UDPAddr), 0, func(b []byte, to netip.AddrPort) error {
		_, err := sock.WriteToUDPAddrPort(b, to)
		return err
	}, receive, slog.New(slog.DiscardHandler), connect, idle)
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for {
			n, from, err := sock.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			r.offer(buf[:n], netip.AddrPortFrom(from.Addr().Unmap(), from.Port()), nil)
		}
	}()
	t.Cleanup(func() { r.close(); sock.Close(); <-done })
	return r
}

// browserOffer is a pion peer's offer with the game's data channel (label and options given),
// and the peer, which the test closes.
func browserOffer(t *testing.T, label string, ordered bool) (*webrtc.PeerConnection, string) {
	t.Helper()
	pc, _, offer := browserPeer(t, label, ordered)
	return pc, offer
}

// browserPeer is browserOffer with the data channel.
func browserPeer(t *testing.T, label string, ordered bool) (*webrtc.PeerConnection, *webrtc.DataChannel, string) {
	t.Helper()
	var se webrtc.SettingEngine
	se.SetIncludeLoopbackCandidate(true)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetInterfaceFilter(func(name string) bool { return name == "lo" })
	pc, err := webrtc.NewAPI(webrtc.WithSettingEngine(se)).NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	none := uint16(0)
	dc, err := pc.CreateDataChannel(label, &webrtc.DataChannelInit{Ordered: &ordered, MaxRetransmits: &none})
	if err != nil {
		t.Fatal(err)
	}
	o, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(o); err != nil {
		t.Fatal(err)
	}
	<-gathered
	return pc, dc, pc.LocalDescription().SDP
}

// The limits on WebRTC peers (docs/PROTOCOL.md §2.4.19): RTCPendingPerAddr peers connecting from
// one address (an IPv6 /64 counts as one), RTCMaxPending in all, each refused with a reason that
// names the limit; a peer that does not connect is closed after its connect timeout, which frees
// its place; answers carry the game socket's address as their one candidate.
func TestRTCPeerLimits(t *testing.T) {
	r := rtcOnSocket(t, 3*time.Second, time.Minute, func([]byte, netip.AddrPort) {})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	alice := netip.MustParseAddr("198.51.100.1")
	for i := range RTCPendingPerAddr {
		_, offer := browserOffer(t, RTCLabel, false)
		answer, err := r.AnswerRTC(ctx, alice, offer)
		if err != nil {
			t.Fatalf("offer %d: %v", i, err)
		}
		port := strings.TrimPrefix(r.conn.LocalAddr().String(), "127.0.0.1:")
		n := 0
		for _, l := range strings.Split(answer, "\r\n") {
			if strings.HasPrefix(l, "a=candidate:") {
				n++
				if !strings.Contains(l, " udp ") || !strings.Contains(l, " 127.0.0.1 "+port+" typ host") {
					n = -100
				}
			}
		}
		if n < 1 {
			t.Fatalf("answer's candidates (want the game socket's %s only):\n%s", r.conn.LocalAddr(), answer)
		}
	}
	_, offer := browserOffer(t, RTCLabel, false)
	var re *lobbyserver.RTCRefusal
	if _, err := r.AnswerRTC(ctx, alice, offer); !errors.As(err, &re) || !strings.Contains(re.Reason, "too many WebRTC peers connecting from 198.51.100.1 (max 4)") {
		t.Fatalf("a 5th offer from one address: %v", err)
	}
	if _, err := r.AnswerRTC(ctx, netip.MustParseAddr("198.51.100.2"), offer); err != nil {
		t.Fatalf("another address's offer: %v", err)
	}
	// none of them connects (the offers' peers never get their answers): closed at the timeout
	deadline := time.Now().Add(30 * time.Second)
	for r.Peers() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d peers that never connected are still there", r.Peers())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := r.AnswerRTC(ctx, alice, offer); err != nil {
		t.Fatalf("an offer once the others timed out: %v", err)
	}
	// the server's cap: pending peers from many addresses
	r.mu.Lock()
	r.npend = RTCMaxPending
	r.mu.Unlock()
	if _, err := r.AnswerRTC(ctx, netip.MustParseAddr("2001:db8::1"), offer); !errors.As(err, &re) || !strings.Contains(re.Reason, "(max 64)") {
		t.Fatalf("an offer over the server's cap: %v", err)
	}
	r.mu.Lock()
	r.npend = 1
	r.mu.Unlock()
	if _, err := r.AnswerRTC(ctx, netip.MustParseAddr("2001:db8::1"), "v=0\r\nnot an offer\r\n"); !errors.As(err, &re) || re.Reason != "the offer has no data channel (m=application)" {
		t.Fatalf("an offer without a data channel: %v, want a refusal", err)
	}
	if _, err := r.AnswerRTC(ctx, netip.MustParseAddr("2001:db8::1"), "v=0\r\nm=application 9 but nothing else\r\n"); !errors.As(err, &re) || re.Reason != "the offer is not a WebRTC offer the server can answer" {
		t.Fatalf("a malformed offer: %v, want a refusal", err)
	}
	if r.Peers() != 1 {
		t.Fatalf("%d peers after the refused offers, want the one answered", r.Peers())
	}
}

// A peer's data channel that is not the game's (another label, or ordered) is closed and the
// peer's datagrams never reach the game; the game's carries them from the peer's reserved
// address, and what is sent to that address comes back over it.
func TestRTCDataChannelRules(t *testing.T) {
	got := make(chan netip.AddrPort, 16)
	var r *rtcPeers
	r = rtcOnSocket(t, 10*time.Second, time.Minute, func(b []byte, from netip.AddrPort) {
		got <- from
		r.divert(append([]byte("echo:"), b...), from)
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, c := range []struct {
		label   string
		ordered bool
		ok      bool
	}{{"chat", false, false}, {RTCLabel, true, false}, {RTCLabel, false, true}} {
		pc, dc, offer := browserPeer(t, c.label, c.ordered)
		closed, echo := make(chan struct{}), make(chan []byte, 1)
		dc.OnOpen(func() { dc.Send([]byte{0xA5, 0x5A}) })
		dc.OnMessage(func(m webrtc.DataChannelMessage) { echo <- m.Data })
		dc.OnClose(func() { close(closed) })
		answer, err := r.AnswerRTC(ctx, netip.MustParseAddr("198.51.100.1"), offer)
		if err != nil {
			t.Fatal(err)
		}
		if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-closed:
			if c.ok {
				t.Fatalf("the game's data channel was closed")
			}
		case b := <-echo:
			if !c.ok {
				t.Fatalf("data channel %q (ordered %v) carried % x", c.label, c.ordered, b)
			}
			if string(b) != "echo:\xA5\x5A" {
				t.Fatalf("echo % x", b)
			}
			if from := <-got; !IsRTCAddr(from) {
				t.Fatalf("the datagram came from %s, not a reserved address", from)
			}
		case <-ctx.Done():
			t.Fatalf("data channel %q (ordered %v): neither closed nor echoed", c.label, c.ordered)
		}
		pc.Close()
	}
	if len(got) != 0 {
		t.Fatalf("%d more datagrams reached the game", len(got))
	}
}

// The answer's candidates: the host candidates' port is -public-udp's, component 2 (RTCP) goes,
// and an answer too long for a line loses its last candidates, never its first.
func TestAnswerSDP(t *testing.T) {
	c := func(n int, comp, port string) string {
		return "a=candidate:" + strconv.Itoa(n) + " " + comp + " udp 2130706431 192.0.2." + strconv.Itoa(n) + " " + port + " typ host generation 0\r\n"
	}
	sdp := "v=0\r\n" + c(1, "1", "4242") + c(1, "2", "4242") + c(2, "1", "5000") + "a=end-of-candidates\r\n"
	if got, want := answerSDP(sdp, 4242, 30000, 3000), "v=0\r\n"+c(1, "1", "30000")+c(2, "1", "5000")+"a=end-of-candidates\r\n"; got != want {
		t.Fatalf("answerSDP:\n%q, want\n%q", got, want)
	}
	if got, want := answerSDP(sdp, 4242, 4242, 3000), "v=0\r\n"+c(1, "1", "4242")+c(2, "1", "5000")+"a=end-of-candidates\r\n"; got != want {
		t.Fatalf("answerSDP, same port:\n%q, want\n%q", got, want)
	}
	long := "v=0\r\n"
	for i := range 40 {
		long += c(i, "1", "4242")
	}
	long += "a=end-of-candidates\r\n"
	got := answerSDP(long, 4242, 4242, 3000)
	if len(got) > 3000 || !strings.HasPrefix(got, "v=0\r\n"+c(0, "1", "4242")+c(1, "1", "4242")) || !strings.HasSuffix(got, "a=end-of-candidates\r\n") {
		t.Fatalf("a long answer (%d bytes) trimmed to %d bytes:\n%s", len(long), len(got), got)
	}
	for a, want := range map[string]bool{"0.0.0.1:1": true, "0.255.255.255:1": true, "0.0.0.0:1": false, "1.0.0.1:1": false, "[::1]:1": false, "127.0.0.1:1": false} {
		if got := IsRTCAddr(netip.MustParseAddrPort(a)); got != want {
			t.Errorf("IsRTCAddr(%s) = %v", a, got)
		}
	}
}

// A server without -web refuses RTC_OFFER with the reason that says so (lobby.RTCOff), and its
// game socket takes no WebRTC datagram.
func TestRTCOffWithoutWeb(t *testing.T) {
	addr, _, stop := startServer(t, Config{Stage: "short"})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lc, err := lobby.Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	if _, err := lc.Authenticate("desk"); err != nil {
		t.Fatal(err)
	}
	_, offer := browserOffer(t, RTCLabel, false)
	var re *lobby.ResponseError
	if _, err := lc.OfferRTC(offer); !errors.As(err, &re) || re.Code != lobby.CodeWrongRequest || re.Reason != lobby.RTCOff {
		t.Fatalf("RTC_OFFER without -web: %v, want 500 %q", err, lobby.RTCOff)
	}
}
