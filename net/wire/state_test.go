package wire

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The mask's bit order is the component list's, highest id first: bit 0 Spawn (11) ... bit 10
// Position (1); the reserved id 8 (bit 3) and ids outside the list have no bit.
func TestMaskOf(t *testing.T) {
	want := map[uint16]uint16{CompSpawn: 1 << 0, CompMotion: 1 << 1, CompStage: 1 << 2, CompBoss: 1 << 4,
		CompForce: 1 << 5, CompHealth: 1 << 6, CompPlayer: 1 << 7, CompKind: 1 << 8, CompVelocity: 1 << 9, CompPosition: 1 << 10}
	for id := uint16(0); id < 64; id++ {
		got := MaskOf(id)
		if id == 8 {
			if maskAllowed(got) {
				t.Errorf("the reserved id 8 is allowed in a mask")
			}
			continue
		}
		if got != want[id] {
			t.Errorf("MaskOf(%d) = %#x, want %#x", id, got, want[id])
		}
	}
}

// A record with every component that can travel together (all but Motion and Spawn, which
// exclude Position, Velocity and Kind) encodes in mask order, parses back, and iterates its
// components in that order with capped views of their fixed sizes.
func TestStateRoundTripAllComponents(t *testing.T) {
	var mask uint16
	var data []byte
	var ids []uint16
	for id := MaxComponent; id >= 1; id-- { // mask order: the highest id first
		if ComponentSize(id) == 0 || id == CompMotion || id == CompSpawn {
			continue
		}
		mask |= MaskOf(id)
		ids = append(ids, id)
		for i := 0; i < ComponentSize(id); i++ {
			data = append(data, byte(int(id)*16+i))
		}
	}
	ent := uint64(1<<31-1)<<32 | 0xffffffff // the largest index and generation
	b, start := BeginState([]byte{0xee})
	b = AppendRecordHead(b, ent, mask)
	b = append(b, data...)
	b = AppendRecordHead(b, entFive, 0) // the entity exists, nothing else
	b = EndState(b, start)
	if len(b)-1 != StateOverhead+RecordSize(ent, mask)+RecordSize(entFive, 0) || RecordSize(entFive, 0) != 3 {
		t.Fatalf("STATE of %d bytes, RecordSize says %d + %d", len(b)-1, RecordSize(ent, mask), RecordSize(entFive, 0))
	}
	if RecordHeadSize(ent, mask) != 5+5+2 {
		t.Fatalf("RecordHeadSize = %d, want 12 (5-byte index and generation, 2-byte mask)", RecordHeadSize(ent, mask))
	}
	var st State
	n, err := st.Parse(b[1:])
	if err != nil || n != len(b)-1 {
		t.Fatalf("Parse = %d, %v", n, err)
	}
	it := st.Records()
	rec, ok := it.Next()
	if !ok || rec.Entity != ent || rec.Mask != mask {
		t.Fatalf("first record %+v %v", rec, ok)
	}
	var got []byte
	ci := rec.Components()
	for i := 0; ; i++ {
		id, d, ok := ci.Next()
		if !ok {
			if i != len(ids) {
				t.Fatalf("iterated %d components, want %d", i, len(ids))
			}
			break
		}
		if id != ids[i] || len(d) != ComponentSize(id) || cap(d) != len(d) {
			t.Fatalf("component %d: id %d, %d bytes (cap %d), want id %d", i, id, len(d), cap(d), ids[i])
		}
		got = append(got, d...)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("component data % x, want % x", got, data)
	}
	rec, ok = it.Next()
	if !ok || rec.Entity != entFive || rec.Mask != 0 {
		t.Fatalf("second record %+v %v", rec, ok)
	}
	if ci := rec.Components(); func() bool { _, _, ok := ci.Next(); return ok }() {
		t.Fatal("a record of mask 0 has a component")
	}
	if _, ok := it.Next(); ok {
		t.Fatal("a third record")
	}
	if out := st.Append(nil); !bytes.Equal(out, b[1:]) {
		t.Fatalf("State.Append re-encode differs")
	}
}

