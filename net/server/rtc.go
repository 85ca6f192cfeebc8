package server

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/lobby/lobbyserver"
)

// The game over a WebRTC data channel (docs/PROTOCOL.md §2.4.19, §2.8.1): a browser's offer comes
// through the lobby (RTC_OFFER); its peer connection runs ICE and DTLS on the game's UDP port
// (one ice.UDPMux over icePacketConn, fed by the game socket's Connectionless hook after the
// per-address rate limit); its data channel carries the game's datagrams. Each peer has a
// reserved address of its own (RTCPrefix): what comes over its data channel goes into the
// Manager's receive path from that address (instance.Manager.Receive), and what the Manager
// sends to it goes over the data channel (instance.Config.Divert).

// RTCLabel is the label of the game's data channel; it is unordered with no retransmission
// (ordered: false, maxRetransmits: 0), like UDP. A peer's other data channels are closed.
const RTCLabel = "rtype"

// The limits on WebRTC peers (docs/PROTOCOL.md §2.4.19): peers still connecting from one lobby
// address (handoff.SourceNetwork) and in all, peers in all, how long a peer may take to open its
// data channel, and how long an open one may stay silent.
const (
	RTCPendingPerAddr = 4
	RTCMaxPending     = 64
	RTCMaxPeers       = 512
	RTCConnectTimeout = 10 * time.Second
	RTCIdle           = 60 * time.Second
)

// RTCPrefix holds the reserved addresses of WebRTC peers: 0.0.0.0/8, "this network" (RFC 1122
// §3.2.1.3, RFC 6890), which is never the source of a datagram from another host (the kernel drops
// such martians, and routers do not forward them), so a peer's address cannot be a real client's;
// unlike a private, CGNAT (100.64.0.0/10: Tailscale's) or ULA range, no player can reach the
// server from it. Each peer gets one IPv4 address of its own (so the per-address limits, which
// count an IPv4 address, count each peer apart) and port RTCPort. 0.0.0.0 itself is never used.
var RTCPrefix = netip.MustParsePrefix("0.0.0.0/8")

// RTCPort is the port of every WebRTC peer's reserved address.
const RTCPort = 1

// IsRTCAddr reports whether a is a WebRTC peer's reserved address (RTCPrefix).
func IsRTCAddr(a netip.AddrPort) bool {
	ip := a.Addr()
	return ip.Is4() && ip.As4()[0] == 0 && !ip.IsUnspecified()
}

// rtcSendBuffer bounds what waits in a data channel's send buffer: past it, the game's datagrams
// to that peer are dropped (as a full socket buffer would), so a stalled peer never holds a worker.
const rtcSendBuffer = 256 << 10

// rtcPeers are the server's WebRTC peers: the lobby's RTCAnswerer and the game socket's hooks.
type rtcPeers struct {
	log        *slog.Logger
	api        *webrtc.API
	conn       *icePacketConn
	mux        *ice.UDPMuxDefault
	receive    func(b []byte, from netip.AddrPort) // instance.Manager.Receive
	boundPort  int
	publicPort int
	// connectTimeout and idle are RTCConnectTimeout and RTCIdle (tests shorten them:
	// newRTCPeersTimed).
	connectTimeout, idle time.Duration

	mu      sync.Mutex
	peers   map[netip.AddrPort]*rtcPeer
	pending map[netip.Prefix]int // peers not open yet, per lobby address
	npend   int
	next    uint32 // the last address handed out (its low 24 bits)
	closed  bool
	closing sync.WaitGroup // the peer connections closing (remove)
	stop    chan struct{}
	done    chan struct{}
}

type rtcPeer struct {
	addr    netip.AddrPort
	from    netip.Prefix // the lobby connection's network (pending)
	pc      *webrtc.PeerConnection
	since   time.Time
	dc      atomic.Pointer[webrtc.DataChannel] // the game's, once open
	claimed atomic.Bool                        // the game's data channel came (a second is refused)
	last    atomic.Int64                       // unix nanoseconds of the latest message (open)
}

