package query

import (
	"bytes"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sample is the server of the examples in docs/PROTOCOL.md §12 (testdata/query).
func sampleInfo() Info {
	return Info{Name: "Ring of Fire", Map: "stage1", Players: 3, MaxPlayers: 32, Version: "v1.4.0", Protocol: 4,
		LobbyPort: 4242, Lobbies: 2, Stages: []string{"stage1", "short"}}
}

// sample is sampleInfo as a Source's Info.
func sample() (Info, bool) { return sampleInfo(), true }

// fixed is a Source's Info of in.
func fixed(in Info) func() (Info, bool) { return func() (Info, bool) { return in, true } }

// captured is an answerer's replies.
type captured struct {
	out []datagram
}

type datagram struct {
	b  []byte
	to netip.AddrPort
}

func (c *captured) reply(b []byte, to netip.AddrPort) error {
	c.out = append(c.out, datagram{append([]byte(nil), b...), to})
	return nil
}

func (c *captured) last(t *testing.T) []byte {
	t.Helper()
	if len(c.out) == 0 {
		t.Fatal("no reply")
	}
	return c.out[len(c.out)-1].b
}

// vclock is a virtual clock.
type vclock struct{ now time.Duration }

func (v *vclock) Now() time.Duration { return v.now }

func newTestAnswerer(src Source) (*Answerer, *vclock) {
	c := &vclock{now: time.Hour}
	return NewAnswerer(src, c.Now), c
}

// The A2S_INFO reply carries every field a monitor shows and reads back the same.
func TestInfoRoundTrip(t *testing.T) {
	in := sampleInfo()
	in.Password, in.Fleet = true, true
	got, err := ParseInfo(AppendInfo(nil, &in))
	if err != nil {
		t.Fatal(err)
	}
	in.Folder, in.Game, in.Environment = Folder, GameName, defaultEnvironment
	if !reflect.DeepEqual(got, in) {
		t.Fatalf("read back\n %+v\nwant\n %+v", got, in)
	}
}

// Strings are cut to their limits and lose their NULs: the reply stays one datagram, well formed.
func TestInfoLimits(t *testing.T) {
	long := strings.Repeat("é", 200)
	in := Info{Name: "a\x00b" + long, Map: long, Version: long, Players: 900, MaxPlayers: -3, LobbyPort: 4242}
	for range 100 {
		in.Stages = append(in.Stages, "stage-with-a-long-name")
	}
	b := AppendInfo(nil, &in)
	if len(b)-5 > MaxInfoBody {
		t.Fatalf("reply body %d bytes, MaxInfoBody %d", len(b)-5, MaxInfoBody)
	}
	got, err := ParseInfo(b)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.Name, "abé") || len(got.Name) > maxField || got.Players != 255 || got.MaxPlayers != 0 {
		t.Fatalf("got name %q (%d bytes), players %d/%d", got.Name, len(got.Name), got.Players, got.MaxPlayers)
	}
	if len(got.Stages) == 0 || len(got.Stages) == 100 {
		t.Fatalf("%d stages in the keywords, want some, cut to fit", len(got.Stages))
	}
}

// Truncated and foreign datagrams are refused with an error, never a panic.
func TestParseBad(t *testing.T) {
	in := sampleInfo()
	full := AppendInfo(nil, &in)
	for n := range len(full) - 1 {
		if _, err := ParseInfo(full[:n]); err == nil && n < len(full)-len(keywords(&in))-4 {
			t.Fatalf("a reply cut at %d bytes parsed", n)
		}
	}
	ps := AppendPlayers(nil, []Player{{Name: "ann", Score: 5}})
	for n := range len(ps) {
		if _, err := ParsePlayers(ps[:n]); err == nil {
			t.Fatalf("a player reply cut at %d bytes parsed", n)
		}
	}
	// a count that the datagram cannot hold
	if _, err := ParsePlayers([]byte{0xFF, 0xFF, 0xFF, 0xFF, 'D', 200, 0}); err == nil {
		t.Fatal("200 players in 7 bytes parsed")
	}
	if _, err := ParseInfo([]byte("RT\x00\x00I")); err != ErrPrefix {
		t.Fatalf("err %v, want ErrPrefix", err)
	}
}

