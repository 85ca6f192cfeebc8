package wire

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func TestGoldenCommands(t *testing.T) {
	for _, c := range cmdCases() {
		t.Run(c.golden, func(t *testing.T) {
			want := readGolden(t, c.golden)
			// Encoder output equals the file.
			if got := c.enc(nil); !bytes.Equal(got, want) {
				t.Fatalf("encode:\n got % x\nwant % x", got, want)
			}
			// The decoder of the file gives the expected struct.
			got, n, err := decodeAny(want)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if n != len(want) {
				t.Fatalf("decode consumed %d of %d bytes", n, len(want))
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("decode:\n got %+v\nwant %+v", got, c.want)
			}
			// ParseCmd agrees on id and length.
			id, n2, err := ParseCmd(want)
			if err != nil || n2 != len(want) || id != CmdID(want[2]) {
				t.Fatalf("ParseCmd = %v, %d, %v", id, n2, err)
			}
		})
	}
}

func TestGoldenHeader(t *testing.T) {
	want := readGolden(t, "header")
	if got := goldenHeader.Append(nil); !bytes.Equal(got, want) {
		t.Fatalf("encode:\n got % x\nwant % x", got, want)
	}
	var h Header
	n, err := h.Parse(want)
	if err != nil || n != HeaderSize || h != goldenHeader {
		t.Fatalf("Parse = %+v, %d, %v; want %+v", h, n, err, goldenHeader)
	}
	if err := Validate(want); err != nil {
		t.Fatalf("a header alone must be a valid datagram: %v", err)
	}
}

func TestGoldenDatagrams(t *testing.T) {
	for _, c := range dgramCases() {
		t.Run(c.golden, func(t *testing.T) {
			want := readGolden(t, c.golden)
			if got := encodeDgram(c); !bytes.Equal(got, want) {
				t.Fatalf("encode:\n got % x\nwant % x", got, want)
			}
			var h Header
			r, err := Open(want, &h)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if h != c.hdr {
				t.Fatalf("header %+v, want %+v", h, c.hdr)
			}
			var got []command
			for r.Next() {
				cmd, n, err := decodeAny(r.Cmd())
				if err != nil || n != len(r.Cmd()) {
					t.Fatalf("command %d (%v): n=%d err=%v", len(got), r.ID(), n, err)
				}
				got = append(got, cmd)
			}
			if !reflect.DeepEqual(got, c.cmds) {
				t.Fatalf("commands:\n got %+v\nwant %+v", got, c.cmds)
			}
		})
	}
}

// hexBlock matches the fenced golden examples of docs/PROTOCOL.md:
// ```hex golden=NAME ... ```
var hexBlock = regexp.MustCompile("(?ms)^```hex([^\\n]*)\\n(.*?)^```")
var goldenTag = regexp.MustCompile(`^\s+golden=([a-z0-9_]+)\s*$`)

// TestProtocolDocMatchesGoldens keeps docs/PROTOCOL.md from drifting: every
// hex block in it is tagged with a golden name and equals that golden file,
// and every golden file is shown in the document.
func TestProtocolDocMatchesGoldens(t *testing.T) {
	doc, err := os.ReadFile("../../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	blocks := hexBlock.FindAllStringSubmatch(string(doc), -1)
	if len(blocks) == 0 {
		t.Fatal("no ```hex blocks in docs/PROTOCOL.md")
	}
	for _, m := range blocks {
		tag := goldenTag.FindStringSubmatch(m[1])
		if tag == nil {
			t.Errorf("hex block %q has no golden=NAME tag", strings.TrimSpace(m[1]))
			continue
		}
		name := tag[1]
		shown[name] = true
		got, err := parseHex(m[2])
		if err != nil {
			t.Errorf("doc block %s: %v", name, err)
			continue
		}
		if want := readGolden(t, name); !bytes.Equal(got, want) {
			t.Errorf("doc block %s differs from testdata/wire/%s.hex:\n doc  % x\n file % x", name, name, got, want)
		}
	}
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*.hex"))
	var missing []string
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".hex")
		if !shown[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("golden files not shown in docs/PROTOCOL.md: %v", missing)
	}
}

