package transport

import (
	"errors"
	"math"
	"math/bits"
	"time"
)

// Limits of the reliable-ordered channel (docs/PROTOCOL.md §5).
const (
	// RelWindow is how many reliable commands may wait for an ack; a peer that lets more pile up
	// is too far behind and the owner drops it (ErrReliableFull).
	RelWindow = 1024
	// RelMaxCmd is the largest reliable command (size prefix included) in bytes.
	RelMaxCmd = 32
	// MinResend is the shortest interval between two sends of one unacked reliable command.
	MinResend = 100 * time.Millisecond
	// MaxResend caps the resend interval under a very slow link.
	MaxResend = 500 * time.Millisecond
	// RelRecvWindow is how many reliable ids past the next expected one a receiver buffers, so a
	// single loss delays only the lost command, not the ones behind it.
	RelRecvWindow = 256
)

// Errors of the reliable channel.
var (
	ErrReliableFull  = errors.New("transport: reliable window full (peer not acknowledging)")
	ErrReliableLarge = errors.New("transport: reliable command larger than RelMaxCmd")
)

type sentRecord struct {
	at    time.Duration
	seq   uint16
	valid bool
	acked bool
}

type pending struct {
	at   time.Duration // last send, 0 = never sent
	id   uint16
	n    uint8
	data [RelMaxCmd]byte
}

// Endpoint is one side of a session with one peer: datagram sequence numbers and acks, RTT,
// loss, and the reliable-ordered command channel (seed 003, docs/PROTOCOL.md §5). Times are
// monotonic durations from any fixed origin chosen by the owner. Not safe for concurrent use.
//
// The scalar fields come first and the record arrays last (about 67 KB of them): handling a
// datagram reads the scalars, so they share a few cache lines.
type Endpoint struct {
	// OnAck, when set, is called once for every datagram of ours the peer acknowledges.
	OnAck func(seq uint16)

	seq     uint16
	started bool // seq initialised: the first datagram carries seq 1, so ack 0 means "nothing received"

	haveRemote bool
	remoteSeq  uint16 // newest seq received from the peer
	remoteBits uint32 // bit i: remoteSeq-1-i received

	// The acks already handled: ackTop, the newest ack a header carried, and ackSeen, bit i set
	// when ackTop-1-i was handled (a header repeats the last 32 acks; only new ones need work).
	ackTop  uint16
	ackSeen uint32
	haveAck bool

	relNext      uint16 // next reliable id to assign
	relDelivered uint16 // last reliable id delivered in order from the peer
	head, count  int

	srtt, rttvar float64 // seconds
	haveRTT      bool

	// Counters (cumulative).
	Received, Duplicates, LostIn uint64 // datagrams from the peer: received, duplicate, never seen
	SentCount, AckedCount        uint64 // datagrams to the peer: sent, acknowledged
	Resends                      uint64 // reliable commands sent again
	LastReceive                  time.Duration

	sent [256]sentRecord
	ring [RelWindow]pending
	rx   [RelRecvWindow]pending
}

// SeqGreater reports whether sequence a is newer than b (wrap-around compare, RFC 1982 style).
func SeqGreater(a, b uint16) bool { return int16(a-b) > 0 }

// Seq is the sequence number the next datagram will carry. The first datagram carries seq 1: a
// header says "nothing received yet" with ack 0 and ackBits 0, so seq 0 must not be outstanding
// then (it is only reused after the u16 wraps, long after the peer's first datagram).
func (e *Endpoint) Seq() uint16 {
	if !e.started {
		return 1
	}
	return e.seq
}

// HeaderFields returns what the next datagram's header must carry: its seq, the ack and ackBits of
// what we received, and relAck, the last reliable id delivered in order. It records the datagram
// as sent at now; call it exactly once per datagram sent.
func (e *Endpoint) HeaderFields(now time.Duration) (seq, ack uint16, ackBits uint32, relAck uint16) {
	if !e.started {
		e.started, e.seq = true, 1
	}
	seq = e.seq
	e.seq++
	r := &e.sent[seq&255]
	*r = sentRecord{at: now, seq: seq, valid: true}
	e.SentCount++
	return seq, e.remoteSeq, e.remoteBits, e.relDelivered
}