// newRTCPeers makes the server's WebRTC side over the game socket: local is its address
// (unspecified: every interface's addresses are candidates), write sends from it
// (instance.Manager.WriteTo), receive takes the data channels' datagrams
// (instance.Manager.Receive); the answers' candidates carry publicPort (0: the bound one).
func newRTCPeers(local *net.UDPAddr, publicPort int, write func([]byte, netip.AddrPort) error, receive func([]byte, netip.AddrPort), log *slog.Logger) *rtcPeers {
	return newRTCPeersTimed(local, publicPort, write, receive, log, RTCConnectTimeout, RTCIdle)
}

// newRTCPeersTimed is newRTCPeers with other timeouts than RTCConnectTimeout and RTCIdle (tests).
func newRTCPeersTimed(local *net.UDPAddr, publicPort int, write func([]byte, netip.AddrPort) error, receive func([]byte, netip.AddrPort), log *slog.Logger, connect, idle time.Duration) *rtcPeers {
	r := &rtcPeers{log: log, receive: receive, boundPort: local.Port, publicPort: publicPort, connectTimeout: connect, idle: idle,
		peers: map[netip.AddrPort]*rtcPeer{}, pending: map[netip.Prefix]int{}, stop: make(chan struct{}), done: make(chan struct{})}
	if r.publicPort == 0 {
		r.publicPort = local.Port
	}
	r.conn = newICEPacketConn(local, write)
	r.mux = ice.NewUDPMuxDefault(ice.UDPMuxParams{UDPConn: r.conn})
	var se webrtc.SettingEngine
	se.SetICEUDPMux(r.mux)
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	switch {
	case local.IP.To4() != nil:
		se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	case local.IP.IsUnspecified():
		se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4, webrtc.NetworkTypeUDP6})
	default:
		se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP6})
	}
	se.SetIncludeLoopbackCandidate(local.IP.IsLoopback())
	r.api = webrtc.NewAPI(webrtc.WithSettingEngine(se))
	go r.janitor()
	return r
}

// offer is the game socket's Answerer for WebRTC's datagrams (STUN, DTLS): they go to the mux.
func (r *rtcPeers) offer(b []byte, from netip.AddrPort, _ func([]byte, netip.AddrPort) error) bool {
	return r.conn.Offer(b, from)
}

// divert is instance.Config.Divert: a datagram to a peer's address goes over its data channel
// (dropped when the peer is gone, not open yet, or its send buffer is full).
func (r *rtcPeers) divert(b []byte, to netip.AddrPort) bool {
	if !IsRTCAddr(to) {
		return false
	}
	r.mu.Lock()
	p := r.peers[to]
	r.mu.Unlock()
	if p == nil {
		return true
	}
	if dc := p.dc.Load(); dc != nil && dc.BufferedAmount() < rtcSendBuffer {
		_ = dc.Send(b)
	}
	return true
}

// AnswerRTC implements lobbyserver.RTCAnswerer: a peer connection for the offer, with an address
// of its own, answered once its candidates are gathered (the game socket's address).
func (r *rtcPeers) AnswerRTC(ctx context.Context, from netip.Addr, offer string) (string, error) {
	if !strings.Contains(offer, "\nm=application ") {
		return "", &lobbyserver.RTCRefusal{Reason: "the offer has no data channel (m=application)"}
	}
	p, err := r.add(from)
	if err != nil {
		return "", err
	}
	answer, err := r.answer(ctx, p, offer)
	if err != nil {
		r.remove(p, "not answered")
		return "", err
	}
	return answer, nil
}

