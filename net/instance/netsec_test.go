package instance

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/transport"
	"github.com/rtype/rtype/net/wire"
)

func hereDatagram(m handoff.Member) []byte {
	b := wire.Header{Token: m.Token, Seq: 1}.Append(nil)
	b = wire.Here{UUID: m.UUID}.Append(b)
	return wire.Ping{Nonce: 1}.Append(b)
}

// A panic while a game handles a datagram ends that game as aborted (GAME_END), counted under
// "panic"; the runtime goes on serving the other games: their ticks go on and a HERE to one of
// them is answered.
func TestDatagramPanicEndsOnlyThatGame(t *testing.T) {
	stage, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	testHookReceive = func(g *Game) {
		if g.cfg.Code == "BOOM" {
			panic("injected fault in datagram handling")
		}
	}
	defer func() { testHookReceive = nil }()
	m, err := NewManager(Config{Host: "127.0.0.1", Stage: stage, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown(context.Background())
	bm, fm := members(2), members(2)
	for i := range fm {
		fm[i].Token += 100
	}
	bad, err := m.StartGame(handoff.GameSpec{Code: "BOOM", Stage: "", Members: bm})
	if err != nil {
		t.Fatal(err)
	}
	good, err := m.StartGame(handoff.GameSpec{Code: "FINE", Stage: "", Members: fm})
	if err != nil {
		t.Fatal(err)
	}
	sock, err := transport.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	srv := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(m.Port()))
	if _, err := sock.WriteTo(hereDatagram(bm[0]), srv); err != nil {
		t.Fatal(err)
	}
	select {
	case <-bad.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("the game that panicked on a datagram did not end")
	}
	if r := bad.Result(); r != uint8(rules.ResultAborted) {
		t.Errorf("result %d, want aborted (2)", r)
	}
	if d := m.Drops(); d[DropPanic] != 1 {
		t.Errorf("drops[panic] = %d, want 1", d[DropPanic])
	}
	gi := good.(*Instance)
	t1 := simTick(gi)
	if _, err := sock.WriteTo(hereDatagram(fm[0]), srv); err != nil {
		t.Fatal(err)
	}
	_ = sock.SetReadDeadline(time.Now().Add(30 * time.Second))
	var buf [2048]byte
	welcomed := false
	for !welcomed {
		n, _, err := sock.ReadFrom(buf[:])
		if err != nil {
			t.Fatalf("no WELCOME from the other game: %v", err)
		}
		var h wire.Header
		r, err := wire.Open(buf[:n], &h)
		for err == nil && r.Next() {
			welcomed = welcomed || (h.Token == fm[0].Token && r.ID() == wire.CmdWelcome)
		}
	}
	waitTicking(t, gi, t1)
	select {
	case <-good.Done():
		t.Fatal("the other game ended too")
	default:
	}
}

// StartGame racing Shutdown, 500 times: once Shutdown has returned nothing is running, a game
// that did start has ended (Done), and StartGame after it fails (goleak checks the goroutines).
func TestStartShutdownRace(t *testing.T) {
	stage, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	n := 500
	if testing.Short() {
		n = 50
	}
	started := 0
	for i := range n {
		m, err := NewManager(Config{Host: "127.0.0.1", Stage: stage, Workers: 1, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var g handoff.Game
		var startErr error
		wg.Add(1)
		go func() {
			defer wg.Done()
			g, startErr = m.StartGame(handoff.GameSpec{Code: "RACE", Stage: "", Members: members(2)})
		}()
		time.Sleep(time.Duration(i%25) * 100 * time.Microsecond) // 0 to 2.4 ms: every interleaving
		if err := m.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		if r := m.Running(); r != 0 {
			t.Fatalf("race %d: %d instances running after Shutdown returned", i, r)
		}
		wg.Wait()
		if r := m.Running(); r != 0 {
			t.Fatalf("race %d: %d instances running after Shutdown and StartGame returned", i, r)
		}
		if startErr == nil {
			started++
			select {
			case <-g.Done():
			default:
				t.Fatalf("race %d: a game started before Shutdown is not done after it", i)
			}
		} else if startErr != ErrShutdown {
			t.Fatalf("race %d: StartGame: %v", i, startErr)
		}
		if _, err := m.StartGame(handoff.GameSpec{Code: "LATE", Stage: "", Members: members(1)}); err != ErrShutdown {
			t.Fatalf("race %d: StartGame after Shutdown = %v, want ErrShutdown", i, err)
		}
	}
	t.Logf("%d of %d games started before Shutdown", started, n)
}

// The rate limiter (docs/PROTOCOL.md §6 rule 7): a source gets its burst, then its rate; other
// sources keep theirs; no allocation; fixed memory whatever the number of sources.
func TestRateLimiter(t *testing.T) {
	l := NewRateLimiter(240, 480)
	a := netip.MustParseAddrPort("192.0.2.1:4000")
	b := netip.MustParseAddrPort("192.0.2.1:4001")
	count := func(now time.Duration, src netip.AddrPort, n int) (ok int) {
		for range n {
			if l.Allow(now, src) {
				ok++
			}
		}
		return ok
	}
	now := time.Second
	if ok := count(now, a, 1000); ok != 480 {
		t.Errorf("burst: %d of 1000 allowed, want 480", ok)
	}
	if ok := count(now, b, 100); ok != 100 {
		t.Errorf("another port of the same host: %d of 100 allowed, want 100", ok)
	}
	now += time.Second
	if ok := count(now, a, 1000); ok != 240 {
		t.Errorf("after 1 s: %d allowed, want 240", ok)
	}
	// a steady 60 Hz client is never limited
	c := netip.MustParseAddrPort("[2001:db8::1]:5000")
	for i := range 600 {
		if !l.Allow(now+time.Duration(i)*time.Second/60, c) {
			t.Fatalf("a 60 Hz client limited at datagram %d", i)
		}
	}
	// a spoofed-source flood: memory stays the fixed table
	for i := range 100000 {
		l.Allow(now, netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 1))
	}
	if len(l.tat) != RateBuckets {
		t.Errorf("table grew to %d", len(l.tat))
	}
	if n := testing.AllocsPerRun(1000, func() { l.Allow(now, a) }); n != 0 {
		t.Errorf("Allow: %v allocs, want 0", n)
	}
}

// The runtime drops what a source sends over its rate, counted under "rate", before validating
// it: in virtual time (the clock stands still), exactly what is over the burst.
func TestManagerRateLimit(t *testing.T) {
	m := newManager(Config{Logger: slog.New(slog.DiscardHandler), RateLimit: 240, RateBurst: 480})
	m.clock = func() time.Duration { return time.Second }
	from := netip.MustParseAddrPort("192.0.2.7:9999")
	junk := []byte("not a datagram of ours, but long enough")
	for range 1000 {
		m.route(junk, from)
	}
	d := m.Drops()
	if d[DropRate] != 1000-480 || d[wire.ReasonIndex(wire.ErrMagic)] != 480 {
		t.Errorf("drops: rate %d, magic %d; want 520 and 480 (the burst)", d[DropRate], d[wire.ReasonIndex(wire.ErrMagic)])
	}
}

// A player who leaves the lobby mid-game (LEAVE) gets BYE reason 0 (left); one whose lobby
// connection closed, BYE reason 3 (kicked).
func TestDropSaysBye(t *testing.T) {
	ms := members(3)
	g := newTestGame(t, ms)
	for i, m := range ms {
		g.Receive(0, netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(5000+i)), hereDatagram(m))
	}
	for _, tc := range []struct {
		slot   int
		left   bool
		reason uint8
	}{{0, true, wire.ByeLeft}, {1, false, wire.ByeKicked}} {
		g.out.Reset()
		g.Drop(game.TickPeriod, ms[tc.slot].UUID, tc.left)
		var got []uint8
		for i := 0; i < g.out.Len(); i++ {
			b, to := g.out.At(i)
			var h wire.Header
			r, err := wire.Open(b, &h)
			for err == nil && r.Next() {
				if r.ID() == wire.CmdBye && to == g.peers[tc.slot].addr {
					var c wire.Bye
					_, _ = c.Parse(r.Cmd())
					got = append(got, c.Reason)
				}
			}
		}
		if len(got) != 1 || got[0] != tc.reason {
			t.Errorf("Drop(left=%v): BYE reasons %v, want [%d]", tc.left, got, tc.reason)
		}
	}
}

// A datagram of a player's token from an unbound address costs no allocation either: it is
// counted and answered with a CHALLENGE; and so does a RESPONSE that moves the session.
func TestChallengePathAllocatesNothing(t *testing.T) {
	ms := members(1)
	g := newTestGame(t, ms)
	home := netip.MustParseAddrPort("127.0.0.1:5000")
	g.Receive(0, home, hereDatagram(ms[0]))
	other := netip.MustParseAddrPort("127.0.0.1:5001")
	dg := hereDatagram(ms[0])
	for range 10 {
		g.Receive(0, other, dg)
	}
	g.out.Reset()
	if n := testing.AllocsPerRun(200, func() { g.Receive(0, other, dg); g.out.Reset() }); n != 0 {
		t.Errorf("challenge: %v allocs per datagram, want 0", n)
	}
	if d := g.Drops(); d[DropAddress] < 200 {
		t.Errorf("drops[address] = %d, want >= 200", d[DropAddress])
	}
	// answer the last CHALLENGE as the client does, from the new address
	g.Receive(0, other, dg)
	b, to := g.out.At(0)
	var h wire.Header
	r, err := wire.Open(b, &h)
	if err != nil || !r.Next() || r.ID() != wire.CmdChallenge || to != other || len(b) > AmplificationLimit*len(dg) {
		t.Fatalf("answer % x to %v, want a CHALLENGE to %v of at most 3x %d bytes", b, to, other, len(dg))
	}
	var c wire.Challenge
	_, _ = c.Parse(r.Cmd())
	pr := wire.NewProver(ms[0].Key)
	resp := wire.Header{Token: ms[0].Token, Seq: 2}.Append(nil)
	resp = wire.Response{Nonce: c.Nonce, Proof: pr.Proof(ms[0].Token, &c.Nonce)}.Append(resp)
	g.out.Reset()
	if n := testing.AllocsPerRun(1, func() { g.Receive(time.Millisecond, other, resp) }); n != 0 {
		t.Errorf("move: %v allocs, want 0", n)
	}
	if g.peers[0].addr != other || g.peers[0].moves != 1 {
		t.Errorf("session at %v after %d moves, want %v", g.peers[0].addr, g.peers[0].moves, other)
	}
}

// The drop log of a flood: the first drop of a reason in a second at Debug, the rest counted and
// reported once the second is over, at Warn from FloodLine on, with the last source — by the
// next drop, or by the schedule's flush when the flood has stopped.
func TestDropLogSummarisesFloods(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var d dropLog
	src := netip.MustParseAddrPort("192.0.2.7:4000")
	for i := range FloodLine + 1 {
		d.note(log, time.Duration(i)*time.Microsecond, DropRate, src)
	}
	if buf.Len() != 0 {
		t.Fatalf("logged within the second: %s", buf.String())
	}
	d.flush(log, 500*time.Millisecond)
	if buf.Len() != 0 {
		t.Fatalf("flushed before the second was over: %s", buf.String())
	}
	d.flush(log, 1500*time.Millisecond) // the flood stopped: no further drop comes
	line := buf.String()
	for _, want := range []string{"level=WARN", "reason=rate", "count=1000", "seconds=1.5", "last_from=192.0.2.7:4000"} {
		if !strings.Contains(line, want) {
			t.Errorf("flood summary %q lacks %q", line, want)
		}
	}
	buf.Reset()
	d.flush(log, 3*time.Second)
	d.note(log, 3*time.Second, DropRate, src) // a new second: only a Debug line
	if buf.Len() != 0 {
		t.Errorf("logged again with nothing new: %s", buf.String())
	}
	if allocs := testing.AllocsPerRun(100, func() { d.note(log, 3*time.Second+time.Millisecond, DropRate, src) }); allocs != 0 {
		t.Errorf("%.0f allocations per drop counted, want 0", allocs)
	}
}

// Token probing (issue 19): a live token from an unbound address gets a CHALLENGE, so the
// runtime sends each source network (an IPv4 address, an IPv6 /64) ChallengeBurst of them at
// once and ChallengeRate per second after, whatever ports or addresses within it the probes come
// from; another network has its own budget.
func TestChallengesLimitedPerSourceNetwork(t *testing.T) {
	stage, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	// in virtual time: the clock stands still, so no budget refills during the probes
	m := newManager(Config{Stage: stage, Logger: slog.New(slog.DiscardHandler)})
	m.clock = func() time.Duration { return time.Second }
	m.sock = discardSocket{}
	ms := members(1)
	ms[0].Key = [16]byte{1}
	gm, err := m.StartGame(handoff.GameSpec{Code: "PROBE", Members: ms})
	if err != nil {
		t.Fatal(err)
	}
	in := gm.(*Instance)
	m.route(hereDatagram(ms[0]), netip.MustParseAddrPort("127.0.0.1:5000"))
	challenges := func() uint64 {
		in.mu.Lock()
		defer in.mu.Unlock()
		return in.g.peers[0].challenges
	}
	probe := func(from string, n int) uint64 {
		before := challenges()
		ap := netip.MustParseAddrPort(from)
		for i := 0; i < n; i++ {
			// a new port each time: the datagram rate limit (per address and port) lets them all in
			m.route(hereDatagram(ms[0]), netip.AddrPortFrom(ap.Addr(), ap.Port()+uint16(i)))
		}
		return challenges() - before
	}
	if got := probe("127.0.0.2:1000", 300); got != ChallengeBurst {
		t.Errorf("300 probes from one IPv4 address got %d CHALLENGEs, want %d", got, ChallengeBurst)
	}
	if got := probe("127.0.0.3:1000", 5); got != 5 {
		t.Errorf("5 probes from another address got %d CHALLENGEs, want 5", got)
	}
	// IPv6: the /64 is one network, whatever the interface identifiers
	got := uint64(0)
	for i := 0; i < 300; i++ {
		a := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 0, 0, 0, byte(i >> 8), byte(i), 0, 1})
		got += probe(netip.AddrPortFrom(a, 4000).String(), 1)
	}
	if got != ChallengeBurst {
		t.Errorf("300 probes from 300 addresses of one /64 got %d CHALLENGEs, want %d", got, ChallengeBurst)
	}
	other := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 2, 15: 1})
	if got := probe(netip.AddrPortFrom(other, 4000).String(), 3); got != 3 {
		t.Errorf("3 probes from another /64 got %d CHALLENGEs, want 3", got)
	}
}

