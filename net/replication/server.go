// Package replication turns the server's ecs.World into ENTITY / DEL_ENT / DEL_COMP commands for
// each client (docs/PROTOCOL.md §5) and applies them on the client into a mirror world.
//
// Server side, per client: every replicated component of every entity has an acknowledged
// baseline (the change tick the client is known to hold, learnt from datagram acks). A snapshot
// carries, for each entity, only the components changed since that baseline (delta against the
// acknowledged baseline, Quake 3 style), so a client that just arrived or lost datagrams gets
// exactly what it misses, and an idle entity costs nothing. Destroyed entities and removed
// components go through the reliable channel as DEL_ENT / DEL_COMP, and only to clients that were
// ever sent the entity or component.
package replication

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/net/wire"
)

// MaxReplicated is the number of component ids a baseline tracks (ids 1..MaxReplicated-1).
const MaxReplicated = 16

// maxEntries bounds what one datagram can record (baseline entries): the most per byte is a
// STATE record with one Spawn (13 bytes, 3 entries), (1200-22-3)/13*3 = 270 in a datagram.
const maxEntries = 272

type entityRec struct {
	gen  uint32
	ever bool // something about this entity was sent
	// expires: the client deletes this entity by itself once its Position is outside
	// (Tracker.SelfExpiry), learnt when it was first sent
	expires bool
	ap, av  bool
	sp      bool
	// dead reckoning: the newest Position and Velocity the client acknowledged
	apX, apY float32
	apT      ecs.Tick // world tick of that Position
	avX, avY float32
	avT      ecs.Tick
	// the newest Position sent (maybe still in flight), with the Velocity the entity had then
	spX, spY, svX, svY float32
	spT                ecs.Tick // its world tick
	spAt               ecs.Tick // Clock of the send
	// per component id, side by side (a snapshot reads the three of each component it checks)
	c [MaxReplicated]compRec
}

// compRec is the client's baseline of one component of an entity.
type compRec struct {
	acked ecs.Tick // change tick+1 the client holds (0 = none)
	sent  ecs.Tick // change tick+1 last sent
	at    ecs.Tick // Clock of that send
}

type entry struct {
	index uint32
	gen   uint32
	comp  uint8
	tick  ecs.Tick // change tick+1
	wt    ecs.Tick // world tick of the send
	x, y  float32  // value sent (dead-reckoned Position and Velocity only)
}

// seqRec is what one datagram carried: n entries of the Writer's ring from position start.
type seqRec struct {
	seq   uint16
	valid bool
	n     int
	start uint64
}

// Tracker follows the live entities of a server world from its events; one per game instance,
// shared by every client's Writer. Call Observe with each tick's events before the Writers.
type Tracker struct {
	W      *ecs.World
	stores []ecs.AnyStore // replicated stores, ordered by id
	live   []ecs.Entity   // by index, Nil when dead
	maxIdx int

	dr             bool
	drPos, drVel   ecs.ComponentID
	drThresh, rate float32
	motion         bool
	spawnWith      ecs.ComponentID // PackSpawn's component, 0 = none

	expires func(e ecs.Entity) bool
	outside func(x, y float32) bool
	derived func(e ecs.Entity) bool

	byID [MaxReplicated]ecs.AnyStore // the replicated stores by id
	size [MaxReplicated]int          // their encoded sizes
	mask uint16                      // their ids (bit id)

	// The summary of the live entities that every Writer's snapshots read (summary): taken once
	// per world Version and Tick, so the stores are read through their interfaces once per tick
	// whatever the number of clients.
	sum     []entSum
	sumVer  uint64
	sumTick ecs.Tick
	sumOK   bool
	scratch [64]byte
}

// entSum is what the Writers need of one live entity at the summary's tick.
type entSum struct {
	e    ecs.Entity
	mask uint16 // the replicated components e has (bit id)
	// derived: Tracker.Derived holds for e (computed for entities with Position or Velocity
	// under DeadReckon)
	derived bool
	// motion: computed on first use (motionDone) for an entity with Position and Velocity
	motionDone bool
	m          motion
	ch         [MaxReplicated]ecs.Tick // ChangedAt+1 of each component in mask
}

