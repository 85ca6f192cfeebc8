// Package rtcpeer is test support: the game's datagrams over a WebRTC data channel from Go, as a
// browser sends them (docs/PROTOCOL.md §2.8.1). Dial makes a pion peer connection with the game's
// data channel (label "rtype", unordered, no retransmission), exchanges the offer and answer
// through the lobby (lobby.Client.OfferRTC) and returns a transport.Socket over the open channel,
// so that a net/session.Session (session.Config.Socket) plays over it.
package rtcpeer

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"

	"github.com/rtype/rtype/net/transport"
)

// Label is the game's data channel's label (net/server.RTCLabel).
const Label = "rtype"

// Socket is a transport.Socket over one data channel: each message is one datagram. Every
// datagram read comes from the address last written to (the session's game server: the data
// channel has one peer); writes go over the channel whatever their address. Safe for one reader
// and concurrent writers.
type Socket struct {
	pc *webrtc.PeerConnection
	dc *webrtc.DataChannel

	mu       sync.Mutex
	q        [][]byte
	remote   netip.AddrPort
	closed   bool
	deadline time.Time
	wake     chan struct{}
	down     chan struct{} // closed when the channel or the connection closes or fails
	downOnce sync.Once
}

// QueueLen bounds the datagrams waiting to be read; more are dropped (a slow reader loses
// datagrams, as over UDP).
const QueueLen = 1024

// Dial connects to a server through offer (lobby.Client.OfferRTC: the SDP offer in, the SDP
// answer out) and returns once the data channel is open, or fails when ctx ends first. Only
// loopback candidates are gathered (tests).
func Dial(ctx context.Context, offer func(sdp string) (string, error)) (*Socket, error) {
	var se webrtc.SettingEngine
	se.SetIncludeLoopbackCandidate(true)
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetInterfaceFilter(func(name string) bool { return name == "lo" })
	pc, err := webrtc.NewAPI(webrtc.WithSettingEngine(se)).NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return nil, err
	}
	s := &Socket{pc: pc, wake: make(chan struct{}, 1), down: make(chan struct{})}
	ordered, none := false, uint16(0)
	dc, err := pc.CreateDataChannel(Label, &webrtc.DataChannelInit{Ordered: &ordered, MaxRetransmits: &none})
	if err != nil {
		pc.Close()
		return nil, err
	}
	s.dc = dc
	open := make(chan struct{})
	dc.OnOpen(func() { close(open) })
	dc.OnClose(s.gone)
	dc.OnMessage(func(m webrtc.DataChannelMessage) { s.put(m.Data) })
	pc.OnConnectionStateChange(func(st webrtc.PeerConnectionState) {
		if st == webrtc.PeerConnectionStateFailed || st == webrtc.PeerConnectionStateClosed {
			s.gone()
		}
	})
	fail := func(err error) (*Socket, error) {
		pc.Close()
		return nil, err
	}
	o, err := pc.CreateOffer(nil)
	if err != nil {
		return fail(err)
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(o); err != nil {
		return fail(err)
	}
	select {
	case <-gathered:
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	answer, err := offer(pc.LocalDescription().SDP)
	if err != nil {
		return fail(fmt.Errorf("rtcpeer: offer: %w", err))
	}
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer}); err != nil {
		return fail(fmt.Errorf("rtcpeer: answer: %w", err))
	}
	select {
	case <-open:
		return s, nil
	case <-s.down:
		return fail(errors.New("rtcpeer: the connection closed before the data channel opened"))
	case <-ctx.Done():
		return fail(fmt.Errorf("rtcpeer: data channel not open (ICE %s): %w", pc.ICEConnectionState(), ctx.Err()))
	}
}

func (s *Socket) gone() { s.downOnce.Do(func() { close(s.down) }) }

// Down is closed once the data channel or its connection closed or failed.
func (s *Socket) Down() <-chan struct{} { return s.down }

func (s *Socket) put(b []byte) {
	s.mu.Lock()
	if !s.closed && len(s.q) < QueueLen {
		s.q = append(s.q, append([]byte(nil), b...))
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// ReadFrom implements transport.Socket.
func (s *Socket) ReadFrom(p []byte) (int, netip.AddrPort, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return 0, netip.AddrPort{}, net.ErrClosed
		}
		if len(s.q) > 0 {
			b := s.q[0]
			s.q[0] = nil
			s.q = s.q[1:]
			from := s.remote
			s.mu.Unlock()
			return copy(p, b), from, nil
		}
		dl := s.deadline
		s.mu.Unlock()
		if dl.IsZero() {
			<-s.wake
			continue
		}
		d := time.Until(dl)
		if d <= 0 {
			return 0, netip.AddrPort{}, os.ErrDeadlineExceeded
		}
		t := time.NewTimer(d)
		select {
		case <-s.wake:
			t.Stop()
		case <-t.C:
			return 0, netip.AddrPort{}, os.ErrDeadlineExceeded
		}
	}
}

// WriteTo implements transport.Socket: p goes over the data channel.
func (s *Socket) WriteTo(p []byte, to netip.AddrPort) (int, error) {
	s.mu.Lock()
	closed := s.closed
	s.remote = to
	s.mu.Unlock()
	if closed {
		return 0, net.ErrClosed
	}
	if err := s.dc.Send(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// SetReadDeadline implements transport.Socket.
func (s *Socket) SetReadDeadline(t time.Time) error {
	s.mu.Lock()
	s.deadline = t
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

// LocalAddr implements transport.Socket: the zero address (a data channel has none of its own).
func (s *Socket) LocalAddr() netip.AddrPort { return netip.AddrPort{} }

// Close closes the data channel and the peer connection.
func (s *Socket) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.q = nil
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	s.dc.Close()
	return s.pc.Close()
}

var _ transport.Socket = (*Socket)(nil)