// Receive updates the endpoint with the header of a valid datagram from the peer: the peer's seq
// (for our acks and loss figures), its ack/ackBits (OnAck per newly acked datagram, an RTT sample
// from the newest) and its relAck (reliable commands now delivered are forgotten). It reports
// whether the datagram is a duplicate of one already received.
func (e *Endpoint) Receive(seq, ack uint16, ackBits uint32, relAck uint16, now time.Duration) (duplicate bool) {
	e.LastReceive = now
	switch {
	case !e.haveRemote:
		e.haveRemote, e.remoteSeq, e.remoteBits = true, seq, 0
	case SeqGreater(seq, e.remoteSeq):
		d := uint16(seq - e.remoteSeq)
		if d > 1 {
			e.LostIn += uint64(d - 1)
		}
		if d >= 33 {
			e.remoteBits = 0
		} else {
			e.remoteBits = e.remoteBits<<d | 1<<(d-1)
		}
		e.remoteSeq = seq
	default:
		d := uint16(e.remoteSeq - seq)
		if d == 0 || d > 32 || e.remoteBits&(1<<(d-1)) != 0 {
			e.Duplicates++
			return true
		}
		e.remoteBits |= 1 << (d - 1)
		if e.LostIn > 0 {
			e.LostIn-- // it was counted lost, it came late
		}
	}
	e.Received++
	e.ackOne(ack, now, true)
	// Only the acks no earlier header carried: ackOne would find the others acknowledged.
	todo := ackBits
	switch {
	case !e.haveAck:
		e.ackTop, e.ackSeen, e.haveAck = ack, ackBits, true
	case ack == e.ackTop:
		todo &^= e.ackSeen
		e.ackSeen |= ackBits
	case SeqGreater(ack, e.ackTop):
		var seen uint32
		if d := uint16(ack - e.ackTop); d <= 32 {
			seen = uint32(uint64(e.ackSeen)<<d | 1<<(d-1))
		}
		todo &^= seen
		e.ackTop, e.ackSeen = ack, ackBits|seen
	}
	for ; todo != 0; todo &= todo - 1 {
		e.ackOne(ack-1-uint16(bits.TrailingZeros32(todo)), now, false)
	}
	e.dropDelivered(relAck)
	return false
}

func (e *Endpoint) ackOne(seq uint16, now time.Duration, sample bool) {
	r := &e.sent[seq&255]
	if !r.valid || r.seq != seq || r.acked {
		return
	}
	r.acked = true
	e.AckedCount++
	if sample {
		e.AddRTTSample(now - r.at)
	}
	if e.OnAck != nil {
		e.OnAck(seq)
	}
}

// AddRTTSample folds one round-trip measurement into the smoothed RTT and jitter (RFC 6298).
func (e *Endpoint) AddRTTSample(d time.Duration) {
	s := d.Seconds()
	if s < 0 {
		return
	}
	if !e.haveRTT {
		e.srtt, e.rttvar, e.haveRTT = s, s/2, true
		return
	}
	e.rttvar = 0.75*e.rttvar + 0.25*math.Abs(e.srtt-s)
	e.srtt = 0.875*e.srtt + 0.125*s
}

// RTT is the smoothed round-trip time (0 before the first sample).
func (e *Endpoint) RTT() time.Duration { return time.Duration(e.srtt * float64(time.Second)) }

// Jitter is the smoothed mean deviation of the RTT.
func (e *Endpoint) Jitter() time.Duration { return time.Duration(e.rttvar * float64(time.Second)) }

// resendInterval is how long an unacked reliable command waits before it is sent again.
func (e *Endpoint) resendInterval() time.Duration {
	d := time.Duration((e.srtt + 2*e.rttvar) * float64(time.Second) * 1.1)
	return min(max(d, MinResend), MaxResend)
}

// Pending is the number of reliable commands not yet acknowledged.
func (e *Endpoint) Pending() int { return e.count }

// SendReliable queues one encoded command (size prefix, id and arguments, as net/wire's Append
// writes it) for reliable-ordered delivery; it is copied, so cmd may be reused.
func (e *Endpoint) SendReliable(cmd []byte) error {
	if len(cmd) > RelMaxCmd {
		return ErrReliableLarge
	}
	if e.count == RelWindow {
		return ErrReliableFull
	}
	e.relNext++
	if e.relNext == 0 {
		e.relNext = 1
	}
	p := &e.ring[(e.head+e.count)%RelWindow]
	p.id, p.n, p.at = e.relNext, uint8(len(cmd)), 0
	copy(p.data[:], cmd)
	e.count++
	return nil
}