// Every golden file is used by a test table (no stale vectors).
func TestEveryGoldenIsChecked(t *testing.T) {
	used := map[string]bool{"header": true}
	for _, c := range cmdCases() {
		used[c.golden] = true
	}
	for _, c := range dgramCases() {
		used[c.golden] = true
	}
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*.hex"))
	if len(files) != len(used) {
		t.Errorf("%d golden files, %d used by tests", len(files), len(used))
	}
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".hex"); !used[name] {
			t.Errorf("golden %s is not checked by any test", name)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	var in16 Input
	in16.Count = 16
	for i := range in16.Ticks {
		in16.Ticks[i] = uint32(1000 - i)
		in16.Buttons[i] = uint8(i) & ButtonsMask
	}
	maxEnt := uint64(1)<<63 - 1
	cmds := []command{
		DelEnt{0}, DelEnt{maxEnt}, DelComp{maxEnt, uint32(CompStage)}, DelComp{1, 1},
		Music{0}, Music{255}, GameEnd{0}, GameEnd{1}, GameEnd{2},
		Death{maxEnt, 3, 0}, Death{0, 0, 255},
		Here{[16]byte{15: 1}}, GetEnt{maxEnt}, ActShoot{},
		ActMove{0}, ActMove{DirMask}, Ping{0}, Ping{0xffffffff},
		Rel{1}, Rel{0xffff}, Input{Count: 1, Ticks: [16]uint32{7}, Buttons: [16]uint8{ButtonsMask}}, in16,
		Welcome{maxEnt, 3, 0xffffffff, 1}, Welcome{0, 0, 0, 255},
		Bye{0}, Bye{1}, Bye{2}, Bye{3},
	}
	for _, c := range cmds {
		b := c.Append([]byte{0xee}) // appends after existing bytes
		if b[0] != 0xee {
			t.Fatalf("%T: Append clobbered the buffer", c)
		}
		b = append(b, 0xaa, 0xbb) // trailing bytes must not be consumed
		got, n, err := decodeAny(b[1:])
		if err != nil {
			t.Errorf("%+v: %v", c, err)
			continue
		}
		if n != len(b)-3 {
			t.Errorf("%+v: n=%d want %d", c, n, len(b)-3)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("round trip: got %+v want %+v", got, c)
		}
	}
}

func TestEntityRoundTripAllComponents(t *testing.T) {
	var cs []comp
	for id := uint16(1); id <= MaxComponent; id++ {
		if ComponentSize(id) == 0 || id == CompMotion || id == CompSpawn {
			continue // reserved; Motion and Spawn never travel with Position, Velocity, Kind
		}
		data := make([]byte, ComponentSize(id))
		for i := range data {
			data[i] = byte(int(id)*16 + i)
		}
		cs = append(cs, comp{id, data})
	}
	// Builder with AppendComponentHeader + caller-appended data.
	b, start := BeginEntity(nil, entBullet)
	for _, c := range cs {
		b = AppendComponentHeader(b, c.id, len(c.data))
		b = append(b, c.data...)
	}
	b = EndEntity(b, start, uint8(len(cs)))
	want, ws := BeginEntity(nil, entBullet)
	want = EndEntity(append(want, rawComps(cs...)...), ws, uint8(len(cs)))
	if !bytes.Equal(b, want) {
		t.Fatalf("AppendComponentHeader's components differ from the hand-encoded ones")
	}
	var e Entity
	n, err := e.Parse(b)
	if err != nil || n != len(b) || e.Entity != entBullet || int(e.Count) != len(cs) {
		t.Fatalf("Parse = %+v, %d, %v", e, n, err)
	}
	it := e.Components()
	for i := 0; ; i++ {
		id, data, ok := it.Next()
		if !ok {
			if i != len(cs) {
				t.Fatalf("iterated %d components, want %d", i, len(cs))
			}
			break
		}
		if id != cs[i].id || !bytes.Equal(data, cs[i].data) {
			t.Fatalf("component %d = %d % x, want %d % x", i, id, data, cs[i].id, cs[i].data)
		}
		if cap(data) != len(data) {
			t.Fatalf("component data view must be capped (append must not overwrite the datagram)")
		}
	}
	if got := e.Append(nil); !bytes.Equal(got, b) {
		t.Fatalf("Entity.Append re-encode differs")
	}
	// An entity with no component is valid (exists, nothing replicated yet).
	b0 := buildEntity(nil, entFive)
	if _, err := e.Parse(b0); err != nil || e.Count != 0 || len(e.Raw()) != 0 {
		t.Fatalf("empty ENTITY: %+v %v", e, err)
	}
}