// The full exchange gamedig and every Source client make: a first request gets a challenge no
// longer than itself, the request with the challenge gets the reply.
func TestAnswerInfoChallenge(t *testing.T) {
	in := sampleInfo()
	a, _ := newTestAnswerer(Source{Info: fixed(in)})
	from := netip.MustParseAddrPort("192.0.2.7:27005")
	var c captured
	req := AppendInfoRequest(nil, 0)
	if !a.Answer(req, from, c.reply) {
		t.Fatal("A2S_INFO not taken")
	}
	ch, err := ParseChallenge(c.last(t))
	if err != nil {
		t.Fatalf("first reply: %v (% x)", err, c.last(t))
	}
	if len(c.last(t)) > len(req) {
		t.Fatalf("challenge %d bytes to an unproven %d-byte request", len(c.last(t)), len(req))
	}
	a.Answer(AppendInfoRequest(nil, ch), from, c.reply)
	got, err := ParseInfo(c.last(t))
	if err != nil || got.Name != in.Name || got.Map != in.Map || got.Players != in.Players {
		t.Fatalf("reply %+v, %v", got, err)
	}
	if c.out[len(c.out)-1].to != from {
		t.Fatalf("reply to %v, want %v", c.out[len(c.out)-1].to, from)
	}
}

// Nothing larger than the request goes to an address that has not echoed its challenge: not with
// no challenge, another address's, an old one, or a guess.
func TestAnswerNeverAmplifiesUnproven(t *testing.T) {
	in := sampleInfo()
	ps := []Player{{Name: strings.Repeat("x", 64), Score: 1}, {Name: "b"}}
	a, clk := newTestAnswerer(Source{Info: fixed(in), Players: func() []Player { return ps }})
	victim := netip.MustParseAddrPort("198.51.100.1:27015")
	attacker := netip.MustParseAddrPort("203.0.113.9:4000")
	attackers := a.ch.Challenge(clk.now, attacker)
	old := a.ch.Challenge(clk.now-3*ChallengeWindow, victim)
	var c captured
	for _, req := range [][]byte{
		AppendInfoRequest(nil, 0), AppendInfoRequest(nil, attackers), AppendInfoRequest(nil, old), AppendInfoRequest(nil, 0x12345678),
		AppendPlayerRequest(nil, NoChallenge), AppendPlayerRequest(nil, attackers), AppendPlayerRequest(nil, old), AppendPlayerRequest(nil, 0),
	} {
		c.out = nil
		if !a.Answer(req, victim, c.reply) {
			t.Fatalf("% x not taken", req)
		}
		if _, err := ParseChallenge(c.last(t)); err != nil || len(c.last(t)) > len(req) {
			t.Fatalf("% x got % x: want a challenge no longer than the request", req, c.last(t))
		}
	}
}

// A challenge lives one to two ChallengeWindows: accepted in its window and the next, refused
// after.
func TestChallengeLifetime(t *testing.T) {
	ch := NewChallenger()
	addr := netip.MustParseAddrPort("[2001:db8::1]:5000")
	now := 100 * ChallengeWindow
	v := ch.Challenge(now, addr)
	for _, dt := range []time.Duration{0, ChallengeWindow - 1, 2*ChallengeWindow - 1} {
		if !ch.Check(now+dt, addr, v) {
			t.Fatalf("refused %v after it was issued", dt)
		}
	}
	if ch.Check(now+2*ChallengeWindow, addr, v) {
		t.Fatal("accepted two windows later")
	}
	if ch.Check(now, netip.MustParseAddrPort("[2001:db8::1]:5001"), v) {
		t.Fatal("accepted from another port")
	}
	if NewChallenger().Check(now, addr, v) {
		t.Fatal("another server's secret accepted it")
	}
}

// A2S_PLAYER lists the players, at most MaxPlayersListed, in one datagram however long their names.
func TestAnswerPlayers(t *testing.T) {
	var ps []Player
	for i := range 100 {
		ps = append(ps, Player{Name: strings.Repeat("n", 100) + string(rune('a'+i%26)), Score: int32(i * 10), Duration: 12.5})
	}
	a, clk := newTestAnswerer(Source{Info: sample, Players: func() []Player { return ps }})
	from := netip.MustParseAddrPort("192.0.2.7:27005")
	var c captured
	a.Answer(AppendPlayerRequest(nil, a.ch.Challenge(clk.now, from)), from, c.reply)
	b := c.last(t)
	if len(b) > maxReply {
		t.Fatalf("player reply %d bytes, over the %d-byte datagram", len(b), maxReply)
	}
	got, err := ParsePlayers(b)
	if err != nil || len(got) != MaxPlayersListed || got[1].Score != 10 || got[1].Duration != 12.5 {
		t.Fatalf("got %d players (%v), want %d", len(got), err, MaxPlayersListed)
	}
}