// bit is the mask bit of component id (0 for ids a baseline does not track).
func bit(id ecs.ComponentID) uint16 {
	if int(id) >= MaxReplicated {
		return 0
	}
	return 1 << id
}

// summary returns the live entities with replicated components, in index order, as the world
// holds them now: taken again when the world changed (ecs.World.Version), its tick moved, or
// Observe changed the live set.
func (t *Tracker) summary() []entSum {
	w := t.W
	if t.sumOK && t.sumVer == w.Version() && t.sumTick == w.Tick() {
		return t.sum
	}
	pv := bit(t.drPos) | bit(t.drVel)
	t.sum = t.sum[:0]
	for _, e := range t.live[:t.maxIdx] {
		if e == ecs.Nil {
			continue
		}
		m := uint16(uint64(w.Signature(e))) & t.mask // 0 once e is dead
		if m == 0 {
			continue
		}
		t.sum = append(t.sum, entSum{e: e, mask: m})
		s := &t.sum[len(t.sum)-1]
		for b := m; b != 0; b &= b - 1 {
			id := bits.TrailingZeros16(b)
			s.ch[id] = t.byID[id].ChangedAt(e) + 1
		}
		if t.dr && t.derived != nil && m&pv != 0 {
			s.derived = t.derived(e)
		}
	}
	t.sumVer, t.sumTick, t.sumOK = w.Version(), w.Tick(), true
	return t.sum
}

// motionOf returns s's Position and Velocity (raw, and as a client holds them once sent), read
// and quantised once per summary whatever the number of Writers. The entity has both.
func (t *Tracker) motionOf(s *entSum) *motion {
	if !s.motionDone {
		m := &s.m
		m.rx, m.ry = readXY(t.byID[t.drPos].AppendWire(t.scratch[:0], s.e))
		vx, vy := readXY(t.byID[t.drVel].AppendWire(t.scratch[:0], s.e))
		m.x, m.y, m.vx, m.vy, m.packed = t.clientMotion(m.rx, m.ry, vx, vy)
		m.ok, s.motionDone = true, true
	}
	return &s.m
}

// Derived tells the Writers which entities' Position clients compute from their other
// components (docs/PROTOCOL.md §5.7: a Force attached to its ship): while derived(e) holds and
// the client has acknowledged the current value of every other replicated component of e, its
// Position and Velocity are left out. Needs DeadReckon.
func (t *Tracker) Derived(derived func(e ecs.Entity) bool) { t.derived, t.sumOK = derived, false }

// SelfExpiry tells the Writers which entities clients delete by themselves (docs/PROTOCOL.md
// §5.6): expires(e) reports, while e is alive, whether it is one of them; outside(x, y) whether
// a client deletes it when its Position is (x, y) px. When such an entity is destroyed, a Writer
// sends no DEL_ENT if the one Position and Velocity the client can hold for it (acknowledged,
// nothing newer in flight) dead-reckon to a point outside at the tick of the destruction.
// Needs DeadReckon.
func (t *Tracker) SelfExpiry(expires func(e ecs.Entity) bool, outside func(x, y float32) bool) {
	t.expires, t.outside = expires, outside
}

// PackMotion makes the Writers send the dead-reckoned Position and Velocity (DeadReckon) of an
// entity together as one Motion record (wire.CompMotion, docs/PROTOCOL.md §4: fixed point,
// 18 bytes instead of 2 × 18), whenever either goes out and both fit its range; out of range
// they go as separate f32 records. Dead reckoning then works from the values the client
// decodes. Call after DeadReckon.
func (t *Tracker) PackMotion() { t.motion, t.sumOK = t.dr, false }

// PackSpawn makes a Motion that goes out together with component kind (2 bytes, the entity's
// Kind) travel as one Spawn record (wire.CompSpawn, docs/PROTOCOL.md §4: 20 bytes instead of
// 18 + 12) — in practice an entity's first ENTITY. Call after PackMotion.
func (t *Tracker) PackSpawn(kind ecs.ComponentID) {
	if st := t.W.Store(kind); t.motion && st != nil && st.Size() == 2 {
		t.spawnWith = kind
	}
}

