package query

import (
	"net/netip"
	"sync"
	"time"
)

// Source is what the answerer tells of the server. Both funcs run on the socket's reader: they
// must be cheap and never wait on a lock a game tick holds.
type Source struct {
	// Info is the server now (Name, Map, Players, MaxPlayers, Password, Version, Protocol,
	// LobbyPort, Lobbies, Fleet, Stages); false while it is not serving yet (its lobby is not
	// up): then queries and probes get no info.
	Info func() (Info, bool)
	// Players are the players in running games (nil: A2S_PLAYER lists none).
	Players func() []Player
}

// Answerer answers A2S_INFO, A2S_PLAYER and LAN probes (docs/PROTOCOL.md §12, §13). Before an
// address has echoed its challenge it gets only S2C_CHALLENGE, never longer than its request;
// a LAN probe is answered only when it is at least as long as the answer. Safe for concurrent
// use.
type Answerer struct {
	src  Source
	ch   *Challenger
	now  func() time.Duration
	mu   sync.Mutex
	buf  []byte
	info Info
}

// NewAnswerer answers for src; now is the clock the challenges count on (nil: the time since
// NewAnswerer).
func NewAnswerer(src Source, now func() time.Duration) *Answerer {
	if now == nil {
		start := time.Now()
		now = func() time.Duration { return time.Since(start) }
	}
	return &Answerer{src: src, ch: NewChallenger(), now: now, buf: make([]byte, 0, maxReply)}
}

// Answer handles one connectionless datagram b from from, replying through reply; it returns
// false for a datagram that is not a query or a probe (the next answerer's, or dropped). It has
// the shape of net/server's answerers (instance.Config.Connectionless with a reply func).
func (a *Answerer) Answer(b []byte, from netip.AddrPort, reply func([]byte, netip.AddrPort) error) bool {
	if len(b) < 5 || [4]byte(b[:4]) != Prefix {
		return false
	}
	switch b[4] {
	case TypeInfoRequest:
		if len(b) < InfoRequestSize || string(b[5:InfoRequestSize]) != infoPayload {
			return true // ours, malformed: dropped
		}
		var c uint32
		if len(b) >= InfoRequestFullSize {
			c = le32(b[InfoRequestSize:])
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		now := a.now()
		if !a.ch.Check(now, from, c) {
			_ = reply(AppendChallenge(a.buf[:0], a.ch.Challenge(now, from)), from)
			return true
		}
		var ok bool
		if a.info, ok = a.src.Info(); ok {
			_ = reply(AppendInfo(a.buf[:0], &a.info), from)
		}
	case TypePlayerRequest:
		if len(b) < PlayerRequestSize {
			return true
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		now := a.now()
		if !a.ch.Check(now, from, le32(b[5:])) {
			_ = reply(AppendChallenge(a.buf[:0], a.ch.Challenge(now, from)), from)
			return true
		}
		var ps []Player
		if a.src.Players != nil {
			ps = a.src.Players()
		}
		_ = reply(AppendPlayers(a.buf[:0], ps), from)
	case TypeLANProbe:
		nonce, err := ParseLANProbe(b)
		if err != nil {
			return true
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		var ok bool
		if a.info, ok = a.src.Info(); !ok {
			return true
		}
		out := AppendLANAnswer(a.buf[:0], nonce, &a.info)
		if len(out) <= len(b) { // never more than the probe
			_ = reply(out, from)
		}
	default:
		return false
	}
	return true
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
