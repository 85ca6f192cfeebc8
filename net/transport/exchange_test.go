package transport

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"time"
)

// This file holds a pure-Go simulated exchange between two Endpoints: no sockets, the test drives
// `now`. Every datagram is tracked by its sender's send index (unwrapped, unlike the u16 seq), so
// the tests can compare what the endpoints believe with what really happened on the "wire".

// linkCfg is the impairment of the simulated exchange (both directions).
type linkCfg struct {
	delay, jitter time.Duration // one-way delay, ± uniform jitter
	loss, dup     float64       // drop probability, duplicate probability (the copy arrives later)
	reorder       float64       // probability of an extra 5..100 ms delay (arrives after later ones)
}

type dgram struct {
	at      time.Duration
	ord     int
	from    int // 0 = a, 1 = b; the receiver is 1-from
	idx     int // sender's send index
	seq     uint16
	ack     uint16
	bits    uint32
	relAck  uint16
	payload []byte
}

type exchange struct {
	t      testing.TB
	rng    *rand.Rand
	ep     [2]*Endpoint
	cfg    linkCfg
	now    time.Duration
	tick   time.Duration
	flight []dgram
	ord    int

	// ground truth, per sending side, indexed by send index
	delivered [2][]bool // the receiving endpoint accepted it (Receive returned false)
	ackCount  [2][]int  // OnAck calls for it
	idxBySeq  [2][65536]int32
	dupSeen   [2]int // copies the receiver reported as duplicates (all were real copies)

	// onPayload, when set, sees every accepted (non-duplicate) datagram's payload at the receiver.
	onPayload func(to int, payload []byte)
}

func newExchange(t testing.TB, seed uint64, cfg linkCfg) *exchange {
	x := &exchange{t: t, rng: rand.New(rand.NewPCG(seed, 0x5eed)), cfg: cfg, tick: 10 * time.Millisecond}
	for s := range 2 {
		x.ep[s] = &Endpoint{}
		x.ep[s].OnAck = func(seq uint16) {
			idx := int(x.idxBySeq[s][seq])
			if idx >= len(x.ackCount[s]) || x.seqOf(s, idx) != seq {
				x.t.Errorf("side %d: OnAck(%d) for a seq never sent", s, seq)
				return
			}
			x.ackCount[s][idx]++
			if x.ackCount[s][idx] > 1 {
				x.t.Errorf("side %d: OnAck called %d times for datagram #%d (seq %d)", s, x.ackCount[s][idx], idx, seq)
			}
			if !x.delivered[s][idx] {
				x.t.Errorf("side %d: datagram #%d (seq %d) acked but the peer never received it", s, idx, seq)
			}
		}
	}
	return x
}

// seqOf is the seq the side's idx-th datagram carries (the first datagram carries seq 1).
func (x *exchange) seqOf(side, idx int) uint16 { return uint16(idx + 1) }

// send makes side emit one datagram with payload (copied) through the impaired link.
func (x *exchange) send(side int, payload []byte) {
	e := x.ep[side]
	want := e.Seq()
	seq, ack, bits, rel := e.HeaderFields(x.now)
	if seq != want {
		x.t.Fatalf("side %d: HeaderFields seq %d, Seq() said %d", side, seq, want)
	}
	idx := len(x.delivered[side])
	if seq != x.seqOf(side, idx) {
		x.t.Fatalf("side %d: datagram #%d carries seq %d, want %d", side, idx, seq, x.seqOf(side, idx))
	}
	x.delivered[side] = append(x.delivered[side], false)
	x.ackCount[side] = append(x.ackCount[side], 0)
	x.idxBySeq[side][seq] = int32(idx)

	c := x.cfg
	if c.loss > 0 && x.rng.Float64() < c.loss {
		return
	}
	copies := 1
	if c.dup > 0 && x.rng.Float64() < c.dup {
		copies = 2
	}
	var p []byte
	if len(payload) > 0 {
		p = append([]byte(nil), payload...)
	}
	for i := range copies {
		d := c.delay
		if c.jitter > 0 {
			d += time.Duration((x.rng.Float64()*2 - 1) * float64(c.jitter))
		}
		if c.reorder > 0 && x.rng.Float64() < c.reorder {
			d += 5*time.Millisecond + time.Duration(x.rng.Float64()*float64(95*time.Millisecond))
		}
		if i == 1 {
			d += time.Duration(x.rng.Float64() * float64(60*time.Millisecond))
		}
		x.ord++
		x.flight = append(x.flight, dgram{at: x.now + max(d, 0), ord: x.ord, from: side, idx: idx,
			seq: seq, ack: ack, bits: bits, relAck: rel, payload: p})
	}
}