// clientMotion returns the Position and Velocity a client holds once they are sent now: the
// Motion quantisation of (x, y, vx, vy) when packing is on and they fit, else the values.
func (t *Tracker) clientMotion(x, y, vx, vy float32) (float32, float32, float32, float32, bool) {
	if t.motion {
		if qx, qy, qvx, qvy, ok := wire.QuantizeMotion(x, y, vx, vy); ok {
			return qx, qy, qvx, qvy, true
		}
	}
	return x, y, vx, vy, false
}

// DeadReckon turns on dead reckoning (docs/PROTOCOL.md §5.3): a Position that a client can
// compute from the Position and Velocity it acknowledged (pos + vel·Δticks/tickRate, within
// thresholdPx virtual px) is not sent again. Both components are (f32, f32). A Velocity that is
// sent always carries its Position along, so the client re-anchors.
func (t *Tracker) DeadReckon(pos, vel ecs.ComponentID, thresholdPx, tickRate float32) {
	t.dr, t.drPos, t.drVel, t.drThresh, t.rate = true, pos, vel, thresholdPx, tickRate
	t.sumOK = false // the summary's motions and Derived follow these settings
}

// Extrapolate is the dead-reckoning formula shared by server and client: where an entity anchored
// at (x, y) with velocity (vx, vy) px/s is n ticks later.
func Extrapolate(x, y, vx, vy, n, tickRate float32) (float32, float32) {
	return x + vx*n/tickRate, y + vy*n/tickRate
}

func readXY(b []byte) (float32, float32) {
	return math.Float32frombits(binary.LittleEndian.Uint32(b)), math.Float32frombits(binary.LittleEndian.Uint32(b[4:]))
}

// NewTracker prepares replication of w's replicated components (ids < MaxReplicated).
func NewTracker(w *ecs.World) *Tracker {
	t := &Tracker{W: w}
	for _, s := range w.Stores() {
		if s.Flags()&ecs.Replicated != 0 && int(s.ID()) < MaxReplicated {
			t.stores = append(t.stores, s)
			t.byID[s.ID()], t.size[s.ID()] = s, s.Size()
			t.mask |= bit(s.ID())
		}
	}
	w.Each(func(e ecs.Entity) { t.setLive(e) })
	return t
}

func (t *Tracker) setLive(e ecs.Entity) {
	i := int(e.Index())
	for i >= len(t.live) {
		t.live = append(t.live, ecs.Nil)
	}
	t.live[i] = e
	if i+1 > t.maxIdx {
		t.maxIdx = i + 1
	}
}

// Observe updates the live set from the world's events (call before ClearEvents).
func (t *Tracker) Observe(events []ecs.Event) {
	t.sumOK = false
	for i := range events {
		ev := &events[i]
		switch ev.Kind {
		case ecs.EventCreated:
			t.setLive(ev.Entity)
		case ecs.EventDestroyed:
			if i := int(ev.Entity.Index()); i < len(t.live) && t.live[i] == ev.Entity {
				t.live[i] = ecs.Nil
			}
		}
	}
}

// Stores are the replicated component stores, ordered by id.
func (t *Tracker) Stores() []ecs.AnyStore { return t.stores }

// Writer is the replication state of one client.
type Writer struct {
	t    *Tracker
	recs []entityRec
	seqs [256]seqRec
	// ring holds the entries of the datagrams in seqs, at position p mod len(ring) (positions
	// count every entry ever recorded, head is the next); it grows when it would overwrite those
	// of a datagram still waiting for its ack, so it stays as small as what is in flight.
	ring   []entry
	head   uint64
	low    uint64 // at most the position oldest returns
	cursor int
	// ResendTicks is how long an unacknowledged component waits before it is sent again even
	// though it did not change (about one RTT in ticks; the instance keeps it current).
	ResendTicks ecs.Tick
	// Clock counts the owner's send frames (60 Hz); the in-flight timer uses it, so resends go on
	// while the simulation is paused.
	Clock ecs.Tick
	// Counters.
	EntitiesSent, ComponentsSent uint64
	// ReckonedSkips counts Positions not sent because the client computes them.
	ReckonedSkips uint64
	// SelfExpired counts DEL_ENT not needed because the client deletes the entity by itself
	// (Tracker.SelfExpiry).
	SelfExpired uint64
	scratch     [64]byte
}

// NewWriter starts a client with an empty baseline: its first snapshots carry every entity.
func NewWriter(t *Tracker) *Writer { return &Writer{t: t, ResendTicks: 12} }

