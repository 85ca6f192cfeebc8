package wire

// DEL_ENTS (id 21, s→c, extension; docs/PROTOCOL.md §3.4.11) is DEL_ENT for several entities:
// their ids back to back, each as a STATE record names its entity (index varint, generation
// varint), filling the command. Sent reliably like DEL_ENT; a deleted bullet costs 2 bytes in a
// DEL_ENTS of its tick instead of 16 (REL and DEL_ENT).

// DelEntsOverhead is the size of a DEL_ENTS command without ids: size u16 + id u8.
const DelEntsOverhead = CmdOverhead

// EntityRefSize is the size of entity ent's id in a DEL_ENTS (or a STATE record's head without
// the mask): its index and generation as varints.
func EntityRefSize(ent uint64) int { return uvarintLen(ent&0xffffffff) + uvarintLen(ent>>32) }

// BeginDelEnts starts a DEL_ENTS command at the end of buf and returns the new buffer and the
// command's offset, which EndDelEnts needs. Append the ids with AppendEntityRef.
func BeginDelEnts(buf []byte) (out []byte, start int) {
	return appendFrame(buf, CmdDelEnts, 0), len(buf)
}

// AppendEntityRef appends entity ent's id (index varint, generation varint) to a DEL_ENTS.
func AppendEntityRef(buf []byte, ent uint64) []byte {
	buf = appendUvarint(buf, ent&0xffffffff)
	return appendUvarint(buf, ent>>32)
}

// EndDelEnts finishes the DEL_ENTS that starts at buf[start]: it patches the size prefix.
func EndDelEnts(buf []byte, start int) []byte {
	le.PutUint16(buf[start:], uint16(len(buf)-start-2))
	return buf
}

// DelEnts is a parsed DEL_ENTS command: a view of its ids into the datagram, valid as long as
// the datagram's buffer is not reused.
type DelEnts struct{ ids []byte }

// Parse decodes and fully checks the DEL_ENTS command at the start of b and returns its length.
// Errors: ErrSize, ErrCmdID, ErrArgLen (no id, or an id cut by the end of the command),
// ErrBadValue (a varint longer than 5 bytes or not in its shortest form), ErrEntityID (an index
// above 2³²−1, a generation 0 or with the entId's top bit).
func (c *DelEnts) Parse(b []byte) (int, error) {
	a, n, err := frame(b, CmdDelEnts)
	if err != nil {
		return 0, err
	}
	if len(a) == 0 {
		return 0, ErrArgLen
	}
	for rest := a; len(rest) > 0; {
		_, k, err := readEntityRef(rest)
		if err != nil {
			return 0, err
		}
		rest = rest[k:]
	}
	c.ids = a
	return n, nil
}

// Append re-encodes a parsed DelEnts (the same bytes that were parsed).
func (c DelEnts) Append(buf []byte) []byte {
	buf, start := BeginDelEnts(buf)
	buf = append(buf, c.ids...)
	return EndDelEnts(buf, start)
}

// Entities returns an iterator over the entity ids of a parsed DelEnts, in wire order.
func (c *DelEnts) Entities() EntityIter { return EntityIter{b: c.ids} }

// EntityIter iterates the entity ids of a parsed DEL_ENTS.
type EntityIter struct{ b []byte }

// Next returns the next entity id, or ok=false at the end (or at bytes that do not parse).
func (it *EntityIter) Next() (ent uint64, ok bool) {
	if len(it.b) == 0 {
		return 0, false
	}
	ent, n, err := readEntityRef(it.b)
	if err != nil {
		it.b = nil
		return 0, false
	}
	it.b = it.b[n:]
	return ent, true
}

// readEntityRef decodes an entity id (index varint, generation varint) at the start of b.
func readEntityRef(b []byte) (ent uint64, n int, err error) {
	idx, n1, err := readUvarint(b, 5)
	if err != nil {
		return 0, 0, err
	}
	gen, n2, err := readUvarint(b[n1:], 5)
	if err != nil {
		return 0, 0, err
	}
	if idx > 0xffffffff || gen == 0 || gen >= 1<<31 {
		return 0, 0, ErrEntityID
	}
	return gen<<32 | idx, n1 + n2, nil
}