// A LAN probe is answered with the server's info only when it is at least as long as the answer.
func TestAnswerLANProbe(t *testing.T) {
	in := sampleInfo()
	a, _ := newTestAnswerer(Source{Info: fixed(in)})
	from := netip.MustParseAddrPort("10.0.0.2:40000")
	var c captured
	probe := AppendLANProbe(nil, 0x0102030405060708)
	if len(probe) != LANProbeSize {
		t.Fatalf("probe %d bytes, want %d", len(probe), LANProbeSize)
	}
	a.Answer(probe, from, c.reply)
	nonce, got, err := ParseLANAnswer(c.last(t))
	if err != nil || nonce != 0x0102030405060708 || got.Name != in.Name || got.LobbyPort != 4242 {
		t.Fatalf("answer %+v nonce %x: %v", got, nonce, err)
	}
	if len(c.last(t)) > len(probe) {
		t.Fatal("answer longer than the probe")
	}
	// the longest info still fits the probe
	long := Info{Name: strings.Repeat("n", 100), Map: strings.Repeat("m", 100), Version: strings.Repeat("v", 100), Folder: strings.Repeat("f", 100), Game: strings.Repeat("g", 100), Lobbies: 1 << 30, Fleet: true}
	for range 50 {
		long.Stages = append(long.Stages, "stage")
	}
	if n := len(AppendLANAnswer(nil, 1, &long)); n > LANProbeSize {
		t.Fatalf("longest answer %d bytes, probe %d", n, LANProbeSize)
	}
	// an unpadded probe gets nothing
	c.out = nil
	short := probe[:lanProbeMin+40]
	if !a.Answer(short, from, c.reply) || len(c.out) != 0 {
		t.Fatalf("unpadded %d-byte probe: %d replies, want it taken and unanswered", len(short), len(c.out))
	}
}

// Datagrams that are not queries are left to the next answerer.
func TestAnswerLeavesOthers(t *testing.T) {
	a, _ := newTestAnswerer(Source{Info: sample})
	var c captured
	for _, b := range [][]byte{nil, {0xFF}, []byte("RT\x04"), {0xFF, 0xFF, 0xFF, 0xFF, 'r', 1, 2}, {0xFF, 0xFF, 0xFF, 0xFE, 'T'}} {
		if a.Answer(b, netip.MustParseAddrPort("192.0.2.1:1"), c.reply) {
			t.Fatalf("% x taken", b)
		}
	}
	if len(c.out) != 0 {
		t.Fatal("replied to a datagram it did not take")
	}
}

// Unproven traffic costs no allocation: a flood of first requests allocates nothing.
func TestChallengeDoesNotAllocate(t *testing.T) {
	a, _ := newTestAnswerer(Source{Info: sample})
	req := AppendInfoRequest(nil, 0)
	preq := AppendPlayerRequest(nil, NoChallenge)
	from := netip.MustParseAddrPort("192.0.2.1:1")
	var sent int
	reply := func(b []byte, _ netip.AddrPort) error { sent += len(b); return nil }
	n := testing.AllocsPerRun(1000, func() {
		a.Answer(req, from, reply)
		a.Answer(preq, from, reply)
	})
	if n != 0 || sent == 0 {
		t.Fatalf("%v allocations per challenge pair (%d bytes sent), want 0", n, sent)
	}
}

var _ = bytes.Equal

// A server that is not serving yet answers neither queries nor probes with info.
func TestAnswerNotReady(t *testing.T) {
	a, clk := newTestAnswerer(Source{Info: func() (Info, bool) { return Info{}, false }})
	from := netip.MustParseAddrPort("192.0.2.7:27005")
	var c captured
	a.Answer(AppendInfoRequest(nil, a.ch.Challenge(clk.now, from)), from, c.reply)
	a.Answer(AppendLANProbe(nil, 1), from, c.reply)
	if len(c.out) != 0 {
		t.Fatalf("%d replies before the server serves", len(c.out))
	}
}

// The cost of answering one unproven A2S_INFO request (an HMAC and a 9-byte reply) and one proven
// one (the check, Info and the reply).
func BenchmarkAnswerInfo(b *testing.B) {
	in := sampleInfo()
	a := NewAnswerer(Source{Info: fixed(in)}, nil)
	from := netip.MustParseAddrPort("192.0.2.1:1")
	reply := func([]byte, netip.AddrPort) error { return nil }
	b.Run("unproven", func(b *testing.B) {
		req := AppendInfoRequest(nil, 0)
		b.ReportAllocs()
		for b.Loop() {
			a.Answer(req, from, reply)
		}
	})
	b.Run("proven", func(b *testing.B) {
		req := AppendInfoRequest(nil, a.ch.Challenge(a.now(), from))
		b.ReportAllocs()
		for b.Loop() {
			a.Answer(req, from, reply)
		}
	})
}