func (w *Writer) rec(e ecs.Entity) *entityRec {
	i := int(e.Index())
	for i >= len(w.recs) {
		w.recs = append(w.recs, entityRec{})
	}
	r := &w.recs[i]
	if r.gen != e.Generation() {
		*r = entityRec{gen: e.Generation()}
	}
	return r
}

// Destroyed reports whether the client must be told (DEL_ENT) that e is gone: true when it was
// ever sent anything about e. It forgets e's baseline either way.
func (w *Writer) Destroyed(e ecs.Entity) bool {
	i := int(e.Index())
	if i >= len(w.recs) || w.recs[i].gen != e.Generation() {
		return false
	}
	r := &w.recs[i]
	ever := r.ever
	if ever && w.selfExpires(r) {
		ever = false
		w.SelfExpired++
	}
	*r = entityRec{}
	return ever
}

// selfExpires reports whether the client deletes the entity of r by itself at the current tick:
// the only anchor it can hold (acknowledged, and no newer Position or Velocity sent) reckons
// to a Position outside (Tracker.SelfExpiry).
func (w *Writer) selfExpires(r *entityRec) bool {
	t := w.t
	if !r.expires || t.outside == nil || !t.dr || !r.ap || !r.av {
		return false
	}
	if r.sp && (r.spT != r.apT || r.spX != r.apX || r.spY != r.apY || r.svX != r.avX || r.svY != r.avY) {
		return false // a newer anchor is (or was) in flight: the client may hold either
	}
	if r.c[t.drVel].sent > r.c[t.drVel].acked || r.c[t.drPos].sent > r.c[t.drPos].acked {
		return false
	}
	x, y := Extrapolate(r.apX, r.apY, r.avX, r.avY, float32(int32(t.W.Tick()-r.apT)), t.rate)
	return t.outside(x, y)
}

// Removed reports whether the client must be told (DEL_COMP) that e lost component id: true when
// that component was ever sent. The baseline of that component is reset.
func (w *Writer) Removed(e ecs.Entity, id ecs.ComponentID) bool {
	i := int(e.Index())
	if i >= len(w.recs) || w.recs[i].gen != e.Generation() || int(id) >= MaxReplicated {
		return false
	}
	r := &w.recs[i]
	was := r.c[id].sent != 0 || r.c[id].acked != 0
	r.c[id] = compRec{}
	return was
}

// Forget resets e's baseline so the next snapshot carries all of it (GET_ENT, seed 004 §3.3).
func (w *Writer) Forget(e ecs.Entity) {
	i := int(e.Index())
	if i < len(w.recs) && w.recs[i].gen == e.Generation() {
		ever := w.recs[i].ever
		w.recs[i] = entityRec{gen: e.Generation(), ever: ever}
	}
}

// Acked records that the datagram seq reached the client: the components it carried become the
// client's baseline. Connect it to transport.Endpoint.OnAck.
func (w *Writer) Acked(seq uint16) {
	s := &w.seqs[seq&255]
	if !s.valid || s.seq != seq {
		return
	}
	s.valid = false
	for i := 0; i < s.n; i++ {
		en := &w.ring[(s.start+uint64(i))%uint64(len(w.ring))]
		if int(en.index) >= len(w.recs) {
			continue
		}
		r := &w.recs[en.index]
		if r.gen != en.gen {
			continue
		}
		if en.tick > r.c[en.comp].acked {
			r.c[en.comp].acked = en.tick
		}
		if w.t.dr {
			switch ecs.ComponentID(en.comp) {
			case w.t.drPos:
				if !r.ap || en.wt >= r.apT {
					r.apX, r.apY, r.apT, r.ap = en.x, en.y, en.wt, true
				}
			case w.t.drVel:
				if !r.av || en.wt >= r.avT {
					r.avX, r.avY, r.avT, r.av = en.x, en.y, en.wt, true
				}
			}
		}
	}
}