// Varints of every length round-trip, and their encoded length is what RecordHeadSize counts.
func TestStateVarints(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 16383, 16384, 1<<21 - 1, 1 << 21, 1<<28 - 1, 1 << 28, 1<<32 - 1} {
		b := appendUvarint(nil, v)
		if len(b) != uvarintLen(v) {
			t.Fatalf("%d: %d bytes, uvarintLen %d", v, len(b), uvarintLen(v))
		}
		got, n, err := readUvarint(b, 5)
		if err != nil || n != len(b) || got != v {
			t.Fatalf("%d: read %d, %d, %v", v, got, n, err)
		}
	}
}

// checkState asserts the properties of a STATE that Parse accepted (FuzzValidate): its records
// iterate to its end, each with the components of its mask at their fixed sizes.
func checkState(t *testing.T, st State) {
	t.Helper()
	total := 0
	for it := st.Records(); ; {
		rec, ok := it.Next()
		if !ok {
			break
		}
		n := 0
		ci := rec.Components()
		for {
			id, d, ok := ci.Next()
			if !ok {
				break
			}
			if len(d) != ComponentSize(id) || MaskOf(id)&rec.Mask == 0 {
				t.Fatalf("record %#x: component %d of %d bytes, mask %#x", rec.Entity, id, len(d), rec.Mask)
			}
			n++
		}
		if n != bits.OnesCount16(rec.Mask) {
			t.Fatalf("record %#x: %d components, mask %#x", rec.Entity, n, rec.Mask)
		}
		total += RecordSize(rec.Entity, rec.Mask)
	}
	if total != len(st.recs) {
		t.Fatalf("records of %d bytes in a STATE of %d", total, len(st.recs))
	}
}

// fullStateDatagram fills a datagram with one STATE of Spawn records (a burst of new bullets) up
// to the 1200-byte cap; it returns the datagram and the number of records.
func fullStateDatagram(buf []byte) ([]byte, int) {
	buf = Header{Token: 1, Tick: 100, Seq: 1}.Append(buf[:0])
	buf, start := BeginState(buf)
	n := 0
	for {
		ent := uint64(n/100+1)<<32 | uint64(n)
		if !fits(buf, RecordSize(ent, MaskOf(CompSpawn))) {
			break
		}
		buf = AppendRecordHead(buf, ent, MaskOf(CompSpawn))
		buf = append(buf, 5, 0)
		buf, _ = AppendMotion(buf, float32(n), 540, -300, 0)
		n++
	}
	return EndState(buf, start), n
}

func TestFullStateDatagram(t *testing.T) {
	d, n := fullStateDatagram(make([]byte, 0, MaxDatagram))
	if len(d) > MaxDatagram || len(d)+14 <= MaxDatagram {
		t.Fatalf("datagram of %d bytes is not full", len(d))
	}
	if n < 85 {
		t.Fatalf("%d Spawn records in a datagram, want more than 85 (13 or 14 bytes each)", n)
	}
	if err := Validate(d); err != nil {
		t.Fatal(err)
	}
	var st State
	if _, err := st.Parse(d[HeaderSize:]); err != nil {
		t.Fatal(err)
	}
	checkState(t, st)
}

func TestStateZeroAllocs(t *testing.T) {
	buf := make([]byte, 0, MaxDatagram)
	full, _ := fullStateDatagram(make([]byte, 0, MaxDatagram))
	for _, c := range []struct {
		name string
		fn   func()
	}{
		{"fill STATE datagram", func() { buf, _ = fullStateDatagram(buf) }},
		{"Validate full STATE", func() { _ = Validate(full) }},
		{"iterate full STATE", func() {
			var st State
			_, _ = st.Parse(full[HeaderSize:])
			for it := st.Records(); ; {
				rec, ok := it.Next()
				if !ok {
					break
				}
				for ci := rec.Components(); ; {
					if _, _, ok := ci.Next(); !ok {
						break
					}
				}
			}
		}},
	} {
		if a := testing.AllocsPerRun(100, c.fn); a != 0 {
			t.Errorf("%s: %v allocs/op, want 0", c.name, a)
		}
	}
}

