package transport

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestSeqGreater(t *testing.T) {
	for _, c := range []struct {
		a, b uint16
		want bool
	}{
		{1, 0, true}, {0, 1, false}, {5, 5, false},
		{0, 65535, true}, {65535, 0, false}, {10, 65530, true},
		{32767, 0, true}, {32768, 0, false}, {40000, 10000, true},
	} {
		if got := SeqGreater(c.a, c.b); got != c.want {
			t.Errorf("SeqGreater(%d, %d) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// The first datagram carries seq 1 and "nothing received" (ack 0, ackBits 0, relAck 0), as in
// testdata/wire/datagram_here.hex; Seq() always announces what HeaderFields will stamp.
func TestFirstDatagramHeader(t *testing.T) {
	var e Endpoint
	if got := e.Seq(); got != 1 {
		t.Fatalf("Seq() before the first datagram = %d, want 1", got)
	}
	seq, ack, bits, rel := e.HeaderFields(0)
	if seq != 1 || ack != 0 || bits != 0 || rel != 0 {
		t.Fatalf("first header = seq %d ack %d bits %#x relAck %d, want 1 0 0 0", seq, ack, bits, rel)
	}
	for want := uint16(2); want < 6; want++ {
		if e.Seq() != want {
			t.Fatalf("Seq() = %d, want %d", e.Seq(), want)
		}
		if seq, _, _, _ := e.HeaderFields(0); seq != want {
			t.Fatalf("HeaderFields seq = %d, want %d", seq, want)
		}
	}
}

// A peer that has received nothing yet sends ack 0 / ackBits 0: that must not acknowledge any of
// our datagrams (our first one, lost on the way, would otherwise count as acked and, through
// OnAck, become a replication baseline the client never had).
func TestNothingReceivedAcksNothing(t *testing.T) {
	var a, b Endpoint
	acked := 0
	a.OnAck = func(uint16) { acked++ }
	a.HeaderFields(0) // a's first datagram: lost
	a.HeaderFields(10 * time.Millisecond)
	seq, ack, bits, rel := b.HeaderFields(20 * time.Millisecond) // b has received nothing
	a.Receive(seq, ack, bits, rel, 30*time.Millisecond)
	if acked != 0 || a.AckedCount != 0 {
		t.Fatalf("a peer that received nothing acknowledged %d datagram(s) (AckedCount %d)", acked, a.AckedCount)
	}
	if a.RTT() != 0 {
		t.Fatalf("RTT sample from a non-ack: %v", a.RTT())
	}
}

// ackBits: bit i says seq ack-1-i was received, for exactly the 32 seqs before ack, with
// out-of-order arrivals filling their bit.
func TestAckBitsWindow(t *testing.T) {
	var e Endpoint
	received := map[uint16]bool{}
	recv := func(s uint16) {
		t.Helper()
		if dup := e.Receive(s, 0, 0, 0, 0); dup {
			t.Fatalf("seq %d reported duplicate", s)
		}
		received[s] = true
	}
	check := func(newest uint16) {
		t.Helper()
		_, ack, bits, _ := e.HeaderFields(0)
		if ack != newest {
			t.Fatalf("ack = %d, want %d", ack, newest)
		}
		for i := range 32 {
			s := ack - 1 - uint16(i)
			if got, want := bits&(1<<i) != 0, received[s]; got != want {
				t.Fatalf("ack %d: bit %d (seq %d) = %v, want %v (bits %032b)", ack, i, s, got, want, bits)
			}
		}
	}
	// 1..40 except 7, 20 and 35, then 20 late.
	for s := uint16(1); s <= 40; s++ {
		if s != 7 && s != 20 && s != 35 {
			recv(s)
		}
	}
	check(40)
	if bits := func() uint32 { _, _, b, _ := e.HeaderFields(0); return b }(); bits&(1<<31) == 0 {
		t.Fatal("bit 31 (seq ack-32) not set although received")
	}
	recv(20)
	check(40)
	// A jump of exactly 32 keeps the old newest at bit 31; older history is gone.
	recv(72)
	check(72)
	_, _, bits, _ := e.HeaderFields(0)
	if bits != 1<<31 {
		t.Fatalf("after a jump of 32: bits %032b, want only bit 31", bits)
	}
	// A jump of 33 forgets everything.
	recv(105)
	_, _, bits, _ = e.HeaderFields(0)
	if bits != 0 {
		t.Fatalf("after a jump of 33: bits %032b, want 0", bits)
	}
	// Across the u16 wrap (a new peer).
	e = Endpoint{}
	clear(received)
	for s := uint16(65530); s != 3; s++ {
		if s != 65534 && s != 1 {
			recv(s)
		}
	}
	check(2)
}

// LostIn counts gaps when a newer datagram arrives; a late one within the window takes its count
// back; duplicates (same seq, or older than the window) change nothing but Duplicates.
func TestLostInAndDuplicates(t *testing.T) {
	var e Endpoint
	step := func(seq uint16, wantDup bool, wantLost, wantRecv, wantDups uint64) {
		t.Helper()
		if dup := e.Receive(seq, 0, 0, 0, 0); dup != wantDup {
			t.Fatalf("Receive(%d) duplicate = %v, want %v", seq, dup, wantDup)
		}
		if e.LostIn != wantLost || e.Received != wantRecv || e.Duplicates != wantDups {
			t.Fatalf("after seq %d: LostIn %d Received %d Duplicates %d, want %d %d %d",
				seq, e.LostIn, e.Received, e.Duplicates, wantLost, wantRecv, wantDups)
		}
	}
	step(1, false, 0, 1, 0)
	step(2, false, 0, 2, 0)
	step(5, false, 2, 3, 0) // 3, 4 missing
	step(5, true, 2, 3, 1)  // duplicate of the newest
	step(3, false, 1, 4, 1) // late
	step(3, true, 1, 4, 2)  // duplicate of a late one
	step(2, true, 1, 4, 3)  // duplicate of an old one
	step(4, false, 0, 5, 3)
	step(50, false, 44, 6, 3) // 6..49 missing (jump beyond the window)
	step(10, true, 44, 6, 4)  // older than the window: cannot be told from a duplicate, dropped
	step(49, false, 43, 7, 4)
	// Across the wrap: 65535 then 2 → seq 0 and 1 missing.
	var w Endpoint
	w.Receive(65534, 0, 0, 0, 0)
	w.Receive(65535, 0, 0, 0, 0)
	w.Receive(2, 0, 0, 0, 0)
	if w.LostIn != 2 {
		t.Fatalf("gap across the wrap: LostIn %d, want 2", w.LostIn)
	}
	if w.Receive(0, 0, 0, 0, 0) || w.LostIn != 1 {
		t.Fatalf("late seq 0 across the wrap: LostIn %d, want 1", w.LostIn)
	}
}

// Acks in a lossy, duplicating, reordering exchange: every datagram the peer received is
// acknowledged exactly once, none that it did not receive; duplicates are detected; LostIn and
// Received match the truth.
func TestExchangeAcksLossy(t *testing.T) {
	x := newExchange(t, 1, linkCfg{delay: 40 * time.Millisecond, jitter: 15 * time.Millisecond, loss: 0.2, dup: 0.1, reorder: 0.1})
	for range 5000 {
		x.send(0, nil)
		x.send(1, nil)
		x.step()
	}
	x.checkLostIn()
	if x.dupSeen[0] == 0 || x.dupSeen[1] == 0 {
		t.Fatalf("no duplicate seen (%v): the exchange does not exercise duplicate detection", x.dupSeen)
	}
	for s := range 2 {
		lost := float64(x.ep[s].LostIn) / float64(len(x.delivered[1-s]))
		if lost < 0.15 || lost > 0.25 {
			t.Errorf("side %d: LostIn %d of %d = %.3f, want ≈ 0.2", s, x.ep[s].LostIn, len(x.delivered[1-s]), lost)
		}
	}
	x.cfg = linkCfg{delay: 40 * time.Millisecond}
	for range 50 {
		x.send(0, nil)
		x.send(1, nil)
		x.step()
	}
	x.checkAcks(10)
	t.Logf("side 0: sent %d acked %d lostIn %d dups %d; side 1: sent %d acked %d lostIn %d dups %d",
		x.ep[0].SentCount, x.ep[0].AckedCount, x.ep[0].LostIn, x.ep[0].Duplicates,
		x.ep[1].SentCount, x.ep[1].AckedCount, x.ep[1].LostIn, x.ep[1].Duplicates)
}

// The u16 seq wraps (more than 70000 datagrams each way) without losing acks, inventing acks or
// confusing duplicates.
func TestExchangeSeqWrap(t *testing.T) {
	x := newExchange(t, 2, linkCfg{delay: 30 * time.Millisecond, jitter: 5 * time.Millisecond, loss: 0.05, dup: 0.02, reorder: 0.02})
	const n = 70500
	for range n {
		x.send(0, nil)
		x.send(1, nil)
		x.step()
		if t.Failed() {
			t.FailNow()
		}
	}
	x.cfg = linkCfg{delay: 30 * time.Millisecond}
	for range 20 {
		x.send(0, nil)
		x.send(1, nil)
		x.step()
	}
	x.checkAcks(10)
	x.checkLostIn()
	if want := uint16((n + 21) % 65536); x.ep[0].Seq() != want {
		t.Fatalf("Seq() = %d after %d datagrams, want %d", x.ep[0].Seq(), n+20, want)
	}
	if x.ep[0].AckedCount < uint64(0.9*n) {
		t.Fatalf("only %d of %d datagrams acked", x.ep[0].AckedCount, n)
	}
}

// RTT converges to the simulated round trip (the peer answers on the tick it receives) and follows
// a change of delay; jitter stays ~0 on a constant delay and grows with a jittery one.
func TestRTTConverges(t *testing.T) {
	x := newExchange(t, 3, linkCfg{delay: 40 * time.Millisecond})
	run := func(n int) {
		for range n {
			x.send(0, nil)
			x.send(1, nil)
			x.step()
		}
	}
	run(100)
	if rtt := x.ep[0].RTT(); absDur(rtt-80*time.Millisecond) > time.Millisecond {
		t.Fatalf("RTT %v, want 80ms", rtt)
	}
	if j := x.ep[0].Jitter(); j > time.Millisecond {
		t.Fatalf("Jitter %v on a constant delay, want ≈ 0", j)
	}
	x.cfg.delay = 100 * time.Millisecond
	run(300)
	if rtt := x.ep[0].RTT(); absDur(rtt-200*time.Millisecond) > 2*time.Millisecond {
		t.Fatalf("RTT %v after the delay grew, want 200ms", rtt)
	}
	if rtt := x.ep[1].RTT(); absDur(rtt-200*time.Millisecond) > 2*time.Millisecond {
		t.Fatalf("peer RTT %v, want 200ms", rtt)
	}
	x.cfg.jitter = 20 * time.Millisecond
	run(500)
	if rtt := x.ep[0].RTT(); rtt < 190*time.Millisecond || rtt > 225*time.Millisecond {
		t.Fatalf("RTT %v with ±20ms jitter each way, want ≈ 200-215ms", rtt)
	}
	if j := x.ep[0].Jitter(); j < 3*time.Millisecond || j > 30*time.Millisecond {
		t.Fatalf("Jitter %v with ±20ms jitter each way, want a few ms", j)
	}
}

func TestAddRTTSample(t *testing.T) {
	var e Endpoint
	if e.RTT() != 0 || e.Jitter() != 0 {
		t.Fatal("RTT/Jitter not 0 before any sample")
	}
	e.AddRTTSample(-time.Millisecond)
	if e.RTT() != 0 {
		t.Fatal("a negative sample was used")
	}
	e.AddRTTSample(100 * time.Millisecond)
	if e.RTT() != 100*time.Millisecond || e.Jitter() != 50*time.Millisecond {
		t.Fatalf("first sample: RTT %v Jitter %v, want 100ms 50ms", e.RTT(), e.Jitter())
	}
	e.AddRTTSample(200 * time.Millisecond)
	if absDur(e.RTT()-112500*time.Microsecond) > time.Microsecond || absDur(e.Jitter()-62500*time.Microsecond) > time.Microsecond {
		t.Fatalf("second sample: RTT %v Jitter %v, want 112.5ms 62.5ms (RFC 6298)", e.RTT(), e.Jitter())
	}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// The reliable channel over a lossy, duplicating, reordering exchange: 5000 commands each way are
// delivered exactly once and in order, and the senders end with nothing pending.
func TestReliableLossyExchange(t *testing.T) {
	const total = 5000
	x := newExchange(t, 4, linkCfg{delay: 35 * time.Millisecond, jitter: 10 * time.Millisecond, loss: 0.2, dup: 0.1, reorder: 0.1})
	var got [2][]uint32
	var rejected [2]int
	x.onPayload = func(to int, p []byte) {
		parseRel(t, p, func(id uint16, cmd []byte) {
			if !x.ep[to].AcceptReliable(id) {
				rejected[to]++
				return
			}
			if len(cmd) != 7 || cmd[2] != 0x06 {
				t.Fatalf("side %d: reliable %d carries % x, want a test command", to, id, cmd)
			}
			got[to] = append(got[to], binary.LittleEndian.Uint32(cmd[3:]))
		})
	}
	var next [2]uint32
	var full [2]int
	buf := make([]byte, 0, 1200)
	ticks := 0
	for ; ticks < 30000 && (len(got[0]) < total || len(got[1]) < total || x.ep[0].Pending() > 0 || x.ep[1].Pending() > 0); ticks++ {
		for s := range 2 {
			// A burst of new commands each tick, more than the link can carry: the window fills.
			for k := 0; k < 100 && next[s] < total; k++ {
				err := x.ep[s].SendReliable(testCmd(buf[:0], next[s]))
				if errors.Is(err, ErrReliableFull) {
					full[s]++
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				next[s]++
			}
			b := x.ep[s].AppendReliable(buf[:22], 1200, x.now, relREL) // 22: room for the header
			if len(b) > 1200 {
				t.Fatalf("AppendReliable wrote %d bytes, limit 1200", len(b))
			}
			x.send(s, b[22:])
		}
		x.step()
	}
	for s := range 2 {
		r := 1 - s
		if len(got[r]) != total {
			t.Errorf("side %d delivered %d of %d commands after %d ticks", r, len(got[r]), total, ticks)
		}
		for i, k := range got[r] {
			if k != uint32(i) {
				t.Fatalf("side %d: delivery #%d is command %d (duplicate or out of order)", r, i, k)
			}
		}
		if p := x.ep[s].Pending(); p != 0 {
			t.Errorf("side %d: %d reliable commands still pending", s, p)
		}
		if x.ep[s].Resends == 0 || rejected[r] == 0 {
			t.Errorf("side %d: %d resends, peer rejected %d: the exchange did not exercise recovery", s, x.ep[s].Resends, rejected[r])
		}
	}
	if full[0] == 0 {
		t.Errorf("the window never filled: ErrReliableFull not exercised")
	}
	t.Logf("%d ticks (%v simulated); side 0: resends %d, window full %d times, peer rejected %d",
		ticks, x.now, x.ep[0].Resends, full[0], rejected[1])
}

func TestReliableWindowFull(t *testing.T) {
	var a, b Endpoint
	cmd := testCmd(nil, 0)
	for i := range RelWindow {
		if err := a.SendReliable(cmd); err != nil {
			t.Fatalf("SendReliable #%d: %v", i, err)
		}
	}
	if a.Pending() != RelWindow {
		t.Fatalf("Pending %d, want %d", a.Pending(), RelWindow)
	}
	if err := a.SendReliable(cmd); !errors.Is(err, ErrReliableFull) {
		t.Fatalf("SendReliable beyond the window: %v, want ErrReliableFull", err)
	}
	// The rejected command did not take an id, and the queue is intact: the peer acknowledges
	// 1..100 in order and 100 slots free up.
	a.HeaderFields(0)
	for id := uint16(1); id <= 100; id++ {
		if !b.AcceptReliable(id) {
			t.Fatalf("AcceptReliable(%d) refused", id)
		}
	}
	seq, ack, bits, rel := b.HeaderFields(time.Millisecond)
	if rel != 100 {
		t.Fatalf("relAck %d, want 100", rel)
	}
	a.Receive(seq, ack, bits, rel, 2*time.Millisecond)
	if a.Pending() != RelWindow-100 {
		t.Fatalf("Pending %d after relAck 100, want %d", a.Pending(), RelWindow-100)
	}
	for i := range 100 {
		if err := a.SendReliable(cmd); err != nil {
			t.Fatalf("SendReliable #%d after acks: %v", i, err)
		}
	}
	if err := a.SendReliable(cmd); !errors.Is(err, ErrReliableFull) {
		t.Fatalf("full again: %v, want ErrReliableFull", err)
	}
	// The first command still queued is id 101, the last id RelWindow+100.
	var ids []uint16
	out := a.AppendReliable(nil, 1<<20, 3*time.Millisecond, relREL)
	parseRel(t, out, func(id uint16, _ []byte) { ids = append(ids, id) })
	if len(ids) != RelWindow || ids[0] != 101 || ids[len(ids)-1] != RelWindow+100 {
		t.Fatalf("queued ids %d..%d (%d), want 101..%d (%d)", ids[0], ids[len(ids)-1], len(ids), RelWindow+100, RelWindow)
	}
}

func TestReliableLarge(t *testing.T) {
	var e Endpoint
	big := make([]byte, RelMaxCmd+1)
	if err := e.SendReliable(big); !errors.Is(err, ErrReliableLarge) {
		t.Fatalf("SendReliable(%d bytes) = %v, want ErrReliableLarge", len(big), err)
	}
	if e.Pending() != 0 {
		t.Fatal("a rejected command was queued")
	}
	exact := make([]byte, RelMaxCmd)
	binary.LittleEndian.PutUint16(exact, RelMaxCmd-2)
	exact[2] = 0x06
	exact[RelMaxCmd-1] = 0xAB
	if err := e.SendReliable(exact); err != nil {
		t.Fatalf("SendReliable(%d bytes) = %v", RelMaxCmd, err)
	}
	exact[RelMaxCmd-1] = 0 // copied at SendReliable: reusing the slice changes nothing
	out := e.AppendReliable(nil, 1200, 0, relREL)
	n := 0
	parseRel(t, out, func(id uint16, cmd []byte) {
		n++
		if id != 1 {
			t.Fatalf("first reliable id %d, want 1 (a rejected command must not take an id)", id)
		}
		if len(cmd) != RelMaxCmd || cmd[RelMaxCmd-1] != 0xAB {
			t.Fatalf("command % x, want the %d bytes queued", cmd, RelMaxCmd)
		}
	})
	if n != 1 {
		t.Fatalf("%d commands emitted, want 1", n)
	}
}

// AppendReliable emits commands in id order while the datagram stays within limit, never more.
func TestAppendReliableLimit(t *testing.T) {
	var e Endpoint
	for k := range 10 {
		if err := e.SendReliable(testCmd(nil, uint32(k))); err != nil {
			t.Fatal(err)
		}
	}
	const entry = 5 + 7 // REL + command
	hdr := make([]byte, 22)
	ids := func(b []byte) (out []uint16) {
		parseRel(t, b[22:], func(id uint16, _ []byte) { out = append(out, id) })
		return out
	}
	now := time.Second
	// Room for 3 entries and a bit: exactly 3.
	b := e.AppendReliable(hdr, 22+3*entry+entry-1, now, relREL)
	if got := ids(b); len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Fatalf("limit for 3 entries: ids %v", got)
	}
	if len(b) != 22+3*entry {
		t.Fatalf("datagram %d bytes, want %d", len(b), 22+3*entry)
	}
	// Exactly 2 entries fit: the next ones in order (4, 5), not the ones just sent.
	b = e.AppendReliable(hdr, 22+2*entry, now, relREL)
	if got := ids(b); len(got) != 2 || got[0] != 4 || got[1] != 5 {
		t.Fatalf("limit for 2 entries: ids %v, want [4 5]", got)
	}
	// No room at all: buf unchanged.
	if b = e.AppendReliable(hdr, 22+entry-1, now, relREL); len(b) != 22 {
		t.Fatalf("no room: %d bytes appended", len(b)-22)
	}
	// Plenty of room: the 5 never sent.
	b = e.AppendReliable(hdr, 1200, now, relREL)
	if got := ids(b); len(got) != 5 || got[0] != 6 || got[4] != 10 {
		t.Fatalf("rest: ids %v, want 6..10", got)
	}
	if e.Resends != 0 {
		t.Fatalf("Resends %d, nothing was resent", e.Resends)
	}
}

// An unacknowledged command is not sent again before the resend interval (MinResend without an
// RTT, srtt+2·rttvar with one, capped at MaxResend), then it is, and counts as a resend; a
// command the peer acknowledged is never sent again.
func TestAppendReliableResendInterval(t *testing.T) {
	count := func(b []byte) int {
		n := 0
		parseRel(t, b, func(uint16, []byte) { n++ })
		return n
	}
	for _, c := range []struct {
		name      string
		rtt       []time.Duration
		quiet, at time.Duration // nothing due at quiet, due at `at` (after the first send)
	}{
		{"no RTT yet", nil, MinResend - time.Millisecond, MinResend},
		{"small RTT", []time.Duration{20 * time.Millisecond}, MinResend - time.Millisecond, MinResend},
		{"RTT 150ms", []time.Duration{150 * time.Millisecond}, 320 * time.Millisecond, 340 * time.Millisecond}, // (150+2·75)·1.1 = 330
		{"slow link", []time.Duration{2 * time.Second}, MaxResend - time.Millisecond, MaxResend},
	} {
		t.Run(c.name, func(t *testing.T) {
			var e Endpoint
			for _, d := range c.rtt {
				e.AddRTTSample(d)
			}
			for k := range 3 {
				if err := e.SendReliable(testCmd(nil, uint32(k))); err != nil {
					t.Fatal(err)
				}
			}
			t0 := 5 * time.Second
			if n := count(e.AppendReliable(nil, 1200, t0, relREL)); n != 3 {
				t.Fatalf("first send: %d commands, want 3", n)
			}
			for _, at := range []time.Duration{0, time.Millisecond, c.quiet / 2, c.quiet} {
				if n := count(e.AppendReliable(nil, 1200, t0+at, relREL)); n != 0 {
					t.Fatalf("%v after the send: %d commands resent, want none before the interval", at, n)
				}
			}
			if n := count(e.AppendReliable(nil, 1200, t0+c.at, relREL)); n != 3 {
				t.Fatalf("%v after the send: %d commands resent, want 3", c.at, n)
			}
			if e.Resends != 3 {
				t.Fatalf("Resends %d, want 3", e.Resends)
			}
			// The resend restarts the clock.
			if n := count(e.AppendReliable(nil, 1200, t0+c.at+c.quiet, relREL)); n != 0 {
				t.Fatalf("%d commands resent before the interval after a resend", n)
			}
		})
	}
	// Acknowledged commands are never sent again.
	var a, b Endpoint
	for k := range 3 {
		_ = a.SendReliable(testCmd(nil, uint32(k)))
	}
	a.AppendReliable(nil, 1200, time.Second, relREL)
	a.HeaderFields(time.Second)
	b.AcceptReliable(1)
	b.AcceptReliable(2)
	seq, ack, bits, rel := b.HeaderFields(time.Second)
	a.Receive(seq, ack, bits, rel, time.Second+10*time.Millisecond)
	var ids []uint16
	parseRel(t, a.AppendReliable(nil, 1200, 10*time.Second, relREL), func(id uint16, _ []byte) { ids = append(ids, id) })
	if len(ids) != 1 || ids[0] != 3 {
		t.Fatalf("after relAck 2, resent ids %v, want [3]", ids)
	}
}

// AcceptReliable takes only the next id, wraps from 65535 to 1 (skipping 0), and relAck follows.
func TestAcceptReliableOrderAndWrap(t *testing.T) {
	var e Endpoint
	if e.AcceptReliable(2) || e.AcceptReliable(0) {
		t.Fatal("accepted an id other than 1 first")
	}
	for id := 1; id <= 65535; id++ {
		if !e.AcceptReliable(uint16(id)) {
			t.Fatalf("AcceptReliable(%d) refused", id)
		}
		if id%1000 == 0 && e.AcceptReliable(uint16(id)) {
			t.Fatalf("AcceptReliable(%d) accepted twice", id)
		}
	}
	if e.AcceptReliable(0) {
		t.Fatal("accepted id 0 after 65535")
	}
	if !e.AcceptReliable(1) {
		t.Fatal("id 1 after 65535 refused")
	}
	if _, _, _, rel := e.HeaderFields(0); rel != 1 {
		t.Fatalf("relAck %d, want 1", rel)
	}
}

// The sender's ids wrap 65535 → 1 too, and relAck across the wrap frees the window.
func TestReliableIDWrap(t *testing.T) {
	var a, b Endpoint
	cmd := testCmd(nil, 0)
	now := time.Duration(0)
	for round := 0; round < 66; round++ { // 66·1000 ids > 65535
		for range 1000 {
			if err := a.SendReliable(cmd); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		now += time.Second
		a.HeaderFields(now)
		parseRel(t, a.AppendReliable(nil, 1<<20, now, relREL), func(id uint16, _ []byte) {
			if !b.AcceptReliable(id) {
				t.Fatalf("round %d: id %d out of order", round, id)
			}
		})
		seq, ack, bits, rel := b.HeaderFields(now)
		a.Receive(seq, ack, bits, rel, now+time.Millisecond)
		if a.Pending() != 0 {
			t.Fatalf("round %d: %d pending after relAck %d", round, a.Pending(), rel)
		}
	}
}

func TestLossOut(t *testing.T) {
	var a, b Endpoint
	now := time.Duration(0)
	// 100 datagrams, every 4th lost; b answers each received one at once.
	for i := range 100 {
		now += 10 * time.Millisecond
		seq, ack, bits, rel := a.HeaderFields(now)
		if i%4 == 3 {
			continue
		}
		b.Receive(seq, ack, bits, rel, now)
		seq, ack, bits, rel = b.HeaderFields(now)
		a.Receive(seq, ack, bits, rel, now)
	}
	// Recent ones are within the grace period; 1 s later all count.
	if got := a.LossOut(now + time.Second); math.Abs(got-0.25) > 0.001 {
		t.Fatalf("LossOut %.3f, want 0.25", got)
	}
	if got := a.LossOut(now + time.Hour); got != 0 {
		t.Fatalf("LossOut %.3f over datagrams older than 5 s, want 0", got)
	}
}

// Steady state allocates nothing: HeaderFields, SendReliable, AppendReliable, Receive, AcceptReliable.
func TestEndpointAllocs(t *testing.T) {
	a, b := new(Endpoint), new(Endpoint)
	acks := 0
	a.OnAck = func(uint16) { acks++ }
	b.OnAck = func(uint16) { acks++ }
	bufA := make([]byte, 0, 1200)
	bufB := make([]byte, 0, 1200)
	cmd := testCmd(nil, 7)
	now := time.Duration(0)
	round := func() {
		now += 16 * time.Millisecond
		if err := a.SendReliable(cmd); err != nil {
			panic(err)
		}
		seq, ack, bits, rel := a.HeaderFields(now)
		out := a.AppendReliable(bufA[:0], 1200, now, relREL)
		if b.Receive(seq, ack, bits, rel, now) {
			panic("duplicate")
		}
		for len(out) >= 5 {
			b.AcceptReliable(binary.LittleEndian.Uint16(out[3:]))
			out = out[5+2+int(binary.LittleEndian.Uint16(out[5:])):]
		}
		seq, ack, bits, rel = b.HeaderFields(now)
		out = b.AppendReliable(bufB[:0], 1200, now, relREL)
		_ = out
		a.Receive(seq, ack, bits, rel, now)
	}
	for range 100 {
		round()
	}
	if allocs := testing.AllocsPerRun(1000, round); allocs != 0 {
		t.Fatalf("%v allocations per round, want 0", allocs)
	}
	if a.Pending() != 0 || acks == 0 {
		t.Fatalf("steady state not steady: pending %d, acks %d", a.Pending(), acks)
	}
}

// One header from the peer acknowledges its ack and every seq its ackBits name (bit 31 = ack-32
// included), nothing older; the RTT sample comes from the newest (ack) alone.
func TestReceiveAcksFromAckBits(t *testing.T) {
	var a, b Endpoint
	var acked []uint16
	a.OnAck = func(seq uint16) { acked = append(acked, seq) }
	for i := 1; i <= 40; i++ {
		seq, ack, bits, rel := a.HeaderFields(time.Duration(i) * time.Millisecond)
		if seq != uint16(i) {
			t.Fatalf("seq %d, want %d", seq, i)
		}
		if i == 1 || i == 7 || i == 8 || i == 39 || i == 40 { // 40: ack, 39: bit 0, 8: bit 31, 7: too old
			b.Receive(seq, ack, bits, rel, 0)
		}
	}
	seq, ack, bits, rel := b.HeaderFields(0)
	if ack != 40 || bits != 1<<0|1<<31 {
		t.Fatalf("b's header ack %d bits %032b, want 40 and bits 0, 31", ack, bits)
	}
	a.Receive(seq, ack, bits, rel, 100*time.Millisecond)
	want := []uint16{40, 39, 8}
	if len(acked) != len(want) || acked[0] != 40 || acked[1] != 39 || acked[2] != 8 {
		t.Fatalf("OnAck calls %v, want %v", acked, want)
	}
	if a.AckedCount != 3 {
		t.Fatalf("AckedCount %d, want 3", a.AckedCount)
	}
	if a.RTT() != 60*time.Millisecond {
		t.Fatalf("RTT %v, want 60ms (seq 40 sent at 40ms, acked at 100ms)", a.RTT())
	}
	// The same header again (or a reordered older one) acknowledges nothing new.
	a.Receive(seq+1, ack, bits, rel, 200*time.Millisecond)
	if len(acked) != 3 || a.RTT() != 60*time.Millisecond {
		t.Fatalf("repeated ack: OnAck calls %v, RTT %v", acked, a.RTT())
	}
}

// Whatever order the peer's headers arrive in (late, repeated, with gaps in ack), every datagram
// of ours that some header names is reported to OnAck exactly once, when the first header naming
// it arrives: the same as checking all 33 seqs of every header.
func TestReceiveAcksEveryNamedSeqOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for run := range 200 {
		var a Endpoint
		var got, want []uint16
		a.OnAck = func(seq uint16) { got = append(got, seq) }
		sent := map[uint16]bool{} // sent and not acknowledged yet
		var queue [][2]uint32     // headers of the peer on their way: (ack, bits)
		var last [2]uint32
		top, in := uint16(0), uint16(0)
		deliver := func(h [2]uint32) {
			ack, bits := uint16(h[0]), h[1]
			for k := -1; k < 32; k++ {
				s := ack
				if k >= 0 {
					if bits&(1<<k) == 0 {
						continue
					}
					s = ack - 1 - uint16(k)
				}
				if sent[s] {
					delete(sent, s)
					want = append(want, s)
				}
			}
			in++
			a.Receive(in, ack, bits, 0, 0)
			last = h
		}
		for range 1000 { // seqs wrap past the 256 records a few times
			seq, _, _, _ := a.HeaderFields(0)
			sent[seq] = true
			delete(sent, seq-200) // its record is long reused: never acknowledged now
			if rng.IntN(3) != 0 { // not lost
				if SeqGreater(seq, top) {
					top = seq
				}
				// the peer's ack: its newest, sometimes behind; bits: a random subset of the 32 before
				queue = append(queue, [2]uint32{uint32(top - uint16(rng.IntN(3))), rng.Uint32() | rng.Uint32()})
			}
			for len(queue) > 0 && (len(queue) > 4 || rng.IntN(2) == 0) {
				j := rng.IntN(len(queue)) // out of order
				deliver(queue[j])
				queue = append(queue[:j], queue[j+1:]...)
				if rng.IntN(10) == 0 {
					deliver(last) // a duplicate
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("run %d: OnAck %v\nwant %v", run, got, want)
		}
	}
}
