package wire

import (
	"bytes"
	"testing"
)

// fullEntityDatagram builds a datagram filled with ENTITY commands (each with
// Position and Velocity) up to the 1200-byte cap. It returns the datagram and
// the number of commands.
func fullEntityDatagram(buf []byte) ([]byte, int) {
	var pos, vel [8]byte
	buf = Header{Token: 1, Tick: 100, Seq: 1}.Append(buf[:0])
	n := 0
	const per = EntityOverhead + 2*(ComponentOverhead+8)
	for fits(buf, per) {
		pos[0], vel[0] = byte(n), byte(n+1)
		var start int
		buf, start = BeginEntity(buf, uint64(n+1))
		buf = appendComponent(buf, CompPosition, pos[:])
		buf = appendComponent(buf, CompVelocity, vel[:])
		buf = EndEntity(buf, start, 2)
		n++
	}
	return buf, n
}

// decodeEntities validates d, then iterates and parses every ENTITY and its
// components; it returns the number of components seen.
func decodeEntities(d []byte) (int, error) {
	var h Header
	r, err := Open(d, &h)
	if err != nil {
		return 0, err
	}
	comps := 0
	for r.Next() {
		if r.ID() != CmdEntity {
			continue
		}
		var e Entity
		if _, err := e.Parse(r.Cmd()); err != nil {
			return 0, err
		}
		it := e.Components()
		for {
			_, data, ok := it.Next()
			if !ok {
				break
			}
			comps += int(data[0]&1) + 1
		}
	}
	return comps, nil
}

func TestFullDatagram(t *testing.T) {
	d, n := fullEntityDatagram(make([]byte, 0, MaxDatagram))
	if len(d) > MaxDatagram || len(d)+EntityOverhead+2*(ComponentOverhead+8) <= MaxDatagram {
		t.Fatalf("datagram of %d bytes is not full", len(d))
	}
	if n != (MaxDatagram-HeaderSize)/48 {
		t.Fatalf("%d entities, want %d", n, (MaxDatagram-HeaderSize)/48)
	}
	if err := Validate(d); err != nil {
		t.Fatal(err)
	}
	if _, err := decodeEntities(d); err != nil {
		t.Fatal(err)
	}
}

// Zero-allocation claims of the package doc, pinned.
func TestZeroAllocs(t *testing.T) {
	buf := make([]byte, 0, MaxDatagram)
	dgrams := allGoldenDatagrams(t)
	full, _ := fullEntityDatagram(make([]byte, 0, MaxDatagram))
	hdr := goldenHeader
	in := testInput
	checks := []struct {
		name string
		fn   func()
	}{
		{"Header.Append", func() { buf = hdr.Append(buf[:0]) }},
		{"Header.Parse", func() { var h Header; _, _ = h.Parse(full) }},
		{"Append all commands", func() {
			b := buf[:0]
			b = DelEnt{1}.Append(b)
			b = DelComp{1, 2}.Append(b)
			b = Music{1}.Append(b)
			b = GameEnd{1}.Append(b)
			b = Death{1, 1, 1}.Append(b)
			b = Here{[16]byte{1}}.Append(b)
			b = GetEnt{1}.Append(b)
			b = ActShoot{}.Append(b)
			b = ActMove{1}.Append(b)
			b = Ping{1}.Append(b)
			b = Rel{1}.Append(b)
			b = in.Append(b)
			b = Welcome{1, 1, 1, 60}.Append(b)
			b = Bye{1}.Append(b)
			buf = b
		}},
		{"fill ENTITY datagram", func() { buf, _ = fullEntityDatagram(buf) }},
		{"Validate full", func() { _ = Validate(full) }},
		{"decode full", func() { _, _ = decodeEntities(full) }},
		{"Validate+parse goldens", func() {
			for _, d := range dgrams {
				if Validate(d) != nil {
					panic("invalid golden")
				}
				r := NewReader(d[HeaderSize:])
				for r.Next() {
					_, _, _ = ParseCmd(r.Cmd())
				}
			}
		}},
		{"typed Parse", func() {
			var i Input
			_, _ = i.Parse(dgrams["input"][HeaderSize:])
			var w Welcome
			_, _ = w.Parse(dgrams["welcome"][HeaderSize:])
		}},
		{"Validate errors", func() {
			_ = Validate(full[:HeaderSize+5])
			_ = Validate(full[:10])
		}},
		{"ReasonIndex", func() { _ = ReasonIndex(ErrComponent); _ = ReasonIndex(nil) }},
	}
	for _, c := range checks {
		if a := testing.AllocsPerRun(100, c.fn); a != 0 {
			t.Errorf("%s: %v allocs/op, want 0", c.name, a)
		}
	}
}

func BenchmarkEncodeEntityDatagram(b *testing.B) {
	buf := make([]byte, 0, MaxDatagram)
	_, cmds := fullEntityDatagram(buf)
	b.ReportAllocs()
	b.SetBytes(MaxDatagram)
	for b.Loop() {
		buf, _ = fullEntityDatagram(buf)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(cmds), "ns/cmd")
	b.ReportMetric(float64(cmds), "cmds/datagram")
}

