package wire

import "math/bits"

// STATE (id 20, s→c, extension; docs/PROTOCOL.md §3.4.10) carries the state of several entities
// in compact records, with the meaning of ENTITY: each record says that an entity exists and
// has these components with these values. A record is
//
//	index u32 as a varint, generation u32 as a varint, mask u16 as a varint,
//	then the data of each component the mask names, fixed size, from bit 0 up
//
// where bit i of the mask names component id MaxComponent-i (bit 0 Spawn, bit 1 Motion, ...,
// bit 10 Position; bit 3, the reserved id 8, is never set). Varints are LEB128, least
// significant 7 bits first, bit 7 set on every byte but the last, in their shortest form. A
// bullet's spawn is 13 bytes in a STATE (index, generation, mask, 10 bytes of Spawn), 32 as an
// ENTITY.

// StateOverhead is the size of a STATE command without records: size u16 + id u8.
const StateOverhead = CmdOverhead

// maskBits is the number of mask bits: one per id 1..MaxComponent.
const maskBits = int(MaxComponent)

// MaskOf returns the mask bit of component id (1..MaxComponent), 0 for any other id.
func MaskOf(id uint16) uint16 {
	if id == 0 || id > MaxComponent {
		return 0
	}
	return 1 << (MaxComponent - id)
}

// maskValid: the bits of the known components (never the reserved id 8).
var maskValid = func() uint16 {
	var m uint16
	for id := uint16(1); id <= MaxComponent; id++ {
		if ComponentSize(id) > 0 {
			m |= MaskOf(id)
		}
	}
	return m
}()

// Component exclusions (docs/PROTOCOL.md §4), as masks: Motion never with Position or Velocity,
// Spawn never with Kind, Motion, Position or Velocity.
var (
	motionExcl = MaskOf(CompPosition) | MaskOf(CompVelocity)
	spawnExcl  = MaskOf(CompKind) | MaskOf(CompMotion) | motionExcl
)

// maskAllowed reports whether a record may carry the components of m (each known, none of
// them excluded by another).
func maskAllowed(m uint16) bool {
	if m&^maskValid != 0 {
		return false
	}
	if m&MaskOf(CompMotion) != 0 && m&motionExcl != 0 {
		return false
	}
	return m&MaskOf(CompSpawn) == 0 || m&spawnExcl == 0
}

// MaskSize is the number of data bytes of the components of mask m.
func MaskSize(m uint16) int {
	n := 0
	for m != 0 {
		i := trailingZeros16(m)
		n += ComponentSize(MaxComponent - uint16(i))
		m &= m - 1
	}
	return n
}

func trailingZeros16(m uint16) int { return bits.TrailingZeros16(m) }

// uvarintLen is the size of the shortest LEB128 encoding of v.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func appendUvarint(buf []byte, v uint64) []byte {
	for v >= 0x80 {
		buf = append(buf, byte(v)|0x80)
		v >>= 7
	}
	return append(buf, byte(v))
}

// readUvarint decodes a shortest-form LEB128 varint of at most maxBytes bytes from b. n is 0
// when b ends inside it (ErrArgLen), or it is longer than maxBytes or not in its shortest form
// (ErrBadValue).
func readUvarint(b []byte, maxBytes int) (v uint64, n int, err error) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1, nil // the common case: one byte
	}
	for i := 0; i < maxBytes; i++ {
		if i >= len(b) {
			return 0, 0, ErrArgLen
		}
		c := b[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if c == 0 && i > 0 {
				return 0, 0, ErrBadValue // not the shortest form
			}
			return v, i + 1, nil
		}
	}
	return 0, 0, ErrBadValue
}

// RecordHeadSize is the size of a record's index, generation and mask for entity ent (index
// and generation of an entId) and mask m, without the component data.
func RecordHeadSize(ent uint64, m uint16) int { return EntityRefSize(ent) + uvarintLen(uint64(m)) }

// RecordSize is the size of a whole record: head and the data of the components of m.
func RecordSize(ent uint64, m uint16) int { return RecordHeadSize(ent, m) + MaskSize(m) }