// add reserves a peer for an offer from from, within the limits.
func (r *rtcPeers) add(from netip.Addr) (*rtcPeer, error) {
	nw := handoff.SourceNetwork(from)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.closed:
		return nil, &lobbyserver.RTCRefusal{Reason: "the server is shutting down"}
	case r.pending[nw] >= RTCPendingPerAddr:
		return nil, &lobbyserver.RTCRefusal{Reason: fmt.Sprintf("too many WebRTC peers connecting from %s (max %d): wait for one to connect or time out", lobbyAddrString(nw), RTCPendingPerAddr)}
	case r.npend >= RTCMaxPending:
		return nil, &lobbyserver.RTCRefusal{Reason: fmt.Sprintf("too many WebRTC peers connecting to this server (max %d): try again in a few seconds", RTCMaxPending)}
	case len(r.peers) >= RTCMaxPeers:
		return nil, &lobbyserver.RTCRefusal{Reason: fmt.Sprintf("too many WebRTC peers on this server (max %d)", RTCMaxPeers)}
	}
	var addr netip.AddrPort
	for {
		r.next = (r.next + 1) & 0xFFFFFF
		if r.next == 0 {
			continue
		}
		addr = netip.AddrPortFrom(netip.AddrFrom4([4]byte{0, byte(r.next >> 16), byte(r.next >> 8), byte(r.next)}), RTCPort)
		if r.peers[addr] == nil {
			break
		}
	}
	p := &rtcPeer{addr: addr, from: nw, since: time.Now()}
	r.peers[addr] = p
	r.pending[nw]++
	r.npend++
	return p, nil
}

// lobbyAddrString names a network as the lobby's refusals do: an IPv4 address, an IPv6 /64.
func lobbyAddrString(p netip.Prefix) string {
	if p.Addr().Is4() {
		return p.Addr().String()
	}
	return p.String()
}

