//go:build js

// Package webrtcjs is the browser's game link (docs/PROTOCOL.md §2.8): a transport.Socket over
// a WebRTC data channel of the browser's own RTCPeerConnection (syscall/js). The channel is the
// client's, labelled "rtype", unordered with no retransmission, so that it carries datagrams as
// UDP does: each binary message is one datagram of §3, both ways. The offer and the answer
// travel over the lobby connection (RTC_OFFER, §2.4.19): Dial is given that exchange.
package webrtcjs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
	"syscall/js"
	"time"
)

// Label is the data channel's label (§2.8).
const Label = "rtype"

// queue is how many datagrams wait for ReadFrom; more are dropped, as a full socket buffer
// drops them (the protocol copes with loss).
const queue = 256

// maxDatagram bounds what one message may carry (a larger one is dropped unread): the game's
// datagrams are far smaller (§3).
const maxDatagram = 2048

// Exchange sends the SDP offer to the server and returns its SDP answer (lobby.Client.OfferRTC).
type Exchange func(offer string) (answer string, err error)

// Socket is a transport.Socket over the data channel. Its datagrams come "from" the game
// server's address given to Dial (the session's peer), whatever the ICE path.
type Socket struct {
	pc, dc js.Value
	server netip.AddrPort
	out    js.Value // a Uint8Array the datagrams are copied into for send

	in     chan []byte
	closed chan struct{}
	once   sync.Once
	funcs  []js.Func

	mu       sync.Mutex
	deadline time.Time
}

// Dial opens a peer connection and its data channel, has exchange carry the offer, and returns
// once the channel is open (or ctx ends). server is the game's address the session talks to.
// host, when not empty, is where the page reached the lobby (an IP address or a name): its
// candidate with the game's port is added to the answer's, for a server behind a NAT that
// knows only its own interface addresses (docs/PROTOCOL.md §2.8.1, "Candidates").
func Dial(ctx context.Context, server netip.AddrPort, host string, exchange Exchange) (*Socket, error) {
	ctor := js.Global().Get("RTCPeerConnection")
	if ctor.Type() != js.TypeFunction {
		return nil, errors.New("webrtcjs: this browser has no WebRTC (RTCPeerConnection)")
	}
	s := &Socket{server: server, in: make(chan []byte, queue), closed: make(chan struct{}),
		out: js.Global().Get("Uint8Array").New(maxDatagram)}
	s.pc = ctor.New(map[string]any{"iceServers": []any{}})
	s.dc = s.pc.Call("createDataChannel", Label, map[string]any{"ordered": false, "maxRetransmits": 0})
	s.dc.Set("binaryType", "arraybuffer")
	open := make(chan struct{})
	failed := make(chan string, 1)
	s.on(s.dc, "onopen", func(js.Value) { close(open) })
	s.on(s.dc, "onclose", func(js.Value) { go s.Close() })
	s.on(s.dc, "onmessage", func(ev js.Value) {
		d := ev.Get("data")
		if d.Type() != js.TypeObject || d.Get("byteLength").Int() > maxDatagram {
			return // a text message or an oversized one: not a datagram of ours
		}
		b := make([]byte, d.Get("byteLength").Int())
		js.CopyBytesToGo(b, js.Global().Get("Uint8Array").New(d))
		select {
		case s.in <- b:
		default: // full: dropped
		}
	})
	s.on(s.pc, "onconnectionstatechange", func(js.Value) {
		switch st := s.pc.Get("connectionState").String(); st {
		case "failed", "closed":
			select {
			case failed <- st:
			default:
			}
			go s.Close()
		}
	})

	offer, err := await(ctx, s.pc.Call("createOffer"))
	if err == nil {
		_, err = await(ctx, s.pc.Call("setLocalDescription", offer))
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("webrtcjs: making the offer: %w", err)
	}
	answer, err := exchange(s.pc.Get("localDescription").Get("sdp").String())
	if err != nil {
		s.Close()
		return nil, err
	}
	if _, err := await(ctx, s.pc.Call("setRemoteDescription", map[string]any{"type": "answer", "sdp": answer})); err != nil {
		s.Close()
		return nil, fmt.Errorf("webrtcjs: the server's answer: %w", err)
	}
	if host != "" {
		c := map[string]any{"candidate": fmt.Sprintf("candidate:1 1 udp 2130706431 %s %d typ host", host, server.Port()),
			"sdpMid": answerMid(answer), "sdpMLineIndex": 0}
		if _, err := await(ctx, s.pc.Call("addIceCandidate", c)); err != nil {
			// the answer's own candidates remain: a name the browser cannot take, say
			slog.Debug("webrtcjs: the lobby host's candidate was refused", "host", host, "err", err)
		}
	}
	select {
	case <-open:
		return s, nil
	case st := <-failed:
		return nil, fmt.Errorf("webrtcjs: the connection to the game server %s (its UDP port %d) %s", server.Addr(), server.Port(), st)
	case <-ctx.Done():
		s.Close()
		return nil, fmt.Errorf("webrtcjs: no data channel to the game server %s (its UDP port %d): %w", server.Addr(), server.Port(), ctx.Err())
	}
}

