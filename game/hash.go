package game

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/rtype/rtype/ecs"
)

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnv(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// Hash returns a 64-bit FNV-1a hash of the whole simulation state: tick,
// PRNG state, the script position and flags, the held inputs, then every
// live entity in ascending index order with each of its components (id
// and wire encoding, replicated and server-only, ordered by id). Two
// simulations fed the same seed, stage and inputs have the same hash at
// every tick. It does not allocate once its buffer has grown.
func (s *Sim) Hash() uint64 {
	b := s.hashBuf[:0]
	b = binary.LittleEndian.AppendUint32(b, uint32(s.w.Tick()))
	b = binary.LittleEndian.AppendUint64(b, s.rng.state)
	b = binary.LittleEndian.AppendUint32(b, uint32(s.spawnIdx))
	b = append(b, flag(s.bossSpawned), flag(s.bossDead), flag(s.over), uint8(s.result), flag(s.musicSent), uint8(s.n), uint8(s.diff))
	for i := range s.inputs {
		b = append(b, uint8(s.inputs[i]))
		b = binary.LittleEndian.AppendUint64(b, uint64(s.ships[i]))
		b = append(b, s.stats[i].Continues, flag(s.lastDeath[i].valid))
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(s.lastDeath[i].y))
		b = binary.LittleEndian.AppendUint32(b, uint32(s.lastDeath[i].tick))
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(s.boss))
	b = binary.LittleEndian.AppendUint64(b, uint64(s.weak))
	for _, e := range s.parts {
		b = binary.LittleEndian.AppendUint64(b, uint64(e))
	}
	b = s.appendRunHash(b)
	h := fnv(fnvOffset, b)
	w := s.w
	w.Each(func(e ecs.Entity) {
		b = binary.LittleEndian.AppendUint64(b[:0], uint64(e))
		for sig := uint64(w.Signature(e)); sig != 0; sig &= sig - 1 {
			id := ecs.ComponentID(bits.TrailingZeros64(sig))
			b = binary.LittleEndian.AppendUint16(b, uint16(id))
			if st := w.Store(id); st != nil {
				b = st.AppendWire(b, e)
			}
		}
		h = fnv(h, b)
	})
	s.hashBuf = b
	return h
}

func flag(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
