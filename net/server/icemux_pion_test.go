package server

import (
	"bytes"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"
)

// TestICEMuxCarriesDataChannel: pion's ICE UDP mux over icePacketConn — fed, as the game
// socket's Connectionless hook feeds it, from one real UDP socket that writes its replies —
// connects a WebRTC peer (a native pion peer playing the browser) and carries its unordered,
// unretransmitted data channel's messages both ways: WebRTC on the game's one UDP port.
func TestICEMuxCarriesDataChannel(t *testing.T) {
	sock, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	pc := newICEPacketConn(sock.LocalAddr(), func(b []byte, to netip.AddrPort) error {
		_, err := sock.WriteToUDPAddrPort(b, to)
		return err
	})
	taken := make(chan struct{}, 1)
	readDone := make(chan struct{})
	go func() { // the game socket's read loop, as far as WebRTC is concerned
		defer close(readDone)
		buf := make([]byte, 2048)
		for {
			n, from, err := sock.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			if pc.Offer(buf[:n], netip.AddrPortFrom(from.Addr().Unmap(), from.Port())) {
				select {
				case taken <- struct{}{}:
				default:
				}
			}
		}
	}()
	mux := ice.NewUDPMuxDefault(ice.UDPMuxParams{UDPConn: pc})
	defer mux.Close()

	api := func(server bool) *webrtc.API {
		var se webrtc.SettingEngine
		se.SetIncludeLoopbackCandidate(true)
		se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
		se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
		if server {
			se.SetICEUDPMux(mux)
		} else {
			se.SetInterfaceFilter(func(name string) bool { return name == "lo" })
		}
		return webrtc.NewAPI(webrtc.WithSettingEngine(se))
	}
	srv, err := api(true).NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cli, err := api(false).NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()

	srv.OnDataChannel(func(dc *webrtc.DataChannel) {
		dc.OnMessage(func(m webrtc.DataChannelMessage) { dc.Send(append([]byte("echo:"), m.Data...)) })
	})
	ordered, none := false, uint16(0)
	dc, err := cli.CreateDataChannel("game", &webrtc.DataChannelInit{Ordered: &ordered, MaxRetransmits: &none})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 4)
	dc.OnMessage(func(m webrtc.DataChannelMessage) { got <- m.Data })
	dc.OnOpen(func() { dc.Send([]byte{0xA5, 0x5A, 1, 2, 3}) })

	offer, err := cli.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	gathered := webrtc.GatheringCompletePromise(cli)
	if err := cli.SetLocalDescription(offer); err != nil {
		t.Fatal(err)
	}
	<-gathered
	if err := srv.SetRemoteDescription(*cli.LocalDescription()); err != nil {
		t.Fatal(err)
	}
	answer, err := srv.CreateAnswer(nil)
	if err != nil {
		t.Fatal(err)
	}
	gathered = webrtc.GatheringCompletePromise(srv)
	if err := srv.SetLocalDescription(answer); err != nil {
		t.Fatal(err)
	}
	<-gathered
	if err := cli.SetRemoteDescription(*srv.LocalDescription()); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-got:
		if !bytes.Equal(b, []byte("echo:\xA5\x5A\x01\x02\x03")) {
			t.Fatalf("the data channel brought back % x", b)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no message back over the data channel within 30 s (ICE %s, server %s)", cli.ICEConnectionState(), srv.ICEConnectionState())
	}
	select {
	case <-taken:
	default:
		t.Fatal("the connection did not go through the game socket's hook")
	}
	cli.Close()
	srv.Close()
	mux.Close()
	sock.Close()
	<-readDone
}
