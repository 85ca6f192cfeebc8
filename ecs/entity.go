package ecs

// Entity identifies an entity of a [World]: the low 32 bits are the slot
// index, the high 32 bits the generation (>= 1, bumped when the slot is
// destroyed). It is also the u64 entId of the wire protocol, so the top bit
// of a valid entity is always 0. The zero value is [Nil].
type Entity uint64

// Nil is the null entity; it is never alive.
const Nil Entity = 0

// maxGeneration is the highest generation a slot may reach: ids must keep
// their top bit clear (wire entId is a non-negative int64). A slot whose
// generation would exceed it is retired (never recycled).
const maxGeneration = 1<<31 - 1

// MaxIndex bounds the entity index accepted by [World.CreateWithID]: ids
// come from the network, and storage grows to the largest index seen, so a
// hostile or corrupted id must not make the mirror allocate gigabytes.
// Indices are recycled, so a server never gets near it.
const MaxIndex = 1<<20 - 1

// newEntity builds the id of slot index with generation gen.
func newEntity(index, gen uint32) Entity {
	return Entity(uint64(gen)<<32 | uint64(index))
}

// Index returns the slot index (low 32 bits).
func (e Entity) Index() uint32 { return uint32(e) }

// Generation returns the generation (high 32 bits); 0 only for [Nil] and
// other invalid ids.
func (e Entity) Generation() uint32 { return uint32(e >> 32) }

// ComponentID is the wire id of a component type, 1..63; it is also the bit
// of the component in a [Signature].
type ComponentID uint16

// MaxComponentID is the highest valid [ComponentID].
const MaxComponentID ComponentID = 63

// Tick is a simulation step number (60 Hz in the game). A world starts at
// tick 0.
type Tick uint32

// Signature is the set of components of an entity: bit i is set when the
// entity has the component whose [ComponentID] is i (bit 0 is never set).
type Signature uint64

// Has reports whether the signature contains component id.
func (s Signature) Has(id ComponentID) bool {
	return id <= MaxComponentID && s&(1<<id) != 0
}
