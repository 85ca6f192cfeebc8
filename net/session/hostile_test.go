package session

import (
	"net/netip"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/replication"
	"github.com/rtype/rtype/net/testsupport/hostileserver"
	"github.com/rtype/rtype/net/wire"
)

// hostile is a server, in virtual time, that says what it likes to one client core: it welcomes
// the client properly (REL + WELCOME) and then sends the datagrams a test builds.
type hostile struct {
	c   *Client
	seq uint16
	rel uint16
}

const hostileToken = 0x5eed

var hostileServer = netip.MustParseAddrPort("127.0.0.1:9")

// newHostile returns a client welcomed into slot 0 (ship entity index 1) at server tick 100.
func newHostile() *hostile {
	h := &hostile{c: NewClient(ClientConfig{Token: hostileToken, Server: hostileServer}, 0)}
	h.c.Tick(time.Millisecond) // HERE
	h.send(100, func(b []byte) []byte {
		h.rel++
		b = wire.Rel{ID: h.rel}.Append(b)
		return wire.Welcome{Entity: 1<<32 | 1, Slot: 0, Tick: 100, TickRate: game.TickRate}.Append(b)
	})
	return h
}

// send delivers one datagram of header tick tick, its commands appended by build, 1/60 s after
// the previous call, and runs the client's tick.
func (h *hostile) send(tick uint32, build func(b []byte) []byte) {
	h.seq++
	b := wire.Header{Token: hostileToken, Tick: tick, Seq: h.seq}.Append(make([]byte, 0, wire.MaxDatagram))
	b = build(b)
	now := h.c.t + time.Second/game.TickRate
	h.c.Receive(now, b)
	h.c.Tick(now)
	h.c.out.Reset()
}

// spawnCmd appends an ENTITY of e with a Spawn record (Kind, Position, Velocity).
func spawnCmd(b []byte, e ecs.Entity, kind game.EntityKind, x, y, vx float32) []byte {
	b, start := wire.BeginEntity(b, uint64(e))
	b = wire.AppendComponentHeader(b, wire.CompSpawn, wire.ComponentSize(wire.CompSpawn))
	b = append(b, byte(kind), 0)
	b, _ = wire.AppendMotion(b, x, y, vx, 0)
	return wire.EndEntity(b, start, 1)
}

// stateCmd appends a STATE with one Spawn record (Kind, Position, Velocity) per entity of es.
func stateCmd(b []byte, kind game.EntityKind, x, y, vx float32, es ...ecs.Entity) []byte {
	b, start := wire.BeginState(b)
	for _, e := range es {
		b = wire.AppendRecordHead(b, uint64(e), wire.MaskOf(wire.CompSpawn))
		b = append(b, byte(kind), 0)
		b, _ = wire.AppendMotion(b, x, y, vx, 0)
	}
	return wire.EndState(b, start)
}

func entityAt(index, gen uint32) ecs.Entity { return ecs.Entity(uint64(gen)<<32 | uint64(index)) }

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// One ENTITY may name any index up to ecs.MaxIndex (1 048 575). The client's storage must not be
// sized by what the server claims: entities above the mirror's index limit are dropped, and the
// largest index allowed costs a few MB, not a gigabyte (issue 19: 848 MB for the bot).
func TestHostileEntityIndexBoundsMemory(t *testing.T) {
	h := newHostile()
	before := heapInUse()
	h.send(102, func(b []byte) []byte {
		b = spawnCmd(b, entityAt(ecs.MaxIndex, 1), game.KindEnemy, 900, 500, -60)
		return spawnCmd(b, entityAt(1<<19, 1), game.KindEnemy, 900, 500, -60)
	})
	for tick := uint32(104); tick < 120; tick += 2 {
		h.send(tick, func(b []byte) []byte { return b })
	}
	grown := int64(heapInUse()) - int64(before)
	runtime.KeepAlive(h)
	if grown > 8<<20 {
		t.Errorf("two ENTITY commands with huge indices grew the heap by %.1f MB, want under 8 MB", float64(grown)/(1<<20))
	}
	if h.c.world.Alive(entityAt(ecs.MaxIndex, 1)) {
		t.Error("an entity above the index limit is in the mirror")
	}
	if h.c.stats.Dropped == 0 {
		t.Error("the ENTITY above the index limit was not counted as dropped")
	}
}

