package fleet

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/stagefile"
)

// bigStage is testdata/lobby/tiny.json padded with spaces to 80 000 bytes or more: a stage file
// of three parts.
func bigStage(t *testing.T, name string) *stagefile.File {
	t.Helper()
	b, err := os.ReadFile("../../testdata/lobby/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	b = append(bytes.TrimRight(b, "}\n"), bytes.Repeat([]byte(" "), 80_000)...)
	b = append(b, '}', '}')
	f, err := stagefile.New(name, name+".json", b, game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// received is the number of stage files h's lobby sessions received.
func received(h *Host) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for s := range h.sessions {
		s.stages.mu.Lock()
		n += s.stages.received
		s.stages.mu.Unlock()
	}
	return n
}

// TestStagesHandOver: the host plays the lobby's stage files, not its own -stage files. A stage
// the host does not have reaches it with the first start that plays it (in parts, checked
// against its hash) and only then; one it has (same hash) is not sent; an arcade run's stages
// and a practice section reach it too; a file whose bytes do not match its hash is refused,
// and the start with it.
func TestStagesHandOver(t *testing.T) { synctest.Test(t, testStagesHandOver) }

func testStagesHandOver(t *testing.T) {
	cat, err := stagefile.LoadCatalogue("stage1", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	h := startHostWith(t, &fakeStarter{port: 5001}, 8, "", func(hc *HostConfig) { hc.Stages = cat })
	r := startRemote(t, h.addr)
	eventually(t, "host up", func() bool { return r.Up() == 1 && freeOf(r) == 8 })

	big := bigStage(t, "big")
	if n := len(stageMsgs(big)); n != 3 {
		t.Fatalf("the big stage is %d parts, want 3", n)
	}
	sp := spec("ABCDE", 1)
	sp.Stage, sp.Files = "big", []*stagefile.File{big}
	for i := range 2 {
		if _, err := r.StartGame(sp); err != nil {
			t.Fatalf("start %d on the lobby's stage: %v", i, err)
		}
	}
	for _, g := range h.st.games() {
		f := g.spec.File("big")
		if g.spec.Stage != "big" || len(g.spec.Files) != 1 || f == nil || f.Hash != big.Hash || !bytes.Equal(f.Data, big.Data) || game.StageOf(f) == nil {
			t.Fatalf("the host's game got stage %q, files %+v; want the lobby's big", g.spec.Stage, g.spec.Files)
		}
	}
	if n := received(h.Host); n != 1 {
		t.Fatalf("the host received %d stage files for two starts, want 1 (once per connection)", n)
	}

	short := cat.ByName("short")
	run := spec("FGHJK", 1)
	run.Stage, run.Run, run.Files = "short", []string{"short", "big"}, []*stagefile.File{short, big}
	if _, err := r.StartGame(run); err != nil {
		t.Fatal(err)
	}
	g := h.st.games()[2].spec
	if strings.Join(g.Run, ",") != "short,big" || len(g.Files) != 2 || g.File("short").Hash != short.Hash || g.File("big").Hash != big.Hash {
		t.Fatalf("the arcade run on the host: run %v, files %+v", g.Run, g.Files)
	}
	if n := received(h.Host); n != 1 {
		t.Fatalf("the host received %d stage files, want still 1 (it has short)", n)
	}
	practice := spec("KLMNP", 1)
	practice.Section, practice.InfiniteLives = 2, true
	practice.Files = []*stagefile.File{cat.ByName("stage1")}
	if _, err := r.StartGame(practice); err != nil {
		t.Fatal(err)
	}
	if g := h.st.games()[3].spec; g.Section != 2 || !g.InfiniteLives {
		t.Fatalf("the practice game on the host starts at section %d, infinite lives %v; want 2, true", g.Section, g.InfiniteLives)
	}

	forged := &stagefile.File{Name: "forged", Data: big.Data, Hash: short.Hash[:15] + "0", Script: big.Script}
	if forged.Hash == short.Hash {
		forged.Hash = short.Hash[:15] + "1"
	}
	bad := spec("QRSTU", 1)
	bad.Stage, bad.Files = "forged", []*stagefile.File{forged}
	if _, err := r.StartGame(bad); err == nil || !strings.Contains(err.Error(), "its bytes hash to "+big.Hash) {
		t.Fatalf("a stage whose bytes do not match its hash: %v", err)
	}
	if len(h.st.games()) != 4 {
		t.Fatal("the host started a game on a refused stage")
	}
}

// TestStageParts: the host's reassembly of a stage file trusts nothing: parts in order from 0,
// each once, every one but the last full, one file at a time (part 0 begins a file anew,
// abandoning an incomplete one), the bytes hashing to the hash.
func TestStageParts(t *testing.T) {
	big := bigStage(t, "big")
	ms := stageMsgs(big)
	full := make([]byte, ReplayPartBytes)
	for _, tc := range []struct {
		name string
		feed []*Msg
		want string // "" the file
	}{
		{"whole", ms, ""},
		{"out of order", []*Msg{ms[0], ms[2]}, "part 2 where part 1 was due"},
		{"duplicate", []*Msg{ms[0], ms[1], ms[1]}, "part 1 where part 2 was due"},
		{"part 0 again: the file anew", []*Msg{ms[0], ms[1], ms[0], ms[1], ms[2]}, ""},
		{"not from 0", []*Msg{ms[1]}, "part 1 before part 0"},
		{"short part", []*Msg{{Hash: big.Hash, Part: 0, Parts: 2, Data: []byte("{}")}}, "only the last part may be shorter"},
		{"too many parts", []*Msg{{Hash: big.Hash, Part: 0, Parts: MaxStageParts + 1, Data: full}}, "parts (1.."},
		{"bad hash", []*Msg{{Hash: "XYZ", Part: 0, Parts: 1, Data: []byte("{}")}}, "not a stage hash"},
		{"another file's part 1 before the end", []*Msg{ms[0], {Hash: "0123456789abcdef", Part: 1, Parts: 2, Data: []byte("{}")}}, "is incomplete"},
		{"another file's part 0 abandons the incomplete one", []*Msg{ms[0], {Hash: "0123456789abcdef", Part: 0, Parts: 1, Data: []byte("{}")}}, "its bytes hash to"},
		{"bytes of another hash", []*Msg{{Hash: "0123456789abcdef", Part: 0, Parts: 1, Data: []byte("{}")}}, "its bytes hash to"},
		{"not a stage", []*Msg{{Hash: stagefile.Hash([]byte("{}")), Part: 0, Parts: 1, Data: []byte("{}")}}, "scrollSpeed: missing"},
	} {
		var p stageParts
		var f *stagefile.File
		var err error
		for _, m := range tc.feed {
			if f, err = p.add(m.Hash, m.Part, m.Parts, m.Data); err != nil {
				break
			}
		}
		switch {
		case tc.want == "" && (err != nil || f == nil || f.Hash != big.Hash || !bytes.Equal(f.Data, big.Data)):
			t.Errorf("%s: %v, file %v", tc.name, err, f != nil)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		case tc.want != "" && p.hash != "":
			t.Errorf("%s: a refused file is still being received", tc.name)
		}
	}
}
