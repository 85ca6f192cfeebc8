package session

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/replication"
	"github.com/rtype/rtype/net/wire"
)

// Fuzz input: a sequence of operations on a welcomed client core, in virtual time.
const (
	fuzzDatagram = iota // u16 length, i32 header tick delta, then that many bytes of commands
	fuzzTick            // the 60 Hz tick, 1/60 s later
	fuzzView            // a frame
	fuzzWait            // u8: that many 10 ms pass
	fuzzOps
)

// fuzzDgram encodes a datagram operation (for the seeds).
func fuzzDgram(dst []byte, tickDelta int32, cmds []byte) []byte {
	dst = append(dst, fuzzDatagram)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(cmds)))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(tickDelta))
	return append(dst, cmds...)
}

// FuzzClientDatagrams feeds a welcomed session.Client arbitrary and adversarial datagram
// sequences (the header is made valid, with the session's token; the commands are the fuzzer's)
// interleaved with ticks, frames and waits. Whatever the server sends, the client does not panic,
// each call returns at once (the watchdog catches unbounded loops), and what it holds stays within
// the limits of docs/PROTOCOL.md §6 rule 9.
func FuzzClientDatagrams(f *testing.F) {
	self := entityAt(1, 1)
	var seed []byte
	seed = fuzzDgram(seed, 2, spawnCmd(nil, self, game.KindPlayer, 300, 500, 0))
	seed = append(seed, fuzzTick, fuzzView)
	seed = fuzzDgram(seed, 2, spawnCmd(spawnCmd(nil, entityAt(1<<20-1, 1), game.KindEnemy, 900, 500, -60), entityAt(replication.MaxEntityIndex, 1), game.KindEnemy, 900, 400, -60))
	seed = append(seed, fuzzTick, fuzzWait, 5, fuzzView)
	f.Add(seed)
	jump := fuzzDgram(nil, 2, spawnCmd(nil, self, game.KindPlayer, 300, 500, 0))
	jump = fuzzDgram(jump, 1<<31-1, nil)
	jump = append(jump, fuzzTick, fuzzTick)
	jump = fuzzDgram(jump, -1<<30, spawnCmd(nil, self, game.KindPlayer, 320, 500, 0))
	jump = append(jump, fuzzTick, fuzzView)
	f.Add(jump)
	var churn []byte
	for g := uint32(1); g < 4; g++ {
		var cmds []byte
		for i := uint32(0); i < 30; i++ {
			cmds = spawnCmd(cmds, entityAt(10+i, g), game.KindEnemy, 900, 500, -30)
		}
		churn = fuzzDgram(churn, 1, cmds)
		churn = append(churn, fuzzTick)
	}
	var dels []byte
	for i := 0; i < 40; i++ {
		dels = wire.DelEnt{Entity: uint64(entityAt(10, 3))}.Append(dels)
	}
	churn = fuzzDgram(churn, 0, dels)
	churn = fuzzDgram(churn, 0, wire.DelComp{Entity: uint64(entityAt(11, 3)), Component: uint32(game.CompVelocity)}.Append(nil))
	churn = append(churn, fuzzView, fuzzWait, 200, fuzzTick)
	f.Add(churn)
	// the same in STATE records: huge indices among valid ones, then a newer generation of each
	var state []byte
	state = fuzzDgram(state, 2, stateCmd(nil, game.KindPlayer, 300, 500, 0, self))
	state = fuzzDgram(state, 2, stateCmd(nil, game.KindEnemy, 900, 500, -60, entityAt(10, 1), entityAt(1<<20-1, 1),
		entityAt(replication.MaxEntityIndex, 1), entityAt(11, 1)))
	state = append(state, fuzzTick, fuzzView)
	state = fuzzDgram(state, 1, stateCmd(nil, game.KindEnemy, 900, 400, -30, entityAt(10, 2), entityAt(11, 2)))
	state = append(state, fuzzTick, fuzzWait, 5, fuzzView)
	f.Add(state)

	f.Fuzz(func(t *testing.T, in []byte) {
		h := newHostile()
		c := h.c
		tick := c.servTick
		now := c.t
		var events []Event
		for len(in) > 0 {
			op := in[0] % fuzzOps
			in = in[1:]
			start := time.Now()
			switch op {
			case fuzzDatagram:
				if len(in) < 6 {
					return
				}
				n := int(binary.LittleEndian.Uint16(in))
				tick += binary.LittleEndian.Uint32(in[2:])
				in = in[6:]
				n = min(n, len(in), wire.MaxDatagram-wire.HeaderSize)
				h.seq++
				b := wire.Header{Token: hostileToken, Tick: tick, Seq: h.seq}.Append(make([]byte, 0, wire.MaxDatagram))
				b = append(b, in[:n]...)
				in = in[n:]
				c.Receive(now, b)
			case fuzzTick:
				now += time.Second / game.TickRate
				c.Tick(now)
			case fuzzView:
				c.View(now, func(v *View) { v.World.Each(func(e ecs.Entity) { v.Pos(e) }) })
			case fuzzWait:
				if len(in) == 0 {
					return
				}
				now += time.Duration(in[0]) * 10 * time.Millisecond
				in = in[1:]
			}
			c.out.Reset()
			events = c.TakeEvents(events[:0])
			if d := time.Since(start); d > 2*time.Second { // bounded work takes microseconds
				t.Fatalf("operation %d took %v", op, d)
			}
			if n := c.world.Len(); n > replication.MaxEntityIndex+1 {
				t.Fatalf("%d entities held, above the limit", n)
			}
			if len(c.interp.tracks) > replication.MaxEntityIndex+1 || len(c.dying) > replication.MaxEntityIndex+1 {
				t.Fatalf("%d interpolation tracks, %d dying: above the limit", len(c.interp.tracks), len(c.dying))
			}
		}
	})
}