func BenchmarkDecodeStateDatagram(b *testing.B) {
	d, recs := fullStateDatagram(make([]byte, 0, MaxDatagram))
	b.ReportAllocs()
	b.SetBytes(int64(len(d)))
	sink := 0
	for b.Loop() {
		var h Header
		r, err := Open(d, &h)
		if err != nil {
			b.Fatal(err)
		}
		for r.Next() {
			var st State
			_, _ = st.Parse(r.Cmd())
			for it := st.Records(); ; {
				rec, ok := it.Next()
				if !ok {
					break
				}
				for ci := rec.Components(); ; {
					_, data, ok := ci.Next()
					if !ok {
						break
					}
					sink += int(data[0])
				}
			}
		}
	}
	_ = sink
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(recs), "ns/record")
	b.ReportMetric(float64(recs), "records/datagram")
}

// docs/PROTOCOL.md §3.4.10's mask table is MaskOf: a client written from the document reads the
// components of a record in the order the server writes them.
func TestMaskTableMatchesDoc(t *testing.T) {
	doc, err := os.ReadFile("../../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(doc)
	i := strings.Index(sec, "#### 3.4.10 STATE")
	if i < 0 {
		t.Fatal("no §3.4.10 STATE in PROTOCOL.md")
	}
	sec = sec[i:]
	var row string
	for _, line := range strings.Split(sec, "\n") {
		if strings.HasPrefix(line, "| component (id) |") {
			row = line
			break
		}
	}
	cells := strings.Split(strings.Trim(row, "| "), "|")
	if len(cells) != 1+maskBits {
		t.Fatalf("mask table row %q: %d cells, want %d", row, len(cells), 1+maskBits)
	}
	for bit, cell := range cells[1:] {
		m := regexp.MustCompile(`\((\d+)\)`).FindStringSubmatch(cell)
		if m == nil {
			t.Fatalf("mask bit %d: cell %q names no id", bit, cell)
		}
		id, _ := strconv.Atoi(m[1])
		if MaskOf(uint16(id)) != 1<<bit && !(id == 8 && !maskAllowed(1<<bit)) {
			t.Errorf("mask bit %d: the document says component %d, MaskOf(%d) = %#x", bit, id, id, MaskOf(uint16(id)))
		}
	}
}

// The golden STATE decoded as a client written from the document would: varints with
// encoding/binary (not this package's reader), the mask's bits from 0 up as ids 11 down to 1,
// each component's data of its size in the component list.
func TestStateGoldenIndependently(t *testing.T) {
	b := readGolden(t, "state")
	if int(binary.LittleEndian.Uint16(b)) != len(b)-2 || b[2] != 20 {
		t.Fatalf("frame % x", b[:3])
	}
	sizes := map[int]int{11: 10, 10: 8, 9: 1, 7: 2, 6: 10, 5: 4, 4: 14, 3: 2, 2: 8, 1: 8} // PROTOCOL §4
	type rec struct {
		index, gen uint64
		comps      map[int][]byte
	}
	var got []rec
	for p := b[3:]; len(p) > 0; {
		var r rec
		var n int
		r.index, n = binary.Uvarint(p)
		p = p[n:]
		r.gen, n = binary.Uvarint(p)
		p = p[n:]
		mask, n := binary.Uvarint(p)
		p = p[n:]
		r.comps = map[int][]byte{}
		for bit := 0; bit <= 10; bit++ {
			if mask&(1<<bit) != 0 {
				id := 11 - bit
				r.comps[id], p = p[:sizes[id]], p[sizes[id]:]
			}
		}
		got = append(got, r)
	}
	want := []rec{
		{7, 1, map[int][]byte{11: {5, 1, 0xc0, 0x2b, 0xe0, 0x10, 0xc9, 0xea, 0x80, 0x07}}},
		{42, 3, map[int][]byte{10: {0x24, 0x03, 0x42, 0x06, 0x40, 0xed, 0xc8, 0x00}}},
		{200, 130, map[int][]byte{5: {3, 0, 8, 0}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %+v\nwant %+v", got, want)
	}
	// and this package agrees
	var st State
	if _, err := st.Parse(b); err != nil {
		t.Fatal(err)
	}
	k := 0
	for it := st.Records(); ; k++ {
		r, ok := it.Next()
		if !ok {
			break
		}
		if r.Entity != want[k].gen<<32|want[k].index {
			t.Errorf("record %d: entity %#x", k, r.Entity)
		}
		for ci := r.Components(); ; {
			id, data, ok := ci.Next()
			if !ok {
				break
			}
			if !bytes.Equal(data, want[k].comps[int(id)]) {
				t.Errorf("record %d component %d: % x", k, id, data)
			}
		}
	}
}