// The same in a STATE (docs/PROTOCOL.md §3.4.10): records above the index limit are dropped and
// counted one by one, and the records around them in the same command are applied.
func TestHostileStateIndexBoundsMemory(t *testing.T) {
	h := newHostile()
	before := heapInUse()
	ok1, ok2 := entityAt(50, 1), entityAt(replication.MaxEntityIndex, 2)
	h.send(102, func(b []byte) []byte {
		return stateCmd(b, game.KindEnemy, 900, 500, -60, ok1, entityAt(ecs.MaxIndex, 1), entityAt(1<<19, 1), ok2)
	})
	for tick := uint32(104); tick < 120; tick += 2 {
		h.send(tick, func(b []byte) []byte { return b })
	}
	grown := int64(heapInUse()) - int64(before)
	runtime.KeepAlive(h)
	if grown > 8<<20 {
		t.Errorf("a STATE with two huge indices grew the heap by %.1f MB, want under 8 MB", float64(grown)/(1<<20))
	}
	if h.c.world.Alive(entityAt(ecs.MaxIndex, 1)) || h.c.world.Alive(entityAt(1<<19, 1)) {
		t.Error("an entity above the index limit is in the mirror")
	}
	if !h.c.world.Alive(ok1) || !h.c.world.Alive(ok2) {
		t.Errorf("the records before and after the refused ones were not applied (index 50: %v, index %d: %v)",
			h.c.world.Alive(ok1), replication.MaxEntityIndex, h.c.world.Alive(ok2))
	}
	if h.c.stats.Dropped != 2 {
		t.Errorf("%d records counted as dropped, want the 2 above the index limit", h.c.stats.Dropped)
	}
}

// A datagram whose header tick is 2³¹−1 ahead must not make the client predict every tick in
// between (under the session's lock): the input tick is re-aimed at once, and a later datagram
// of an old tick with the ship's Position does not replay 2³¹ inputs either.
func TestHostileTickJumpIsBounded(t *testing.T) {
	h := newHostile()
	self := entityAt(1, 1)
	h.send(102, func(b []byte) []byte {
		b, start := wire.BeginEntity(b, uint64(self))
		b = wire.AppendComponentHeader(b, uint16(game.CompPlayer), wire.ComponentSize(uint16(game.CompPlayer)))
		b = append(b, make([]byte, wire.ComponentSize(uint16(game.CompPlayer)))...)
		b = wire.EndEntity(b, start, 1)
		return spawnCmd(b, self, game.KindPlayer, 300, 500, 0)
	})
	for tick := uint32(104); tick < 130; tick += 2 {
		h.send(tick, func(b []byte) []byte { return b })
	}
	if !h.c.predOK || h.c.inTick == 0 {
		t.Fatalf("the ship is not predicted (predOK %v, inTick %d)", h.c.predOK, h.c.inTick)
	}
	done := make(chan struct{})
	jump := h.c.servTick + 1<<31 - 1
	go func() {
		defer close(done)
		h.send(jump, func(b []byte) []byte { return b })
		h.send(jump+2, func(b []byte) []byte { return b })
		// a datagram of an old tick carrying the ship's Position: reconciliation from there
		h.send(jump-1<<30, func(b []byte) []byte { return spawnCmd(b, self, game.KindPlayer, 320, 500, 0) })
		h.send(jump+4, func(b []byte) []byte { return b })
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second): // a hang detector: bounded work takes microseconds
		t.Fatal("a header tick 2³¹−1 ahead froze the client (still predicting after 20 s)")
	}
	if d := int32(h.c.inTick - h.c.servTick); d < 0 || d > 64 {
		t.Errorf("input tick %d is %d ticks from the server tick %d after the jump, want it re-aimed just ahead", h.c.inTick, d, h.c.servTick)
	}
}

