package wire

// Component ids of component list v3 (docs/PROTOCOL.md §4).
const (
	CompPosition uint16 = 1 // x f32, y f32: virtual px, centre (8 bytes)
	CompVelocity uint16 = 2 // vx f32, vy f32: px/s (8 bytes)
	CompKind     uint16 = 3 // kind u8, variant u8 (2 bytes)
	CompPlayer   uint16 = 4 // slot, lives, flags, laser, speed, missile u8, score u32, chargeFrom u32 tick (14 bytes)
	CompHealth   uint16 = 5 // hp u16, maxHP u16 (4 bytes)
	CompForce    uint16 = 6 // owner u64, mode u8, level u8 (10 bytes)
	CompBoss     uint16 = 7 // phase u8, weakOpen u8 (2 bytes)
	// Id 8 is reserved (Size in earlier drafts: sizes now follow from Kind, docs/PROTOCOL.md §4.1).
	CompStage uint16 = 9 // section u8 (1 byte); the scroll is the stage entity's Position
	// CompMotion is Position and Velocity in one fixed-point record: x, y i16 in 1/8 px, vx, vy
	// i16 in 1/16 px/s (8 bytes; AppendMotion, ParseMotion). Never with Position or Velocity
	// in the same ENTITY.
	CompMotion uint16 = 10
	// CompSpawn is Kind and Motion in one record: kind u8, variant u8, then the 8 bytes of a
	// Motion (10 bytes), for an entity's first ENTITY. Never with Kind, Motion, Position or
	// Velocity in the same ENTITY.
	CompSpawn uint16 = 11

	// MaxComponent is the largest component id of list v3.
	MaxComponent = CompSpawn
)

var compSizes = [MaxComponent + 1]uint8{CompPosition: 8, CompVelocity: 8, CompKind: 2, CompPlayer: 14, CompHealth: 4,
	CompForce: 10, CompBoss: 2, CompStage: 1, CompMotion: MotionSize, CompSpawn: SpawnSize}

// MotionSize and SpawnSize are the data bytes of a Motion record and of a Spawn record (a Kind's
// 2 bytes, then a Motion's).
const (
	MotionSize = 8
	SpawnSize  = 2 + MotionSize
)

// ComponentSize returns the fixed encoded size in bytes of component id in
// component list v2 (docs/PROTOCOL.md §4), or 0 for an unknown or reserved id.
func ComponentSize(id uint16) int {
	if int(id) < len(compSizes) {
		return int(compSizes[id])
	}
	return 0
}

// ENTITY layout sizes.
const (
	// EntityOverhead is the size of an ENTITY command with no component:
	// size u16 + id u8 + entId u64 + compCount u8.
	EntityOverhead = 12
	// ComponentOverhead is the per-component header: componentId u16 +
	// componentSize u64.
	ComponentOverhead = 10
	// entityFixedArgs: entId + compCount.
	entityFixedArgs = 9
)

// BeginEntity starts an ENTITY command (id 1, s→c, seed 004 §3.2.2) for
// entity ent at the end of buf: it appends the size prefix and compCount as
// placeholders, and returns the new buffer and the offset of the command,
// which EndEntity needs. Zero allocation when buf has the capacity
// (EntityOverhead bytes plus the components).
func BeginEntity(buf []byte, ent uint64) (out []byte, start int) {
	start = len(buf)
	buf = appendFrame(buf, CmdEntity, 0)
	buf = le.AppendUint64(buf, ent)
	return append(buf, 0), start
}

// AppendComponentHeader appends the 10-byte component header; the caller
// then appends exactly size bytes of component data (for example with an
// ecs codec's Append), which avoids a copy.
func AppendComponentHeader(buf []byte, id uint16, size int) []byte {
	buf = le.AppendUint16(buf, id)
	return le.AppendUint64(buf, uint64(size))
}

// EndEntity finishes the ENTITY command that starts at buf[start]: it patches
// the size prefix (len(buf)-start-2) and compCount. The caller keeps the
// command under 65536 bytes (any datagram of at most MaxDatagram is).
func EndEntity(buf []byte, start int, count uint8) []byte {
	le.PutUint16(buf[start:], uint16(len(buf)-start-2))
	buf[start+EntityOverhead-1] = count
	return buf
}