// discardSocket is the game socket of a Manager in virtual time (newManager): what the games
// send goes nowhere.
type discardSocket struct{}

func (discardSocket) ReadFrom([]byte) (int, netip.AddrPort, error) {
	return 0, netip.AddrPort{}, net.ErrClosed
}
func (discardSocket) WriteTo(p []byte, _ netip.AddrPort) (int, error) { return len(p), nil }
func (discardSocket) SetReadDeadline(time.Time) error                 { return nil }
func (discardSocket) LocalAddr() netip.AddrPort                       { return netip.AddrPort{} }
func (discardSocket) Close() error                                    { return nil }

// Datagrams that are not the game protocol's go to Config.Connectionless after the rate limit:
// what it takes is not counted as dropped, what it declines is dropped as "magic", and a game
// datagram never reaches it.
func TestConnectionlessHook(t *testing.T) {
	var got []string
	m := newManager(Config{Logger: slog.New(slog.DiscardHandler), RateLimit: 240, RateBurst: 10,
		Connectionless: func(b []byte, from netip.AddrPort) bool {
			got = append(got, string(b))
			return b[0] == 0xFF
		}})
	m.clock = func() time.Duration { return time.Second }
	from := netip.MustParseAddrPort("192.0.2.7:9999")
	m.route([]byte("\xff\xff\xff\xffTSource Engine Query\x00"), from)
	m.route([]byte("junk, but as long as a header is"), from)
	m.route(hereDatagram(members(1)[0]), from) // "RT…": the game's, an unknown token
	for range 20 {
		m.route([]byte("\xff\xff\xff\xffflood"), from)
	}
	d := m.Drops()
	if len(got) != 2+7 || got[1][:4] != "junk" {
		t.Errorf("handler saw %d datagrams (%q…), want 9: 2, then the 7 left of the burst of 10", len(got), got[:min(2, len(got))])
	}
	if d[wire.ReasonIndex(wire.ErrMagic)] != 1 || d[DropUnknownToken] != 1 || d[DropRate] != 13 {
		t.Errorf("drops: magic %d, unknown token %d, rate %d; want 1, 1, 13", d[wire.ReasonIndex(wire.ErrMagic)], d[DropUnknownToken], d[DropRate])
	}
}