// answer makes p's peer connection and answers offer.
func (r *rtcPeers) answer(ctx context.Context, p *rtcPeer, offer string) (string, error) {
	pc, err := r.api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		return "", err
	}
	r.mu.Lock()
	p.pc = pc
	gone := r.peers[p.addr] != p
	r.mu.Unlock()
	if gone { // closed meanwhile (shutdown)
		pc.Close()
		return "", &lobbyserver.RTCRefusal{Reason: "the server is shutting down"}
	}
	pc.OnDataChannel(func(dc *webrtc.DataChannel) {
		mr := dc.MaxRetransmits()
		if dc.Label() != RTCLabel || dc.Ordered() || mr == nil || *mr != 0 || !p.claimed.CompareAndSwap(false, true) {
			r.log.Debug("webrtc: data channel refused", "peer", p.addr.String(), "label", dc.Label(), "ordered", dc.Ordered())
			dc.Close()
			return
		}
		dc.OnOpen(func() {
			p.last.Store(time.Now().UnixNano())
			p.dc.Store(dc)
			r.opened(p)
		})
		dc.OnMessage(func(m webrtc.DataChannelMessage) {
			p.last.Store(time.Now().UnixNano())
			if !m.IsString {
				r.receive(m.Data, p.addr)
			}
		})
		dc.OnClose(func() { r.remove(p, "data channel closed") })
	})
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		if s == webrtc.PeerConnectionStateFailed || s == webrtc.PeerConnectionStateClosed {
			r.remove(p, "peer connection "+s.String())
		}
	})
	if err := pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer}); err != nil {
		return "", &lobbyserver.RTCRefusal{Reason: "the offer is not a WebRTC offer the server can answer"}
	}
	ans, err := pc.CreateAnswer(nil)
	if err != nil {
		return "", err
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(ans); err != nil {
		return "", err
	}
	select {
	case <-gathered:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return answerSDP(pc.LocalDescription().SDP, r.boundPort, r.publicPort, lobby.MaxRTCSDP), nil
}

// answerSDP is the answer the player gets from pion's sdp: the port of its host candidates
// rewritten from bound to public (-public-udp: players reach the game socket at another port),
// without the candidates of component 2 (RTCP: a data channel has none, BUNDLE and rtcp-mux), and
// without its last candidates while it is longer than max bytes (a host with very many
// addresses; the first are the preferred ones).
func answerSDP(sdp string, bound, public, max int) string {
	lines := strings.Split(sdp, "\r\n")
	out := lines[:0]
	var cands []int // indexes in out of the candidate lines
	for _, l := range lines {
		if strings.HasPrefix(l, "a=candidate:") {
			f := strings.Fields(l) // foundation component transport priority address port typ host ...
			if len(f) >= 8 && f[1] != "1" {
				continue
			}
			if len(f) >= 8 && f[6] == "typ" && f[5] == strconv.Itoa(bound) && bound != public {
				f[5] = strconv.Itoa(public)
				l = strings.Join(f, " ")
			}
			cands = append(cands, len(out))
		}
		out = append(out, l)
	}
	n := len(strings.Join(out, "\r\n"))
	for n > max && len(cands) > 1 {
		i := cands[len(cands)-1]
		cands = cands[:len(cands)-1]
		n -= len(out[i]) + 2
		out = append(out[:i], out[i+1:]...)
	}
	return strings.Join(out, "\r\n")
}

// opened counts p as connected.
func (r *rtcPeers) opened(p *rtcPeer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.peers[p.addr] == p && p.from.IsValid() {
		r.unpend(p)
	}
	r.log.Debug("webrtc: data channel open", "peer", p.addr.String())
}

// unpend takes p off the pending counts (r.mu held).
func (r *rtcPeers) unpend(p *rtcPeer) {
	if r.pending[p.from]--; r.pending[p.from] <= 0 {
		delete(r.pending, p.from)
	}
	r.npend--
	p.from = netip.Prefix{}
}

// remove closes p and forgets its address.
func (r *rtcPeers) remove(p *rtcPeer, why string) {
	r.mu.Lock()
	if r.peers[p.addr] != p {
		r.mu.Unlock()
		return
	}
	delete(r.peers, p.addr)
	if p.from.IsValid() {
		r.unpend(p)
	}
	pc := p.pc
	if pc != nil {
		r.closing.Add(1) // under mu: close waits for it
	}
	r.mu.Unlock()
	r.log.Debug("webrtc: peer closed", "peer", p.addr.String(), "why", why)
	if pc != nil {
		go func() { // not on pion's callback goroutine, which Close waits for
			defer r.closing.Done()
			pc.Close()
		}()
	}
}

// janitor closes the peers that did not open their data channel within RTCConnectTimeout and
// those silent for RTCIdle.
func (r *rtcPeers) janitor() {
	defer close(r.done)
	t := time.NewTicker(min(time.Second, r.connectTimeout/4))
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		now := time.Now()
		var old []*rtcPeer
		var whys []string
		r.mu.Lock()
		for _, p := range r.peers {
			switch {
			case p.dc.Load() == nil && now.Sub(p.since) > r.connectTimeout:
				old, whys = append(old, p), append(whys, "did not connect in time")
			case p.dc.Load() != nil && now.Sub(time.Unix(0, p.last.Load())) > r.idle:
				old, whys = append(old, p), append(whys, "silent")
			}
		}
		r.mu.Unlock()
		for i, p := range old {
			r.remove(p, whys[i])
		}
	}
}

// Peers is how many WebRTC peers the server has (connecting or open).
func (r *rtcPeers) Peers() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.peers)
}

// close closes every peer, the mux and the conn.
func (r *rtcPeers) close() {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	var pcs []*webrtc.PeerConnection
	for a, p := range r.peers {
		if p.pc != nil {
			pcs = append(pcs, p.pc)
		}
		delete(r.peers, a)
	}
	clear(r.pending)
	r.npend = 0
	r.mu.Unlock()
	close(r.stop)
	<-r.done
	for _, pc := range pcs {
		pc.Close()
	}
	r.closing.Wait()
	r.mux.Close()
	r.conn.Close()
}

var _ lobbyserver.RTCAnswerer = (*rtcPeers)(nil)