// answerMid is the media id of the answer's data channel section (a=mid:), "0" when it has none.
func answerMid(sdp string) string {
	for _, l := range strings.Split(sdp, "\n") {
		if m, ok := strings.CutPrefix(strings.TrimRight(l, "\r"), "a=mid:"); ok {
			return m
		}
	}
	return "0"
}

// on sets v[name] to a Go function, released by Close.
func (s *Socket) on(v js.Value, name string, fn func(js.Value)) {
	f := js.FuncOf(func(_ js.Value, args []js.Value) any {
		var a js.Value
		if len(args) > 0 {
			a = args[0]
		}
		fn(a)
		return nil
	})
	s.funcs = append(s.funcs, f)
	v.Set(name, f)
}

// await waits for promise p.
func await(ctx context.Context, p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	ok := js.FuncOf(func(_ js.Value, args []js.Value) any {
		var v js.Value
		if len(args) > 0 {
			v = args[0]
		}
		ch <- result{v: v}
		return nil
	})
	fail := js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := "rejected"
		if len(args) > 0 {
			msg = args[0].Call("toString").String()
		}
		ch <- result{err: errors.New(msg)}
		return nil
	})
	defer ok.Release()
	defer fail.Release()
	p.Call("then", ok, fail)
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return js.Value{}, ctx.Err()
	}
}

// ReadFrom returns the next datagram, from the game server.
func (s *Socket) ReadFrom(p []byte) (int, netip.AddrPort, error) {
	s.mu.Lock()
	dl := s.deadline
	s.mu.Unlock()
	var expire <-chan time.Time
	if !dl.IsZero() {
		d := time.Until(dl)
		if d <= 0 {
			return 0, netip.AddrPort{}, os.ErrDeadlineExceeded
		}
		t := time.NewTimer(d)
		defer t.Stop()
		expire = t.C
	}
	select {
	case b := <-s.in:
		return copy(p, b), s.server, nil
	case <-expire:
		return 0, netip.AddrPort{}, os.ErrDeadlineExceeded
	case <-s.closed:
		return 0, netip.AddrPort{}, net.ErrClosed
	}
}

// WriteTo sends p as one message (to is the game server: there is no other peer).
func (s *Socket) WriteTo(p []byte, _ netip.AddrPort) (int, error) {
	select {
	case <-s.closed:
		return 0, net.ErrClosed
	default:
	}
	if len(p) > maxDatagram {
		return 0, fmt.Errorf("webrtcjs: a %d-byte datagram is over %d", len(p), maxDatagram)
	}
	if s.dc.Get("readyState").String() != "open" {
		return 0, net.ErrClosed
	}
	js.CopyBytesToJS(s.out, p)
	s.dc.Call("send", s.out.Call("subarray", 0, len(p)))
	return len(p), nil
}

// SetReadDeadline sets when a waiting ReadFrom gives up (taken at the read's start).
func (s *Socket) SetReadDeadline(t time.Time) error {
	s.mu.Lock()
	s.deadline = t
	s.mu.Unlock()
	return nil
}

// LocalAddr is the zero address: the browser does not say which port ICE chose.
func (s *Socket) LocalAddr() netip.AddrPort { return netip.AddrPort{} }

// Close closes the channel and the peer connection.
func (s *Socket) Close() error {
	s.once.Do(func() {
		close(s.closed)
		for _, h := range []string{"onopen", "onclose", "onmessage"} {
			s.dc.Set(h, js.Null())
		}
		s.pc.Set("onconnectionstatechange", js.Null())
		s.dc.Call("close")
		s.pc.Call("close")
		for _, f := range s.funcs {
			f.Release()
		}
	})
	return nil
}