// Entity is a parsed ENTITY command (id 1, s→c): entity Entity has the Count
// components listed by Components. It is a view into the datagram: it is
// valid only as long as the datagram's buffer is not reused.
//
// Arguments: entId u64, compCount u8, compCount × {componentId u16,
// componentSize u64, data[componentSize]}; componentSize must equal
// ComponentSize(componentId), ids are known and not repeated.
type Entity struct {
	Entity uint64
	Count  uint8
	comps  []byte
}

// Parse decodes and fully checks the ENTITY command at the start of b and
// returns its length. Errors: ErrSize, ErrCmdID, ErrArgLen (shorter than
// entId+compCount), ErrEntityID, ErrComponent.
func (c *Entity) Parse(b []byte) (int, error) {
	a, n, err := frame(b, CmdEntity)
	if err != nil {
		return 0, err
	}
	if len(a) < entityFixedArgs {
		return 0, ErrArgLen
	}
	e, err := entityID(a)
	if err != nil {
		return 0, err
	}
	count := int(a[8])
	comps := a[entityFixedArgs:]
	rest := comps
	var seen uint64
	for i := 0; i < count; i++ {
		if len(rest) < ComponentOverhead {
			return 0, ErrComponent
		}
		id := le.Uint16(rest)
		size := le.Uint64(rest[2:])
		want := ComponentSize(id)
		if want == 0 || size != uint64(want) || uint64(len(rest)-ComponentOverhead) < size {
			return 0, ErrComponent
		}
		bit := uint64(1) << id // id <= MaxComponent < 64
		if seen&bit != 0 {
			return 0, ErrComponent
		}
		seen |= bit
		rest = rest[ComponentOverhead+want:]
	}
	if len(rest) != 0 || (seen&(1<<CompMotion) != 0 && seen&(1<<CompPosition|1<<CompVelocity) != 0) ||
		(seen&(1<<CompSpawn) != 0 && seen&(1<<CompKind|1<<CompMotion|1<<CompPosition|1<<CompVelocity) != 0) {
		return 0, ErrComponent
	}
	c.Entity, c.Count, c.comps = e, uint8(count), comps
	return n, nil
}

// Append re-encodes a parsed Entity (the same bytes that were parsed). To
// build a new ENTITY use BeginEntity, AppendComponentHeader (then the component's bytes) and EndEntity.
func (c Entity) Append(buf []byte) []byte {
	start := len(buf)
	buf, _ = BeginEntity(buf, c.Entity)
	buf = append(buf, c.comps...)
	return EndEntity(buf, start, c.Count)
}

// Components returns an iterator over the components of a parsed Entity.
func (c *Entity) Components() ComponentIter { return ComponentIter{b: c.comps} }

// Raw returns the encoded components (a view into the datagram).
func (c *Entity) Raw() []byte { return c.comps }

// ComponentIter iterates the components of a parsed Entity, or of a STATE Record, in wire order.
//
//	for it := ent.Components(); ; {
//		id, data, ok := it.Next()
//		if !ok { break }
//		...
//	}
type ComponentIter struct {
	b []byte
	// a STATE record's components: those of mask, their data back to back in b
	mask    uint16
	compact bool
}

// Next returns the next component id and its data (a view of exactly
// ComponentSize(id) bytes), or ok=false at the end.
func (it *ComponentIter) Next() (id uint16, data []byte, ok bool) {
	if it.compact {
		if it.mask == 0 {
			return 0, nil, false
		}
		id = MaxComponent - uint16(trailingZeros16(it.mask))
		size := ComponentSize(id)
		if size > len(it.b) {
			it.mask, it.b = 0, nil
			return 0, nil, false
		}
		it.mask &= it.mask - 1
		data, it.b = it.b[:size:size], it.b[size:]
		return id, data, true
	}
	if len(it.b) < ComponentOverhead {
		return 0, nil, false
	}
	id = le.Uint16(it.b)
	size := le.Uint64(it.b[2:])
	if size > uint64(len(it.b)-ComponentOverhead) {
		it.b = nil
		return 0, nil, false
	}
	end := ComponentOverhead + int(size)
	data = it.b[ComponentOverhead:end:end]
	it.b = it.b[end:]
	return id, data, true
}