// A DEL_ENT repeated for the same entity (whose tick the render timeline never reaches) is kept
// once, not once per command: the list of entities shown dying is bounded by the entities.
func TestHostileRepeatedDelEntIsKeptOnce(t *testing.T) {
	h := newHostile()
	e := entityAt(7, 1)
	h.send(102, func(b []byte) []byte { return spawnCmd(b, e, game.KindEnemy, 900, 500, 0) })
	// a burst: 50 datagrams arriving at once, each of 40 DEL_ENT of the same entity or of a
	// DEL_ENTS naming it 500 times
	now := h.c.t
	for i := 0; i < 50; i++ {
		h.seq++
		b := wire.Header{Token: hostileToken, Tick: 104, Seq: h.seq}.Append(nil)
		if i%2 == 0 {
			for k := 0; k < 40; k++ {
				b = wire.DelEnt{Entity: uint64(e)}.Append(b)
			}
		} else { // a DEL_ENTS naming it 500 times
			var start int
			b, start = wire.BeginDelEnts(b)
			for k := 0; k < 500; k++ {
				b = wire.AppendEntityRef(b, uint64(e))
			}
			b = wire.EndDelEnts(b, start)
		}
		h.c.Receive(now, b)
	}
	if h.c.stats.Dropped != 0 {
		t.Fatalf("%d datagrams dropped", h.c.stats.Dropped)
	}
	if n := len(h.c.dying); n > 1 {
		t.Errorf("%d dying records for one entity after 1000 DEL_ENT and 12 500 in DEL_ENTS, want 1", n)
	}
}

// BenchmarkHostile measures what each hostile case of issue 19 costs the client core
// (docs/BENCHMARKS.md, "The client against a hostile server"): heap grown (MB) and time per
// datagram or tick.
func BenchmarkHostile(b *testing.B) {
	// one ENTITY at the largest index ecs allows (dropped), or at the mirror's limit (held), then
	// an empty snapshot
	for _, index := range []uint32{ecs.MaxIndex, replication.MaxEntityIndex} {
		b.Run("index-"+strconv.Itoa(int(index)), func(b *testing.B) { benchIndex(b, index) })
	}
	// an empty snapshot after one entity at index 16 383 (the whole anchor table walked?)
	b.Run("empty-after-high-index", func(b *testing.B) {
		h := newHostile()
		h.send(102, func(d []byte) []byte { return spawnCmd(d, entityAt(1<<14-1, 1), game.KindEnemy, 900, 500, -60) })
		tick := uint32(104)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			tick++
			h.send(tick, func(d []byte) []byte { return d })
		}
	})
	// a header tick 10⁷ ahead, then the client's tick (ns per jump)
	b.Run("tick-jump-1e7", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			h := newHostile()
			self := entityAt(1, 1)
			h.send(102, func(d []byte) []byte { return spawnCmd(d, self, game.KindPlayer, 300, 500, 0) })
			h.send(104, func(d []byte) []byte { return d })
			b.StartTimer()
			h.send(104+10_000_000, func(d []byte) []byte { return d })
		}
	})
	// churn: n live entities, each datagram replaces 30 of them by a newer generation (ns per
	// replacement); the ratio between n = 16000 and n = 100 shows O(1) or O(n)
	for _, n := range []int{100, 16000} {
		b.Run("churn-"+strconv.Itoa(n), func(b *testing.B) {
			h := newHostile()
			tick := uint32(102)
			for i := 0; i < n; i += 30 {
				tick++
				h.send(tick, func(d []byte) []byte {
					for k := i; k < min(i+30, n); k++ {
						d = spawnCmd(d, entityAt(uint32(10+k), 1), game.KindEnemy, 900, 500, 0)
					}
					return d
				})
			}
			gen := uint32(1)
			next := 0
			b.ResetTimer()
			for i := 0; i < b.N; i += 30 {
				tick++
				h.send(tick, func(d []byte) []byte {
					for k := 0; k < 30; k++ {
						if next == n {
							next, gen = 0, gen+1
						}
						d = spawnCmd(d, entityAt(uint32(10+next), gen+1), game.KindEnemy, 900, 500, 0)
						next++
					}
					return d
				})
			}
		})
	}
}