// deliver hands every datagram due at x.now to its receiver, in (arrival time, send order) order.
func (x *exchange) deliver() {
	for {
		best := -1
		for i := range x.flight {
			d := &x.flight[i]
			if d.at > x.now {
				continue
			}
			if best < 0 || d.at < x.flight[best].at || (d.at == x.flight[best].at && d.ord < x.flight[best].ord) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		d := x.flight[best]
		x.flight[best] = x.flight[len(x.flight)-1]
		x.flight = x.flight[:len(x.flight)-1]
		to := 1 - d.from
		dup := x.ep[to].Receive(d.seq, d.ack, d.bits, d.relAck, x.now)
		already := x.delivered[d.from][d.idx]
		switch {
		case dup && !already:
			x.t.Errorf("side %d: first copy of datagram #%d (seq %d) reported as duplicate", to, d.idx, d.seq)
		case !dup && already:
			x.t.Errorf("side %d: second copy of datagram #%d (seq %d) not detected as duplicate", to, d.idx, d.seq)
		}
		if dup {
			x.dupSeen[to]++
			continue
		}
		x.delivered[d.from][d.idx] = true
		if x.onPayload != nil {
			x.onPayload(to, d.payload)
		}
	}
}

// step advances time by one tick and delivers what is due.
func (x *exchange) step() {
	x.now += x.tick
	x.deliver()
}

// checkAcks verifies, once the link has been clean for a while, that exactly the datagrams the
// peer received were acknowledged, each once (the OnAck hook already fails on a second call and on
// an ack of a datagram the peer never received). The last `tail` datagrams of each side, whose
// acks may still be in flight, are only checked by the hook.
func (x *exchange) checkAcks(tail int) {
	x.t.Helper()
	for s := range 2 {
		var delivered, acked uint64
		missing := 0
		for i, ok := range x.delivered[s] {
			if ok {
				delivered++
			}
			if x.ackCount[s][i] > 0 {
				acked++
			}
			if ok && x.ackCount[s][i] == 0 && i < len(x.delivered[s])-tail {
				if missing < 5 {
					x.t.Errorf("side %d: datagram #%d received by the peer but never acked", s, i)
				}
				missing++
			}
		}
		if missing > 0 || x.ep[s].AckedCount != acked || acked+uint64(tail) < delivered {
			x.t.Errorf("side %d: %d delivered, %d acked (OnAck), AckedCount %d, %d never acked",
				s, delivered, acked, x.ep[s].AckedCount, missing)
		}
		if got := x.ep[s].SentCount; got != uint64(len(x.delivered[s])) {
			x.t.Errorf("side %d: SentCount %d, want %d", s, got, len(x.delivered[s]))
		}
	}
}

// checkLostIn verifies LostIn = datagrams in the span from the first to the newest received that
// never arrived (late arrivals within the 32-wide window took their count back) and Received.
func (x *exchange) checkLostIn() {
	x.t.Helper()
	for from := range 2 {
		first, last, n := -1, -1, 0
		for i, ok := range x.delivered[from] {
			if !ok {
				continue
			}
			if first < 0 {
				first = i
			}
			last = i
			n++
		}
		to := x.ep[1-from]
		if to.Received != uint64(n) {
			x.t.Errorf("side %d: Received %d, want %d", 1-from, to.Received, n)
		}
		if want := uint64(last - first + 1 - n); to.LostIn != want {
			x.t.Errorf("side %d: LostIn %d, want %d (span %d..%d, %d received)", 1-from, to.LostIn, want, first, last, n)
		}
		if to.Duplicates != uint64(x.dupSeen[1-from]) {
			x.t.Errorf("side %d: Duplicates %d, want %d", 1-from, to.Duplicates, x.dupSeen[1-from])
		}
	}
}

// relREL is the test's REL encoder: size 3, id 12, relId u16 (5 bytes, like net/wire's Rel).
func relREL(buf []byte, id uint16) []byte {
	return append(buf, 0x03, 0x00, 0x0c, byte(id), byte(id>>8))
}

// testCmd is a 7-byte command: size 5, id 6, k u32.
func testCmd(buf []byte, k uint32) []byte {
	return binary.LittleEndian.AppendUint32(append(buf, 0x05, 0x00, 0x06), k)
}

// parseRel walks a payload made only of REL+command pairs and calls fn for each.
func parseRel(t testing.TB, p []byte, fn func(id uint16, cmd []byte)) {
	t.Helper()
	for len(p) > 0 {
		if len(p) < 7 || p[0] != 0x03 || p[1] != 0x00 || p[2] != 0x0c {
			t.Fatalf("payload does not start with REL: % x", p[:min(len(p), 8)])
		}
		id := binary.LittleEndian.Uint16(p[3:])
		if id == 0 {
			t.Fatalf("REL id 0 on the wire")
		}
		size := int(binary.LittleEndian.Uint16(p[5:]))
		if size < 1 || len(p) < 7+size {
			t.Fatalf("truncated command after REL %d: % x", id, p)
		}
		fn(id, p[5:7+size])
		p = p[7+size:]
	}
}