func (e *Endpoint) dropDelivered(relAck uint16) {
	if relAck == 0 {
		return
	}
	for e.count > 0 {
		p := &e.ring[e.head]
		if SeqGreater(p.id, relAck) {
			return
		}
		e.head = (e.head + 1) % RelWindow
		e.count--
	}
}

// AppendReliable appends, in id order, each reliable command that is due (never sent, or sent
// longer than the resend interval ago) as REL(id) followed by the command, while the datagram stays
// within limit bytes. rel writes a REL command (net/wire's Rel{ID}.Append) so this package stays
// independent of the codec.
func (e *Endpoint) AppendReliable(buf []byte, limit int, now time.Duration, rel func(buf []byte, id uint16) []byte) []byte {
	interval := e.resendInterval()
	for i := 0; i < e.count; i++ {
		p := &e.ring[(e.head+i)%RelWindow]
		if p.at != 0 && now-p.at < interval {
			continue
		}
		if len(buf)+5+int(p.n) > limit {
			break
		}
		if p.at != 0 {
			e.Resends++
		}
		buf = rel(buf, p.id)
		buf = append(buf, p.data[:p.n]...)
		p.at = now
		if p.at == 0 {
			p.at = 1
		}
	}
	return buf
}

// AcceptReliable reports whether the reliable command with this id is the next one in order; if
// so it counts as delivered (and relAck will say so). Duplicates and early ids return false: the
// caller drops them (an early one comes again).
func (e *Endpoint) AcceptReliable(id uint16) bool {
	next := e.relDelivered + 1
	if next == 0 {
		next = 1
	}
	if id != next {
		return false
	}
	e.relDelivered = id
	return true
}

func nextRelID(id uint16) uint16 {
	id++
	if id == 0 {
		id = 1
	}
	return id
}

// relDist is how many steps id is after from on the reliable id ring 1..65535.
func relDist(from, id uint16) int {
	return int((uint32(id) + 65535 - uint32(from)) % 65535)
}

// ReceiveReliable handles the reliable command cmd (as on the wire, size prefix included) that
// followed REL(id): it reports true when cmd is the next in order (deliver it now, then call
// PopReliable until it reports false). A command a little ahead of the next one (within
// RelRecvWindow) is kept and delivered by PopReliable once the gap is filled; duplicates and
// commands too far ahead are dropped (the sender resends them).
func (e *Endpoint) ReceiveReliable(id uint16, cmd []byte) bool {
	next := nextRelID(e.relDelivered)
	if id == next {
		e.relDelivered = id
		return true
	}
	d := relDist(next, id)
	if d <= 0 || d >= RelRecvWindow || len(cmd) > RelMaxCmd {
		return false
	}
	slot := &e.rx[id%RelRecvWindow]
	if slot.n == 0 || slot.id != id {
		slot.id, slot.n = id, uint8(len(cmd))
		copy(slot.data[:], cmd)
	}
	return false
}

// PopReliable returns the next buffered reliable command if it is now in order (and counts it as
// delivered). The slice is valid until the next ReceiveReliable.
func (e *Endpoint) PopReliable() ([]byte, bool) {
	next := nextRelID(e.relDelivered)
	slot := &e.rx[next%RelRecvWindow]
	if slot.n == 0 || slot.id != next {
		return nil, false
	}
	n := slot.n
	slot.n = 0
	e.relDelivered = next
	return slot.data[:n], true
}

// LossOut is the fraction (0..1) of our datagrams among the last 256 sent (older than the RTT)
// that the peer has not acknowledged.
func (e *Endpoint) LossOut(now time.Duration) float64 {
	grace := e.RTT()*2 + 50*time.Millisecond
	var n, lost int
	for i := range e.sent {
		r := &e.sent[i]
		if !r.valid || now-r.at < grace || now-r.at > 5*time.Second {
			continue
		}
		n++
		if !r.acked {
			lost++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(lost) / float64(n)
}