func benchIndex(b *testing.B, index uint32) {
	var grown int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		h := newHostile()
		before := heapInUse()
		b.StartTimer()
		h.send(102, func(d []byte) []byte { return spawnCmd(d, entityAt(index, 1), game.KindEnemy, 900, 500, -60) })
		h.send(104, func(d []byte) []byte { return d })
		b.StopTimer()
		grown += int64(heapInUse()) - int64(before)
		runtime.KeepAlive(h)
		b.StartTimer()
	}
	b.ReportMetric(float64(grown)/float64(b.N)/(1<<20), "MB-grown")
}

// A killed server resets the lobby connection at once and its game goes silent: after LobbyLost
// the session ends after 1 s of silence, not 10; a game whose datagrams still come goes on.
func TestLobbyLostEndsSilentSessionSoon(t *testing.T) {
	for _, silent := range []bool{true, false} {
		h := newHostile()
		for tick := uint32(102); tick < 120; tick += 2 {
			h.send(tick, func(b []byte) []byte { return b })
		}
		h.c.LobbyLost(h.c.t)
		lost, tick := h.c.t, uint32(120)
		for now := lost; now < lost+3*time.Second; now += time.Second / game.TickRate {
			if !silent {
				tick++
				h.send(tick, func(b []byte) []byte { return b })
				continue
			}
			h.c.Tick(now)
			if end, _ := h.c.CloseRequested(); end {
				break
			}
		}
		end, why := h.c.CloseRequested()
		after := h.c.t - lost
		switch {
		case silent && (!end || after > InterruptedAfter+100*time.Millisecond):
			t.Errorf("silent game: closed %v (%q) %v after the lobby was lost, want closed about %v after", end, why, after, InterruptedAfter)
		case !silent && end:
			t.Errorf("a game still sending was closed after the lobby was lost: %q", why)
		}
	}
}

// A server replacing entities without end (hostileserver.Churn: each datagram places 30 entities
// with a newer generation, as ENTITY and as STATE) must not grow the client's memory with the
// run: the live heap after 5× the datagrams is what it was after 1× (issue 31: the mirror
// world's event buffer, never drained on a client, kept every creation and destruction, 945 MB
// for the bot in 3 minutes). In virtual time, as fast as the CPU goes: 1× is 1 500 datagrams
// (45 000 replacements of 600 live entities), 5× is a minute of a hostile server's rate.
func TestHostileChurnHeapIsFlat(t *testing.T) {
	const indices, once = 600, 1500
	churn := hostileserver.Churn(indices)
	h := newHostile()
	tick, n := uint32(101), 0
	feed := func(count int) {
		for ; count > 0; count-- {
			tick++
			h.send(tick, func(b []byte) []byte { return churn(b, tick, n) })
			n++
		}
	}
	feed(once)
	if live := h.c.world.Len(); live < indices {
		t.Fatalf("%d live entities after %d datagrams, want the %d churned ones (the datagrams are not applied)", live, once, indices)
	}
	after1 := heapInUse()
	feed(4 * once)
	after5 := heapInUse()
	runtime.KeepAlive(h)
	grown := int64(after5) - int64(after1)
	t.Logf("live heap %.1f MB after %d datagrams, %.1f MB after %d", float64(after1)/(1<<20), once, float64(after5)/(1<<20), 5*once)
	if grown > 2<<20 {
		t.Errorf("the live heap grew by %.1f MB between %d and %d datagrams of churn, want it flat (under 2 MB)",
			float64(grown)/(1<<20), once, 5*once)
	}
	if h.c.stats.Dropped != 0 {
		t.Errorf("%d datagrams or records dropped, want every churned entity applied", h.c.stats.Dropped)
	}
}