// BeginState starts a STATE command at the end of buf and returns the new buffer and the
// command's offset, which EndState needs. Append records with AppendRecordHead and their data.
func BeginState(buf []byte) (out []byte, start int) {
	return appendFrame(buf, CmdState, 0), len(buf)
}

// AppendRecordHead appends the head of a record (index, generation, mask m) of entity ent to a
// STATE begun with BeginState; the caller then appends the fixed-size data of each component m
// names, in mask order: from bit 0 up, that is the highest component id first.
func AppendRecordHead(buf []byte, ent uint64, m uint16) []byte {
	return appendUvarint(AppendEntityRef(buf, ent), uint64(m))
}

// EndState finishes the STATE that starts at buf[start]: it patches the size prefix. The
// caller keeps the command under 65536 bytes (any datagram of at most MaxDatagram is).
func EndState(buf []byte, start int) []byte {
	le.PutUint16(buf[start:], uint16(len(buf)-start-2))
	return buf
}

// State is a parsed STATE command: a view of its records into the datagram, valid as long as
// the datagram's buffer is not reused.
type State struct{ recs []byte }

// Parse decodes and fully checks the STATE command at the start of b and returns its length.
// Errors: ErrSize, ErrCmdID, ErrArgLen (no record, or a record cut by the end of the command),
// ErrBadValue (a varint longer than its field or not in its shortest form), ErrEntityID (an
// index above 2³²−1, a generation 0 or with the entId's top bit), ErrComponent (a mask naming
// an unknown component, or Motion or Spawn with a component they exclude).
func (c *State) Parse(b []byte) (int, error) {
	a, n, err := frame(b, CmdState)
	if err != nil {
		return 0, err
	}
	if len(a) == 0 {
		return 0, ErrArgLen
	}
	for rest := a; len(rest) > 0; {
		var r Record
		k, err := r.parse(rest)
		if err != nil {
			return 0, err
		}
		rest = rest[k:]
	}
	c.recs = a
	return n, nil
}

// Append re-encodes a parsed State (the same bytes that were parsed).
func (c State) Append(buf []byte) []byte {
	buf, start := BeginState(buf)
	buf = append(buf, c.recs...)
	return EndState(buf, start)
}

// Records returns an iterator over the records of a parsed State, in wire order.
func (c *State) Records() RecordIter { return RecordIter{b: c.recs} }

// RecordIter iterates the records of a parsed STATE.
//
//	for it := st.Records(); ; {
//		rec, ok := it.Next()
//		if !ok { break }
//		...
//	}
type RecordIter struct{ b []byte }

// Next returns the next record, or ok=false at the end (or at bytes that do not parse).
func (it *RecordIter) Next() (rec Record, ok bool) {
	if len(it.b) == 0 {
		return Record{}, false
	}
	n, err := rec.parse(it.b)
	if err != nil {
		it.b = nil
		return Record{}, false
	}
	it.b = it.b[n:]
	return rec, true
}

// Record is one entity's record of a parsed STATE: entity Entity has the components of Mask.
type Record struct {
	Entity uint64
	Mask   uint16
	data   []byte
}

// Components returns an iterator over the record's components, in wire order (the same
// iterator as ENTITY's).
func (r *Record) Components() ComponentIter {
	return ComponentIter{b: r.data, mask: r.Mask, compact: true}
}

// parse decodes and checks the record at the start of b and returns its length.
func (r *Record) parse(b []byte) (int, error) {
	ent, n1, err := readEntityRef(b)
	if err != nil {
		return 0, err
	}
	m, n2, err := readUvarint(b[n1:], 2)
	if err != nil {
		return 0, err
	}
	if m >= 1<<maskBits || !maskAllowed(uint16(m)) {
		return 0, ErrComponent
	}
	head := n1 + n2
	size := MaskSize(uint16(m))
	if len(b)-head < size {
		return 0, ErrArgLen
	}
	r.Entity, r.Mask, r.data = ent, uint16(m), b[head:head+size:head+size]
	return head + size, nil
}