// reckon drops the Position from want when the client computes it from what it acknowledged
// (and adds it when the Velocity goes out, so the client re-anchors).
//
// It also returns the entity's Position and Velocity as the client will hold them once sent
// (clientMotion), read and quantised once for the caller's Motion record.
func (w *Writer) reckon(s *entSum, r *entityRec, want *uint16, wnow ecs.Tick) (m motion) {
	t := w.t
	pb, vb := bit(t.drPos), bit(t.drVel)
	if pb == 0 || vb == 0 || s.mask&(pb|vb) != pb|vb || *want&(pb|vb) == 0 {
		return m
	}
	m = *t.motionOf(s)
	if *want&vb != 0 {
		*want |= pb
		return m
	}
	x, y, vx, vy := m.rx, m.ry, m.vx, m.vy // where it is, with the Velocity the client would hold
	near := func(ax, ay float32, at ecs.Tick) bool {
		px, py := Extrapolate(ax, ay, vx, vy, float32(int32(wnow-at)), t.rate)
		return abs32(px-x) <= t.drThresh && abs32(py-y) <= t.drThresh
	}
	// The client computes the Position from the anchor it acknowledged, or from the one in
	// flight (sent less than ResendTicks ago: if it is lost, the Position goes out again then).
	if r.ap && r.av && vx == r.avX && vy == r.avY && near(r.apX, r.apY, r.apT) ||
		r.sp && w.Clock-r.spAt < w.ResendTicks && vx == r.svX && vy == r.svY && near(r.spX, r.spY, r.spT) {
		*want &^= pb
		w.ReckonedSkips++
	}
	return m
}