// componentRow matches a row of the component list table of docs/PROTOCOL.md §4: | id | name | size |.
var componentRow = regexp.MustCompile(`(?m)^\| (\d+) \| [A-Za-z]+ \| (\d+) \|`)

// TestComponentSize checks ComponentSize against the component list of docs/PROTOCOL.md §4.
func TestComponentSize(t *testing.T) {
	doc, err := os.ReadFile("../../docs/PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(doc)
	if i := strings.Index(sec, "## 4. Component list"); i >= 0 {
		sec = sec[i:]
	}
	if i := strings.Index(sec, "## 5."); i >= 0 {
		sec = sec[:i]
	}
	want := map[uint16]int{}
	for _, m := range componentRow.FindAllStringSubmatch(sec, -1) {
		id, _ := strconv.Atoi(m[1])
		size, _ := strconv.Atoi(m[2])
		want[uint16(id)] = size
	}
	if len(want) == 0 {
		t.Fatal("no component table in docs/PROTOCOL.md §4")
	}
	for id := 0; id <= 0xffff; id++ {
		if got := ComponentSize(uint16(id)); got != want[uint16(id)] {
			t.Fatalf("ComponentSize(%d) = %d, want %d", id, got, want[uint16(id)])
		}
	}
}

// Every proper prefix of a valid command fails to parse (never panics),
// whatever the typed parser.
func TestCommandTruncation(t *testing.T) {
	for _, c := range cmdCases() {
		full := readGolden(t, c.golden)
		for k := 0; k < len(full); k++ {
			b := full[:k:k]
			if _, n, err := decodeAny(b); err == nil {
				t.Errorf("%s truncated to %d bytes: parsed n=%d", c.golden, k, n)
			}
			if _, _, err := ParseCmd(b); err == nil {
				t.Errorf("%s truncated to %d bytes: ParseCmd accepted", c.golden, k)
			}
		}
		// A shortened size prefix (with the bytes still present) is also
		// caught: the argument length no longer matches. A STATE's records and a
		// DEL_ENTS's ids fill it, so a size that ends between two of them is the
		// same command with fewer.
		boundary := map[int]bool{}
		if CmdID(full[2]) == CmdDelEnts {
			var d DelEnts
			if _, err := d.Parse(full); err != nil {
				t.Fatal(err)
			}
			size := 1
			for it := d.Entities(); ; {
				ent, ok := it.Next()
				if !ok {
					break
				}
				size += EntityRefSize(ent)
				boundary[size] = true
			}
		}
		if CmdID(full[2]) == CmdState {
			var st State
			if _, err := st.Parse(full); err != nil {
				t.Fatal(err)
			}
			size := 1
			for it := st.Records(); ; {
				rec, ok := it.Next()
				if !ok {
					break
				}
				size += RecordSize(rec.Entity, rec.Mask)
				boundary[size] = true
			}
		}
		for size := 1; size < len(full)-2; size++ {
			b := append([]byte(nil), full...)
			b[0], b[1] = byte(size), byte(size>>8)
			if _, _, err := ParseCmd(b); (err == nil) != boundary[size] {
				t.Errorf("%s with size %d (of %d): %v", c.golden, size, len(full)-2, err)
			}
		}
	}
}

// Every truncation of a valid datagram is rejected, except a cut exactly
// between two commands that does not leave a REL last.
func TestDatagramTruncation(t *testing.T) {
	for name, full := range allGoldenDatagrams(t) {
		if err := Validate(full); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ok := map[int]bool{HeaderSize: true}
		r := NewReader(full[HeaderSize:])
		off := HeaderSize
		for r.Next() {
			off += len(r.Cmd())
			ok[off] = r.ID() != CmdRel
		}
		if off != len(full) {
			t.Fatalf("%s: reader stopped at %d of %d", name, off, len(full))
		}
		for k := 0; k < len(full); k++ {
			err := Validate(full[:k:k])
			if ok[k] && err != nil {
				t.Errorf("%s cut at command boundary %d: %v", name, k, err)
			}
			if !ok[k] && err == nil {
				t.Errorf("%s truncated to %d bytes accepted", name, k)
			}
		}
	}
}

func TestParseWrongCommand(t *testing.T) {
	b := Ping{1}.Append(nil)
	var d DelEnt
	if _, err := d.Parse(b); err != ErrCmdID {
		t.Fatalf("DelEnt.Parse(PING) = %v, want ErrCmdID", err)
	}
	var e Entity
	if _, err := e.Parse(b); err != ErrCmdID {
		t.Fatalf("Entity.Parse(PING) = %v, want ErrCmdID", err)
	}
}

func TestInputParseClearsStaleEntries(t *testing.T) {
	in := Input{Count: 2, Ticks: [16]uint32{9, 8}, Buttons: [16]uint8{1, 2}}
	var got Input
	got.Count = 16
	for i := range got.Ticks {
		got.Ticks[i], got.Buttons[i] = 77, 7
	}
	if _, err := got.Parse(in.Append(nil)); err != nil || got != in {
		t.Fatalf("got %+v, %v", got, err)
	}
	// Append clamps an out-of-range count to 16 rather than overrunning.
	big := Input{Count: 200}
	b := big.Append(nil)
	if len(b) != CmdOverhead+1+16*InputEntryArgs || b[3] != 16 {
		t.Fatalf("Append(Count=200) = % x", b)
	}
}

func TestReaderStopsOnGarbage(t *testing.T) {
	payloads := [][]byte{
		nil, {1}, {0, 0}, {0, 0, 1}, {5, 0, 11}, {0xff, 0xff, 1, 2, 3},
	}
	for _, p := range payloads {
		r := NewReader(p)
		if r.Next() {
			t.Errorf("Reader(% x) yielded %v", p, r.ID())
		}
		if r.Next() || r.ID() != 0 || r.Cmd() != nil {
			t.Errorf("Reader(% x) not stopped", p)
		}
	}
	// A valid command followed by garbage yields the command then stops.
	p := append(Ping{5}.Append(nil), 9, 0, 1)
	r := NewReader(p)
	if !r.Next() || r.ID() != CmdPing || len(r.Cmd()) != 7 || r.Next() {
		t.Fatalf("Reader did not yield exactly the PING")
	}
}

func TestCmdID(t *testing.T) {
	names := map[CmdID]string{1: "ENTITY", 2: "DEL_ENT", 3: "DEL_COMP", 4: "MUSIC", 5: "GAME_END",
		6: "DEATH", 7: "HERE", 8: "GET_ENT", 9: "ACT_SHOOT", 10: "ACT_MOVE", 11: "PING",
		12: "REL", 13: "INPUT", 14: "WELCOME", 15: "BYE", 16: "CHALLENGE", 17: "RESPONSE", 18: "PAUSE", 19: "RESULTS", 20: "STATE", 21: "DEL_ENTS", 0: "CMD_0", 22: "CMD_22", 255: "CMD_255"}
	for id, n := range names {
		if id.String() != n {
			t.Errorf("CmdID(%d).String() = %q, want %q", id, id.String(), n)
		}
		if id.Known() != (id >= 1 && id <= 21) {
			t.Errorf("CmdID(%d).Known() = %v", id, id.Known())
		}
	}
	rel := map[CmdID]bool{2: true, 3: true, 4: true, 5: true, 6: true, 14: true, 15: true, 18: true, 19: true, 21: true}
	for id := 0; id < 256; id++ {
		if CmdID(id).ReliableCapable() != rel[CmdID(id)] {
			t.Errorf("CmdID(%d).ReliableCapable() wrong", id)
		}
	}
}

func TestReasonIndex(t *testing.T) {
	if ReasonIndex(nil) != -1 {
		t.Fatal("ReasonIndex(nil) != -1")
	}
	if got := ReasonIndex(errors.New("x")); got != NumReasons-1 || Reasons[got] != "other" {
		t.Fatalf("foreign error -> %d", got)
	}
	seen := map[int]bool{}
	for _, s := range sentinels {
		i := ReasonIndex(s)
		if i < 0 || i >= NumReasons-1 || seen[i] {
			t.Fatalf("%v: index %d out of range or duplicated", s, i)
		}
		seen[i] = true
		if s.Reason() != Reasons[i] {
			t.Fatalf("%v: Reason %q != Reasons[%d] %q", s, s.Reason(), i, Reasons[i])
		}
		if ReasonIndex(fmt.Errorf("ctx: %w", s)) != i {
			t.Fatalf("wrapped %v lost its reason", s)
		}
		if s.Error() == "" || !strings.HasPrefix(s.Error(), "wire: ") {
			t.Fatalf("error text %q", s.Error())
		}
	}
	if len(seen) != NumReasons-1 {
		t.Fatalf("%d sentinels for %d reasons", len(seen), NumReasons-1)
	}
	if ErrCmdSize != ErrSize {
		t.Fatal("ErrCmdSize must alias ErrSize")
	}
}

// Every single-byte mutation of every golden datagram keeps the decoder
// properties of FuzzValidate (a deterministic slice of the fuzz target that
// runs with plain `go test`); some of them must be rejected.
func TestMutatedGoldens(t *testing.T) {
	rejected := 0
	for name, d := range allGoldenDatagrams(t) {
		m := append([]byte(nil), d...)
		for i := range m {
			orig := m[i]
			for _, v := range []byte{0, 1, 0x7f, 0x80, 0xff, orig + 1, orig - 1, orig ^ 0x40} {
				if v == orig {
					continue
				}
				m[i] = v
				if Validate(m) != nil {
					rejected++
				}
				if !t.Run(fmt.Sprintf("%s/byte%d=%02x", name, i, v), func(t *testing.T) { checkDatagram(t, m) }) {
					t.FailNow()
				}
			}
			m[i] = orig
		}
	}
	if rejected == 0 {
		t.Fatal("no mutation was rejected")
	}
}

func TestParseEmptyAndIterGarbage(t *testing.T) {
	var d DelEnt
	if n, err := d.Parse(nil); err != ErrSize || n != 0 {
		t.Fatalf("Parse(nil) = %d, %v", n, err)
	}
	// An iterator over bytes that were not validated stops instead of
	// reading past the end.
	it := ComponentIter{b: rawComps(comp{1, make([]byte, 8)})[:12]}
	if _, _, ok := it.Next(); ok {
		t.Fatal("iterator yielded a truncated component")
	}
	if _, _, ok := it.Next(); ok {
		t.Fatal("iterator did not stop")
	}
}

// The proof of the RESPONSE vector is HMAC-SHA256(key, token || nonce) cut to 16 bytes, and a
// proof under another key, token or nonce does not check.
func TestProver(t *testing.T) {
	p := NewProver(testKey)
	n := testNonce
	if got := p.Proof(0x12345678, &n); got != testProof {
		t.Fatalf("proof % x, want % x", got, testProof)
	}
	pr := testProof
	if !p.Check(0x12345678, &n, &pr) {
		t.Fatal("the vector's proof does not check")
	}
	if p.Check(0x12345679, &n, &pr) {
		t.Error("proof checks for another token")
	}
	n2 := n
	n2[15] ^= 1
	if p.Check(0x12345678, &n2, &pr) {
		t.Error("proof checks for another nonce")
	}
	k2 := testKey
	k2[0] ^= 1
	if NewProver(k2).Check(0x12345678, &n, &pr) {
		t.Error("proof checks under another key")
	}
	if a := testing.AllocsPerRun(100, func() { p.Proof(1, &n) }); a != 0 {
		t.Errorf("Proof: %v allocs, want 0", a)
	}
}