func BenchmarkDecodeEntityDatagram(b *testing.B) {
	d, cmds := fullEntityDatagram(make([]byte, 0, MaxDatagram))
	b.ReportAllocs()
	b.SetBytes(int64(len(d)))
	sink := 0
	for b.Loop() {
		n, err := decodeEntities(d)
		if err != nil {
			b.Fatal(err)
		}
		sink += n
	}
	if sink == 0 {
		b.Fatal("nothing decoded")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(cmds), "ns/cmd")
	b.ReportMetric(float64(cmds), "cmds/datagram")
}

func BenchmarkValidateEntityDatagram(b *testing.B) {
	d, cmds := fullEntityDatagram(make([]byte, 0, MaxDatagram))
	b.ReportAllocs()
	b.SetBytes(int64(len(d)))
	for b.Loop() {
		if err := Validate(d); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(cmds), "ns/cmd")
}

// FuzzValidate: the datagram decoder never panics; a datagram that Validate
// accepts parses command by command and re-encodes to the same bytes; a
// rejected one maps to a known reason.
func FuzzValidate(f *testing.F) {
	for _, d := range allGoldenDatagrams(f) {
		f.Add(d)
	}
	full, _ := fullEntityDatagram(nil)
	f.Add(full)
	fullState, _ := fullStateDatagram(nil)
	f.Add(fullState)
	f.Fuzz(checkDatagram)
}

// checkDatagram asserts the decoder properties on any input d: no panic; a
// datagram that Validate accepts parses command by command and re-encodes to
// the same bytes; a rejected one maps to a known reason.
func checkDatagram(t *testing.T, d []byte) {
	t.Helper()
	err := Validate(d)
	var h Header
	r, oerr := Open(d, &h)
	if oerr != err {
		t.Fatalf("Open = %v, Validate = %v", oerr, err)
	}
	if err != nil {
		if i := ReasonIndex(err); i < 0 || i >= NumReasons-1 {
			t.Fatalf("error %v has no reason", err)
		}
		// Iterating or parsing garbage must not panic either.
		gr := NewReader(d)
		for gr.Next() {
			_, _, _ = decodeAny(gr.Cmd())
		}
		return
	}
	out := h.Append(nil)
	prevRel := false
	for r.Next() {
		id, n, err := ParseCmd(r.Cmd())
		if err != nil || n != len(r.Cmd()) || id != r.ID() {
			t.Fatalf("valid datagram: ParseCmd(%v) = %d, %v", r.ID(), n, err)
		}
		cmd, n, err := decodeAny(r.Cmd())
		if err != nil || n != len(r.Cmd()) {
			t.Fatalf("valid datagram: Parse(%v) = %d, %v", r.ID(), n, err)
		}
		if prevRel && !id.ReliableCapable() {
			t.Fatalf("REL before %v accepted", id)
		}
		prevRel = id == CmdRel
		if st, ok := cmd.(State); ok {
			checkState(t, st)
		}
		if d, ok := cmd.(DelEnts); ok {
			n := 0
			for it := d.Entities(); ; {
				ent, ok := it.Next()
				if !ok {
					break
				}
				if ent&EntityIDTopBit != 0 || ent>>32 == 0 {
					t.Fatalf("DEL_ENTS entity %#x", ent)
				}
				n += EntityRefSize(ent)
			}
			if n != len(d.ids) {
				t.Fatalf("DEL_ENTS ids of %d bytes in %d", n, len(d.ids))
			}
		}
		if e, ok := cmd.(Entity); ok {
			it := e.Components()
			for c := 0; ; c++ {
				cid, data, ok := it.Next()
				if !ok {
					if c != int(e.Count) {
						t.Fatalf("iterated %d components, compCount %d", c, e.Count)
					}
					break
				}
				if len(data) != ComponentSize(cid) {
					t.Fatalf("component %d of %d bytes", cid, len(data))
				}
			}
		}
		out = cmd.Append(out)
	}
	if !bytes.Equal(out, d) {
		t.Fatalf("re-encode differs:\n in  % x\n out % x", d, out)
	}
}

// FuzzHeader: Header.Parse never panics; an accepted header re-encodes to
// the same 22 bytes, and any rejection is one of the header errors.
func FuzzHeader(f *testing.F) {
	f.Add(goldenHeader.Append(nil))
	f.Add([]byte("RT\x02\x00\x00\x00\x00\x00"))
	f.Add(make([]byte, HeaderSize))
	f.Fuzz(func(t *testing.T, b []byte) {
		var h Header
		n, err := h.Parse(b)
		switch err {
		case nil:
			if n != HeaderSize || !bytes.Equal(h.Append(nil), b[:HeaderSize]) {
				t.Fatalf("re-encode differs")
			}
			if h.Token == 0 {
				t.Fatal("zero token accepted")
			}
		case ErrShort, ErrMagic, ErrVersion, ErrFlags, ErrToken:
			if n != 0 {
				t.Fatalf("n=%d on error", n)
			}
		default:
			t.Fatalf("unexpected error %v", err)
		}
	})
}
