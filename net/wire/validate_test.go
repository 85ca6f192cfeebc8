package wire

import (
	"encoding/binary"
	"testing"
)

// dg builds a datagram: a valid header followed by raw command bytes.
func dg(cmds ...[]byte) []byte {
	b := Header{Token: 9, Tick: 1, Seq: 1}.Append(nil)
	for _, c := range cmds {
		b = append(b, c...)
	}
	return b
}

// raw builds a command frame by hand: size prefix = 1+len(args), id, args.
func raw(id byte, args ...byte) []byte {
	b := binary.LittleEndian.AppendUint16(nil, uint16(1+len(args)))
	b = append(b, id)
	return append(b, args...)
}

func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
func u16(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }
func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

// entityRaw builds an ENTITY frame by hand with the given compCount and
// component bytes.
func entityRaw(ent uint64, count byte, comps ...[]byte) []byte {
	return raw(1, cat(u64(ent), []byte{count}, cat(comps...))...)
}

// compRaw: componentId u16, componentSize u64, data.
func compRaw(id uint16, size uint64, data []byte) []byte {
	return cat(u16(id), u64(size), data)
}

func TestValidate(t *testing.T) {
	top := uint64(1) << 63
	pos := compRaw(1, 8, make([]byte, 8))
	withHeader := func(mut func(b []byte)) []byte {
		b := dg(Ping{1}.Append(nil))
		mut(b)
		return b
	}
	big := dg()
	for fits(big, 3) {
		big = ActShoot{}.Append(big)
	}
	oversize := append(dg(), make([]byte, MaxDatagram)...) // 1222 bytes
	cases := []struct {
		name string
		b    []byte
		want error
	}{
		// valid
		{"header only", dg(), nil},
		{"every command", dg(
			buildEntity(nil, 5, comp{1, make([]byte, 8)}, comp{9, make([]byte, 1)}),
			DelEnt{1}.Append(nil), DelComp{1, 6}.Append(nil), Music{1}.Append(nil),
			GameEnd{2}.Append(nil), Death{1, 3, 0}.Append(nil), Here{[16]byte{1}}.Append(nil),
			GetEnt{2}.Append(nil), ActShoot{}.Append(nil), ActMove{15}.Append(nil),
			Ping{3}.Append(nil), Input{Count: 1}.Append(nil), Welcome{1, 0, 0, 60}.Append(nil),
			Bye{3}.Append(nil), raw(20, 5, 1, 0x04, 7), raw(21, 5, 1, 0x80, 0x01, 0x80, 0x02)), nil},
		{"STATE records", dg(raw(20,
			5, 1, 0x00, // index 5 generation 1, no component: the entity exists
			0x80, 0x01, 0x80, 0x02, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, // index 128 generation 256, Spawn
			0x7f, 0x7f, 0x80, 0x0c, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8, // Position and Velocity (bits 10, 9)
			0xff, 0xff, 0xff, 0xff, 0x0f, 0xff, 0xff, 0xff, 0xff, 0x07, 0x40, 1, 2, 3, 4)), nil}, // index 2^32-1 generation 2^31-1, Health
		{"REL before each reliable-capable command", dg(
			Rel{1}.Append(nil), DelEnt{1}.Append(nil), Rel{2}.Append(nil), DelComp{1, 1}.Append(nil),
			Rel{3}.Append(nil), Music{1}.Append(nil), Rel{4}.Append(nil), GameEnd{0}.Append(nil),
			Rel{5}.Append(nil), Death{1, 0, 0}.Append(nil), Rel{6}.Append(nil), Welcome{1, 0, 0, 60}.Append(nil),
			Rel{7}.Append(nil), Bye{0}.Append(nil), Rel{8}.Append(nil), raw(21, 5, 1)), nil},
		{"exactly 1200 bytes", big, nil},

		// header
		{"empty", nil, ErrShort},
		{"21 bytes", dg()[:21], ErrShort},
		{"1201 bytes", append(append([]byte(nil), big...), make([]byte, MaxDatagram+1-len(big))...), ErrTooLarge},
		{"1222 bytes", oversize, ErrTooLarge},
		{"magic byte 0", withHeader(func(b []byte) { b[0] = 'R' + 1 }), ErrMagic},
		{"magic byte 1", withHeader(func(b []byte) { b[1] = 'L' }), ErrMagic},
		{"version 0", withHeader(func(b []byte) { b[2] = 0 }), ErrVersion},
		{"version 1", withHeader(func(b []byte) { b[2] = 1 }), ErrVersion},
		{"version 2", withHeader(func(b []byte) { b[2] = 2 }), ErrVersion},
		{"version 3", withHeader(func(b []byte) { b[2] = 3 }), ErrVersion},
		{"version 5", withHeader(func(b []byte) { b[2] = 5 }), ErrVersion},
		{"flags 1", withHeader(func(b []byte) { b[3] = 1 }), ErrFlags},
		{"flags 0x80", withHeader(func(b []byte) { b[3] = 0x80 }), ErrFlags},
		{"token 0", withHeader(func(b []byte) { copy(b[4:8], []byte{0, 0, 0, 0}) }), ErrToken},

		// framing
		{"one trailing byte", dg(Ping{1}.Append(nil), []byte{7}), ErrSize},
		{"two trailing bytes", dg([]byte{1, 0}), ErrSize},
		{"size 0", dg([]byte{0, 0, 9}), ErrSize},
		{"size runs past the end", dg([]byte{5, 0, 11, 1, 2, 3}), ErrSize},
		{"size 0xffff", dg([]byte{0xff, 0xff, 1}), ErrSize},
		{"size past end after a valid command", dg(Ping{1}.Append(nil), []byte{3, 0, 9}), ErrSize},
		{"unknown id 0", dg(raw(0)), ErrUnknownCmd},
		{"unknown id 22", dg(raw(22, 1)), ErrUnknownCmd},
		{"PAUSE 2 args", dg(raw(18, 1, 0)), ErrArgLen},
		{"PAUSE 2", dg(raw(18, 2)), ErrBadValue},
		{"RESULTS count 0", dg(raw(19, 0)), ErrBadValue},
		{"RESULTS count 5", dg(raw(19, append([]byte{5}, make([]byte, 5*19)...)...)), ErrBadValue},
		{"RESULTS count 1 with 18 bytes", dg(raw(19, append([]byte{1}, make([]byte, 18)...)...)), ErrArgLen},
		{"RESULTS slot 4", dg(raw(19, append([]byte{1, 4}, make([]byte, 18)...)...)), ErrBadValue},
		{"RESULTS flag bit 4", dg(raw(19, append([]byte{1, 0, 16}, make([]byte, 17)...)...)), ErrBadValue},
		{"RESULTS slots not increasing", dg(raw(19, append(append([]byte{2, 1}, make([]byte, 18)...), append([]byte{1}, make([]byte, 18)...)...)...)), ErrBadValue},
		{"WELCOME slot 4", dg(raw(14, append(make([]byte, 8), 4, 0, 0, 0, 0, 60)...)), ErrBadValue},
		{"CHALLENGE 15 bytes", dg(raw(16, make([]byte, 15)...)), ErrArgLen},
		{"RESPONSE 31 bytes", dg(raw(17, make([]byte, 31)...)), ErrArgLen},
		{"REL then CHALLENGE", dg(Rel{1}.Append(nil), Challenge{}.Append(nil)), ErrRel},
		{"unknown id 255", dg(raw(255)), ErrUnknownCmd},

		// argument lengths
		{"DEL_ENT 9 args", dg(raw(2, make([]byte, 9)...)), ErrArgLen},
		{"DEL_ENT 7 args", dg(raw(2, make([]byte, 7)...)), ErrArgLen},
		{"DEL_COMP 8 args (u16 componentId)", dg(raw(3, cat(u64(1), u16(1))...)), ErrArgLen},
		{"MUSIC no arg", dg(raw(4)), ErrArgLen},
		{"GAME_END no arg (seed 004 form)", dg(raw(5)), ErrArgLen},
		{"DEATH no arg (seed 004 form)", dg(raw(6)), ErrArgLen},
		{"HERE 36-byte text uuid", dg(raw(7, []byte("6ba7b810-9dad-11d1-80b4-00c04fd430c8")...)), ErrArgLen},
		{"GET_ENT 4 args", dg(raw(8, 1, 2, 3, 4)), ErrArgLen},
		{"ACT_SHOOT with an arg", dg(raw(9, 0)), ErrArgLen},
		{"ACT_MOVE 2 args", dg(raw(10, 1, 0)), ErrArgLen},
		{"PING no nonce (seed 004 form)", dg(raw(11)), ErrArgLen},
		{"REL 1 arg", dg(raw(12, 1), Bye{}.Append(nil)), ErrArgLen},
		{"INPUT empty", dg(raw(13)), ErrArgLen},
		{"INPUT count 2 with 1 entry", dg(raw(13, 2, 1, 0, 0, 0, 0)), ErrArgLen},
		{"INPUT count 1 with extra byte", dg(raw(13, 1, 1, 0, 0, 0, 0, 0)), ErrArgLen},
		{"WELCOME 13 args", dg(raw(14, make([]byte, 13)...)), ErrArgLen},
		{"BYE 2 args", dg(raw(15, 0, 0)), ErrArgLen},
		{"ENTITY shorter than entId+compCount", dg(raw(1, 1, 0, 0, 0, 0, 0, 0, 0)), ErrArgLen},
		{"STATE without a record", dg(raw(20)), ErrArgLen},
		{"DEL_ENTS without an id", dg(raw(21)), ErrArgLen},
		{"DEL_ENTS id without a generation", dg(raw(21, 5, 1, 6)), ErrArgLen},
		{"DEL_ENTS id cut in its generation", dg(raw(21, 5, 0x81)), ErrArgLen},
		{"STATE record cut in its index", dg(raw(20, 0x80)), ErrArgLen},
		{"STATE record without a mask", dg(raw(20, 5, 1)), ErrArgLen},
		{"STATE record cut in its data", dg(raw(20, 5, 1, 0x40, 1, 2, 3)), ErrArgLen},
		{"STATE second record cut", dg(raw(20, 5, 1, 0x00, 6)), ErrArgLen},
		{"STATE record with a byte too many", dg(raw(20, 5, 1, 0x20, 1, 2)), ErrArgLen},

		// values
		{"GAME_END result 3", dg(raw(5, 3)), ErrBadValue},
		{"GAME_END result 255", dg(raw(5, 255)), ErrBadValue},
		{"ACT_MOVE bit 4", dg(raw(10, 0x10)), ErrBadValue},
		{"ACT_MOVE 0xff", dg(raw(10, 0xff)), ErrBadValue},
		{"BYE reason 4", dg(raw(15, 4)), ErrBadValue},
		{"INPUT count 0", dg(raw(13, 0)), ErrBadValue},
		{"INPUT count 17", dg(raw(13, cat([]byte{17}, make([]byte, 17*5))...)), ErrBadValue},
		{"INPUT count 255 (no entries)", dg(raw(13, 255)), ErrBadValue},
		{"INPUT buttons bit 6", dg(raw(13, 2, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0x40)), ErrBadValue},
		{"INPUT buttons bit 7", dg(raw(13, 1, 1, 0, 0, 0, 0x80)), ErrBadValue},
		{"REL id 0", dg(raw(12, 0, 0), Bye{}.Append(nil)), ErrBadValue},
		{"DEATH slot 4", dg(raw(6, cat(u64(1), []byte{4, 1})...)), ErrBadValue},
		{"WELCOME slot 4", dg(Welcome{1, 4, 0, 60}.Append(nil)), ErrBadValue},
		{"WELCOME tickRate 0", dg(Welcome{1, 0, 0, 0}.Append(nil)), ErrBadValue},
		{"HERE nil uuid", dg(raw(7, make([]byte, 16)...)), ErrBadValue},
		{"STATE index not in its shortest form", dg(raw(20, 0x85, 0x00, 1, 0x00)), ErrBadValue},
		{"STATE generation not in its shortest form", dg(raw(20, 5, 0x81, 0x80, 0x00, 0x00)), ErrBadValue},
		{"STATE mask not in its shortest form", dg(raw(20, 5, 1, 0x84, 0x00, 1, 2)), ErrBadValue},
		{"STATE index of 6 bytes", dg(raw(20, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 1, 0x00)), ErrBadValue},
		{"STATE mask of 3 bytes", dg(raw(20, 5, 1, 0x80, 0x80, 0x01)), ErrBadValue},
		{"DEL_ENTS generation not in its shortest form", dg(raw(21, 5, 0x81, 0x00)), ErrBadValue},
		{"DEL_ENTS index of 6 bytes", dg(raw(21, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 1)), ErrBadValue},

		// entity ids
		{"DEL_ENT top bit", dg(DelEnt{top | 1}.Append(nil)), ErrEntityID},
		{"DEL_COMP top bit", dg(DelComp{top, 1}.Append(nil)), ErrEntityID},
		{"DEATH top bit", dg(Death{^uint64(0), 0, 0}.Append(nil)), ErrEntityID},
		{"GET_ENT top bit", dg(GetEnt{top}.Append(nil)), ErrEntityID},
		{"WELCOME top bit", dg(Welcome{top, 0, 0, 60}.Append(nil)), ErrEntityID},
		{"ENTITY top bit", dg(entityRaw(top|5, 1, pos)), ErrEntityID},
		{"STATE generation 0", dg(raw(20, 5, 0, 0x00)), ErrEntityID},
		{"STATE generation 2^31 (top bit)", dg(raw(20, 5, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00)), ErrEntityID},
		{"STATE index 2^32", dg(raw(20, 0x80, 0x80, 0x80, 0x80, 0x10, 1, 0x00)), ErrEntityID},
		{"DEL_ENTS generation 0", dg(raw(21, 5, 1, 6, 0)), ErrEntityID},
		{"DEL_ENTS generation 2^31 (top bit)", dg(raw(21, 5, 0x80, 0x80, 0x80, 0x80, 0x08)), ErrEntityID},

		// components
		{"DEL_COMP component 0", dg(DelComp{1, 0}.Append(nil)), ErrComponent},
		{"DEL_COMP component 12", dg(DelComp{1, 12}.Append(nil)), ErrComponent},
		{"DEL_COMP reserved component 8", dg(DelComp{1, 8}.Append(nil)), ErrComponent},
		{"DEL_COMP Motion", dg(DelComp{1, uint32(CompMotion)}.Append(nil)), ErrComponent},
		{"DEL_COMP component 0x10001", dg(DelComp{1, 0x10001}.Append(nil)), ErrComponent},
		{"ENTITY compCount 2 with 1 component", dg(entityRaw(5, 2, pos)), ErrComponent},
		{"ENTITY compCount 0 with 1 component", dg(entityRaw(5, 0, pos)), ErrComponent},
		{"ENTITY compCount 255 no components", dg(entityRaw(5, 255)), ErrComponent},
		{"ENTITY unknown component 0", dg(entityRaw(5, 1, compRaw(0, 8, make([]byte, 8)))), ErrComponent},
		{"ENTITY unknown component 12", dg(entityRaw(5, 1, compRaw(12, 8, make([]byte, 8)))), ErrComponent},
		{"ENTITY reserved component 8", dg(entityRaw(5, 1, compRaw(8, 4, make([]byte, 4)))), ErrComponent},
		{"ENTITY Motion and Position", dg(entityRaw(5, 2, compRaw(10, 8, make([]byte, 8)), pos)), ErrComponent},
		{"ENTITY Velocity and Motion", dg(entityRaw(5, 2, compRaw(2, 8, make([]byte, 8)), compRaw(10, 8, make([]byte, 8)))), ErrComponent},
		{"ENTITY Spawn and Kind", dg(entityRaw(5, 2, compRaw(11, 10, make([]byte, 10)), compRaw(3, 2, make([]byte, 2)))), ErrComponent},
		{"ENTITY Motion and Spawn", dg(entityRaw(5, 2, compRaw(10, 8, make([]byte, 8)), compRaw(11, 10, make([]byte, 10)))), ErrComponent},
		{"DEL_COMP Spawn", dg(DelComp{1, uint32(CompSpawn)}.Append(nil)), ErrComponent},
		{"ENTITY Position size 7", dg(entityRaw(5, 1, compRaw(1, 7, make([]byte, 7)))), ErrComponent},
		{"ENTITY Position size 9", dg(entityRaw(5, 1, compRaw(1, 9, make([]byte, 9)))), ErrComponent},
		{"ENTITY componentSize 2^63", dg(entityRaw(5, 1, compRaw(1, 1<<63, make([]byte, 8)))), ErrComponent},
		{"ENTITY componentSize 2^64-1", dg(entityRaw(5, 1, compRaw(1, ^uint64(0), nil))), ErrComponent},
		{"ENTITY duplicate Position", dg(entityRaw(5, 2, pos, pos)), ErrComponent},
		{"ENTITY truncated component header", dg(entityRaw(5, 1, []byte{1, 0, 8})), ErrComponent},
		{"ENTITY truncated component data", dg(entityRaw(5, 1, compRaw(1, 8, make([]byte, 4)))), ErrComponent},
		{"STATE reserved component 8 (bit 3)", dg(raw(20, 5, 1, 0x08, 1, 2, 3, 4)), ErrComponent},
		{"STATE mask bit 11 (component 0)", dg(raw(20, 5, 1, 0x80, 0x10)), ErrComponent},
		{"STATE Motion and Position", dg(raw(20, 5, 1, 0x82, 0x08, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8)), ErrComponent},
		{"STATE Motion and Velocity", dg(raw(20, 5, 1, 0x82, 0x04, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8)), ErrComponent},
		{"STATE Spawn and Motion", dg(raw(20, 5, 1, 0x03, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8)), ErrComponent},
		{"STATE Spawn and Kind", dg(raw(20, 5, 1, 0x81, 0x02, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2)), ErrComponent},

		// REL
		{"REL last", dg(Ping{1}.Append(nil), Rel{1}.Append(nil)), ErrRel},
		{"REL then PING", dg(Rel{1}.Append(nil), Ping{1}.Append(nil)), ErrRel},
		{"REL then ENTITY", dg(Rel{1}.Append(nil), buildEntity(nil, 5)), ErrRel},
		{"REL then STATE", dg(Rel{1}.Append(nil), raw(20, 5, 1, 0x00)), ErrRel},
		{"REL then INPUT", dg(Rel{1}.Append(nil), Input{Count: 1}.Append(nil)), ErrRel},
		{"REL then HERE", dg(Rel{1}.Append(nil), Here{[16]byte{1}}.Append(nil)), ErrRel},
		{"REL then REL", dg(Rel{1}.Append(nil), Rel{2}.Append(nil), Bye{}.Append(nil)), ErrRel},
	}
	for _, c := range cases {
		if err := Validate(c.b); err != c.want {
			t.Errorf("%s: Validate = %v, want %v", c.name, err, c.want)
		}
		if c.want == nil {
			continue
		}
		// Open agrees and yields nothing.
		var h Header
		if r, err := Open(c.b, &h); err != c.want || r.Next() {
			t.Errorf("%s: Open = %v", c.name, err)
		}
	}
}

func TestHeaderParseErrors(t *testing.T) {
	good := goldenHeader.Append(nil)
	for k := 0; k < HeaderSize; k++ {
		var h Header
		if n, err := h.Parse(good[:k]); err != ErrShort || n != 0 || h != (Header{}) {
			t.Fatalf("Parse(%d bytes) = %d, %v, %+v", k, n, err, h)
		}
	}
	h := goldenHeader
	bad := append([]byte(nil), good...)
	bad[4], bad[5], bad[6], bad[7] = 0, 0, 0, 0
	if _, err := h.Parse(bad); err != ErrToken || h != goldenHeader {
		t.Fatalf("token 0: %v, header modified to %+v", err, h)
	}
}