// motion is an entity's Position (px) and Velocity (px/s) as a client holds them once sent;
// packed when they fit a Motion record (then quantised), ok when the entity has both. rx, ry
// is the Position as the server has it.
type motion struct {
	x, y, vx, vy float32
	rx, ry       float32
	packed, ok   bool
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

// record adds en to the datagram s (the newest in seqs).
func (w *Writer) record(s *seqRec, en entry) {
	if w.head-w.low >= uint64(len(w.ring)) {
		w.low = w.oldest() // it only moves forward: looked up again only when the ring is full
		if w.head-w.low >= uint64(len(w.ring)) {
			w.grow()
		}
	}
	w.ring[w.head%uint64(len(w.ring))] = en
	w.head++
	s.n++
}

// oldest is the ring position of the first entry of the oldest datagram still waiting for its
// ack (head when none).
func (w *Writer) oldest() uint64 {
	o := w.head
	for i := range w.seqs {
		if s := &w.seqs[i]; s.valid && s.n > 0 && s.start < o {
			o = s.start
		}
	}
	return o
}

// grow doubles the ring, keeping every entry from the oldest datagram waiting for its ack.
func (w *Writer) grow() {
	old := w.ring
	w.ring = make([]entry, max(2*len(old), 256))
	if len(old) == 0 {
		return
	}
	for p := w.head - min(w.head, uint64(len(old))); p < w.head; p++ {
		w.ring[p%uint64(len(w.ring))] = old[p%uint64(len(old))]
	}
}

// AppendSnapshot appends a STATE command (docs/PROTOCOL.md §3.4.10: one compact record per
// entity) for what the client lacks to buf (a datagram whose header carries sequence seq),
// staying within limit bytes, and reports whether entities were left out for lack of room (call
// again with a new datagram). Nothing is appended when the client lacks nothing. Entities are
// visited round-robin from where the last full datagram stopped, so none starves. The world is read from the Tracker's summary of the
// current tick, which every Writer shares.
func (w *Writer) AppendSnapshot(buf []byte, limit int, seq uint16) (out []byte, more bool) {
	t := w.t
	now := w.Clock
	wnow := t.W.Tick()
	s := &w.seqs[seq&255]
	s.seq, s.valid, s.n, s.start = seq, true, 0, w.head
	sum := t.summary()
	n := len(sum)
	if n == 0 {
		return buf, false
	}
	state := -1 // offset of the STATE command once begun
	end := func(buf []byte) []byte {
		if state >= 0 {
			buf = wire.EndState(buf, state)
		}
		return buf
	}
	// the first entity at or after the cursor's index (wrapping round)
	lo, hi := 0, n
	for lo < hi {
		if mid := int(uint(lo+hi) >> 1); int(sum[mid].e.Index()) < w.cursor {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	posBit, velBit := bit(t.drPos), bit(t.drVel)
	for k := 0; k < n; k++ {
		p := lo + k
		if p >= n {
			p -= n
		}
		es := &sum[p]
		e := es.e
		r := w.rec(e)
		var want uint16
		othersAcked := true // every component but Position and Velocity acknowledged as it is
		for b := es.mask; b != 0; b &= b - 1 {
			id := bits.TrailingZeros16(b)
			ch := es.ch[id]
			if ch <= r.c[id].acked {
				continue
			}
			if b&-b&(posBit|velBit) == 0 {
				othersAcked = false
			}
			if ch <= r.c[id].sent && now-r.c[id].at < w.ResendTicks {
				continue // in flight
			}
			want |= 1 << id
		}
		if othersAcked && es.derived {
			want &^= posBit | velBit // the client computes them
		}
		var m motion
		if t.dr {
			m = w.reckon(es, r, &want, wnow)
		}
		// Position and Velocity as one Motion record (PackMotion).
		packed := t.motion && want&posBit != 0 && m.ok && m.packed
		mx, my, mvx, mvy := m.x, m.y, m.vx, m.vy
		nc := 0
		var mask uint16 // the record's components (wire.MaskOf)
		spawn := false
		if packed {
			want &^= posBit | velBit
			nc = 1
			mask = wire.MaskOf(wire.CompMotion)
			if sb := bit(t.spawnWith); t.spawnWith != 0 && want&sb != 0 {
				spawn = true
				want &^= sb
				mask = wire.MaskOf(wire.CompSpawn)
			}
		}
		for b := want; b != 0; b &= b - 1 {
			nc++
			mask |= wire.MaskOf(uint16(bits.TrailingZeros16(b)))
		}
		if nc == 0 {
			continue
		}
		size := wire.RecordSize(uint64(e), mask)
		if state < 0 {
			size += wire.StateOverhead
		}
		entries := nc
		if packed {
			entries++ // one record, two baseline entries
		}
		if spawn {
			entries++ // and a third
		}
		if len(buf)+size > limit || s.n+entries > maxEntries {
			w.cursor = int(e.Index())
			return end(buf), true
		}
		if state < 0 {
			buf, state = wire.BeginState(buf)
		}
		buf = wire.AppendRecordHead(buf, uint64(e), mask)
		if packed {
			ids := [3]ecs.ComponentID{t.drPos, t.drVel, t.spawnWith}
			n := 2
			if spawn {
				n = 3
				buf = t.byID[t.spawnWith].AppendWire(buf, e)
			}
			buf, _ = wire.AppendMotion(buf, mx, my, mvx, mvy)
			for _, id := range ids[:n] {
				ch := es.ch[id]
				r.c[id].sent, r.c[id].at = ch, now
				en := entry{index: e.Index(), gen: e.Generation(), comp: uint8(id), tick: ch, wt: wnow, x: mx, y: my}
				if id == t.drVel {
					en.x, en.y = mvx, mvy
				}
				w.record(s, en)
			}
			r.spX, r.spY, r.spT, r.spAt, r.sp, r.svX, r.svY = mx, my, wnow, now, true, mvx, mvy
		}
		// The other components in the record's order (wire.MaskOf: the highest id first).
		for b := want; b != 0; {
			id := ecs.ComponentID(15 - bits.LeadingZeros16(b))
			b &^= 1 << id
			st := t.byID[id]
			at := len(buf)
			buf = st.AppendWire(buf, e)
			ch := es.ch[id]
			r.c[id].sent, r.c[id].at = ch, now
			en := entry{index: e.Index(), gen: e.Generation(), comp: uint8(id), tick: ch, wt: wnow}
			if t.dr && (id == t.drPos || id == t.drVel) {
				en.x, en.y = readXY(buf[at:])
				if id == t.drPos {
					r.spX, r.spY, r.spT, r.spAt, r.sp = en.x, en.y, wnow, now, true
					if es.mask&velBit != 0 {
						r.svX, r.svY = readXY(t.byID[t.drVel].AppendWire(w.scratch[:0], e))
					}
				}
			}
			w.record(s, en)
		}
		if !r.ever && t.expires != nil {
			r.expires = t.expires(e)
		}
		r.ever = true
		w.EntitiesSent++
		w.ComponentsSent += uint64(nc)
	}
	w.cursor = 0
	return end(buf), false
}
