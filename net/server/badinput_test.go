package server

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/transport"
	"github.com/rtype/rtype/net/wire"
)

// sniffSocket records the last datagram a bot sent (to learn its token and replay it).
type sniffSocket struct {
	transport.Socket
	mu   sync.Mutex
	last []byte
}

func (s *sniffSocket) WriteTo(p []byte, to netip.AddrPort) (int, error) {
	s.mu.Lock()
	s.last = append(s.last[:0], p...)
	s.mu.Unlock()
	return s.Socket.WriteTo(p, to)
}

func (s *sniffSocket) lastDatagram() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.last...)
}

// TestBadDatagramsDoNotDisturbGame: while 2 bots play, an attacker sends the instance's UDP port
// garbage, truncated datagrams, datagrams with a wrong or zero token, and spoofed datagrams (a
// real token, replayed or with a HERE naming another uuid, from another address). The game must
// not notice (both bots play to GAME_END), the server must answer the attacker nothing but
// CHALLENGEs to the datagrams with a real token, never more than 3 times their bytes, and each
// datagram must be counted under its reason by Manager.Drops — and nothing else (the bots' own
// traffic is never dropped, except their acknowledgements after their game ended): spoofed ones
// by their game too (Instance.Drops).
func TestBadDatagramsDoNotDisturbGame(t *testing.T) {
	t.Parallel()
	log, _ := newLogCapture(t)
	addr, mgr, stop := startServerTB(t, Config{Stage: "short", Logger: log})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	var socks [2]*sniffSocket
	var inGame atomic.Int32
	started := make(chan struct{})
	type runRes struct {
		res []bot.Result
		err error
	}
	done := make(chan runRes, 1)
	go func() {
		r, err := bot.Run(ctx, bot.Config{Server: addr, Players: 2,
			Socket: func(i int) (transport.Socket, error) {
				us, err := transport.ListenUDP("127.0.0.1:0")
				if err != nil {
					return nil, err
				}
				socks[i] = &sniffSocket{Socket: us}
				return socks[i], nil
			},
			OnSession: func(int, *session.Session) {
				if inGame.Add(1) == 2 {
					close(started)
				}
			}}, nil)
		done <- runRes{r, err}
	}()
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("bots never got into the game")
	}
	ins := mgr.Instances()
	if len(ins) != 1 {
		t.Fatalf("Manager.Instances() = %d instances, want 1", len(ins))
	}
	in := ins[0]
	target := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(in.Port()))
	time.Sleep(500 * time.Millisecond) // let the bots send INPUT for a while

	real := socks[0].lastDatagram()
	if len(real) < wire.HeaderSize {
		t.Fatalf("no datagram sniffed from bot 1")
	}
	token := binary.LittleEndian.Uint32(real[4:8])
	wrong := token ^ 0x5a5a5a5a
	hdr := func(tok uint32) []byte {
		return wire.Header{Token: tok, Tick: 1, Seq: 1}.Append(nil)
	}
	ping := func(tok uint32) []byte { return wire.Ping{Nonce: 1}.Append(hdr(tok)) }
	rng := rand.New(rand.NewPCG(1, 2))
	garbage := func() []byte {
		b := make([]byte, 30+rng.IntN(200))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		b[0] = 'X' // never the magic
		return b
	}
	idx := func(err error) int { return wire.ReasonIndex(err) }
	const n = 20
	type attack struct {
		name   string
		make   func() []byte
		reason int // wire.Reasons index, -1 = spoofed
	}
	attacks := []attack{
		{"garbage", garbage, idx(wire.ErrMagic)},
		{"tiny", func() []byte { return []byte{'R', 'T', 1} }, idx(wire.ErrShort)},
		{"truncated header", func() []byte { return ping(token)[:wire.HeaderSize-1] }, idx(wire.ErrShort)},
		{"truncated command", func() []byte { b := ping(token); return b[:len(b)-2] }, idx(wire.ErrSize)},
		{"oversized", func() []byte { return append(ping(token), make([]byte, 1300)...) }, idx(wire.ErrTooLarge)},
		{"wrong version", func() []byte { b := ping(token); b[2] = 9; return b }, idx(wire.ErrVersion)},
		{"flags", func() []byte { b := ping(token); b[3] = 1; return b }, idx(wire.ErrFlags)},
		{"unknown command", func() []byte { return append(hdr(token), 1, 0, 99) }, idx(wire.ErrUnknownCmd)},
		{"zero token", func() []byte { return ping(0) }, idx(wire.ErrToken)},
		{"wrong token", func() []byte { return ping(wrong) }, instance.DropUnknownToken},
		{"wrong token HERE", func() []byte { return wire.Here{UUID: uuid.New()}.Append(hdr(wrong)) }, instance.DropUnknownToken},
		{"spoofed replay", func() []byte { return socks[1].lastDatagram() }, -1},
		{"spoofed HERE", func() []byte { return wire.Here{UUID: uuid.New()}.Append(hdr(token)) }, -1},
	}
	var want instance.Drops
	var wantSpoofed, spoofedBytes uint64
	atk, err := transport.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer atk.Close()
	var answers, answerBytes uint64
	readerDone := make(chan struct{})
	go func() { // everything the server sends the attacker
		defer close(readerDone)
		var buf [2048]byte
		for {
			_ = atk.SetReadDeadline(time.Now().Add(time.Second))
			nr, _, err := atk.ReadFrom(buf[:])
			if err != nil {
				return
			}
			var h wire.Header
			r, err := wire.Open(buf[:nr], &h)
			if err != nil || !r.Next() || r.ID() != wire.CmdChallenge || r.Next() {
				t.Errorf("the server sent the attacker % x, want a lone CHALLENGE", buf[:nr])
			}
			answers++
			answerBytes += uint64(nr)
		}
	}()
	for i := 0; i < n; i++ {
		for _, a := range attacks {
			b := a.make()
			if _, err := atk.WriteTo(b, target); err != nil {
				t.Fatalf("%s: %v", a.name, err)
			}
			if a.reason < 0 {
				wantSpoofed++
				spoofedBytes += uint64(len(b))
			} else {
				want[a.reason]++
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	want[instance.DropAddress] = wantSpoofed
	<-readerDone
	// only the datagrams with a real token get an answer, a CHALLENGE, at most 3x their bytes
	if answers > wantSpoofed || answerBytes > instance.AmplificationLimit*spoofedBytes {
		t.Errorf("the server sent the attacker %d datagrams (%d bytes) for %d spoofed ones (%d bytes)",
			answers, answerBytes, wantSpoofed, spoofedBytes)
	}
	// counters are updated as datagrams are read: wait until every one is counted
	var got, inGot instance.Drops
	collect := func() {
		got = mgr.Drops()
		got[instance.DropEnded] = 0 // the bots' acknowledgements after their game ended
		inGot = in.Drops()
	}
	waitFor(5*time.Second, func() bool { collect(); return got == want && inGot[instance.DropAddress] == wantSpoofed })

	var rr runRes
	select {
	case rr = <-done:
	case <-ctx.Done():
		t.Fatal("bots did not finish")
	}
	if rr.err != nil {
		t.Errorf("bots: %v", rr.err)
	}
	for _, r := range rr.res {
		if !r.Ended() || r.Result == "aborted" {
			t.Errorf("bot %s: %s %s (want victory or defeat)", r.Bot, r.Result, r.Error)
		}
	}
	collect()
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("Manager.Drops[%s] = %d, want %d", instance.DropReasons[i], got[i], want[i])
		}
		if i != instance.DropAddress && inGot[i] != 0 {
			t.Errorf("Instance.Drops[%s] = %d, want 0 (routed datagrams are valid)", instance.DropReasons[i], inGot[i])
		}
	}
	if inGot[instance.DropAddress] != wantSpoofed {
		t.Errorf("Instance.Drops[address] = %d, want %d", inGot[instance.DropAddress], wantSpoofed)
	}
	for _, p := range in.Stats() {
		if p.DatagramsIn == 0 {
			t.Errorf("slot %d: no datagram accepted", p.Slot)
		}
	}
	_ = instance.EndLinger
}
