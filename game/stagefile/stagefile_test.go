package stagefile_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtype/rtype/assets"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/stagefile"
)

func TestStageHash(t *testing.T) {
	// SHA-256("") = e3b0c44298fc1c14 9afbf4c8...: the hash is its first 8 bytes in hex.
	if got := stagefile.Hash(nil); got != "e3b0c44298fc1c14" {
		t.Fatalf("stagefile.Hash(empty) = %s", got)
	}
	if len(stagefile.Hash([]byte("x"))) != stagefile.HashLen {
		t.Fatal("hash length")
	}
}

func TestLoadCatalogue(t *testing.T) {
	names := stagefile.EmbeddedNames()
	if len(names) < 2 || !strings.Contains(","+strings.Join(names, ",")+",", ",stage1,") || !strings.Contains(","+strings.Join(names, ",")+",", ",short,") {
		t.Fatalf("stagefile.EmbeddedNames = %v, want stage1 and short among them", names)
	}
	cat, err := stagefile.LoadCatalogue("short", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	got := cat.Names()
	if got[0] != "short" || len(got) != len(names) {
		t.Fatalf("Names = %v, want short first then the other embedded stages", got)
	}
	for i := 2; i < len(got); i++ {
		if got[i-1] >= got[i] {
			t.Fatalf("Names = %v: after the default, names must be sorted", got)
		}
	}
	data, _ := os.ReadFile("../../assets/stages/short.json")
	if f := cat.ByName("short"); !bytes.Equal(f.Data, data) || f.Hash != stagefile.Hash(data) || cat.ByHash(f.Hash) != f {
		t.Fatal("short: Data must be the file's bytes and Hash their stagefile.Hash")
	}
	if f, err := cat.Resolve(""); err != nil || f != cat.ByName("short") {
		t.Fatalf(`Resolve("") = %v, %v; want the default`, f, err)
	}
	if _, err := cat.Resolve("nosuch"); err == nil || !strings.Contains(err.Error(), "stage1") {
		t.Fatalf("Resolve(unknown) = %v, want an error listing the offered stages", err)
	}

	dir := t.TempDir()
	tiny, err := os.ReadFile("../../testdata/lobby/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"cave.json", "stage1.json"} {
		if err := os.WriteFile(filepath.Join(dir, n), tiny, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat, err = stagefile.LoadCatalogue(filepath.Join(dir, "cave.json"), game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Default().Name != "cave" || cat.Default().Hash != stagefile.Hash(tiny) || len(cat.Files()) != len(names)+1 {
		t.Fatalf("with a file: Names = %v, want cave first plus the embedded stages", cat.Names())
	}
	cat, err = stagefile.LoadCatalogue(filepath.Join(dir, "stage1.json"), game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	if f := cat.ByName("stage1"); f.Hash != stagefile.Hash(tiny) || len(cat.Files()) != len(names) {
		t.Fatalf("a file named stage1 must replace the embedded stage1 (names %v)", cat.Names())
	}

	bad := filepath.Join(dir, "bad name.json")
	os.WriteFile(bad, tiny, 0o644)
	for _, def := range []string{"nosuch", filepath.Join(dir, "missing.json"), bad} {
		if _, err := stagefile.LoadCatalogue(def, game.ParseScript); err == nil {
			t.Errorf("stagefile.LoadCatalogue(%q, game.ParseScript) succeeded", def)
		}
	}
}

// A list offers exactly its stages, the first the default (the server of PROTOCOL.md §2.1.1's
// examples: -stage stage1,short,testdata/lobby/tiny.json).
func TestLoadCatalogueList(t *testing.T) {
	cat, err := stagefile.LoadCatalogue("short,stage1,../../testdata/lobby/tiny.json", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cat.Names(), ","); got != "short,stage1,tiny" {
		t.Errorf("Names = %s, want short (the first: the default) then stage1, tiny and nothing else", got)
	}
	for _, def := range []string{"stage1,stage1", "stage1,nosuch", "stage1,", "stage1,../../testdata/lobby/missing.json"} {
		if _, err := stagefile.LoadCatalogue(def, game.ParseScript); err == nil {
			t.Errorf("stagefile.LoadCatalogue(%q) succeeded", def)
		}
	}
}

func TestNewCatalogueErrors(t *testing.T) {
	f, err := stagefile.Embedded("short", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stagefile.NewCatalogue("short"); err == nil {
		t.Error("empty catalogue accepted")
	}
	if _, err := stagefile.NewCatalogue("short", f, f); err == nil {
		t.Error("two stages with one name accepted")
	}
	if _, err := stagefile.NewCatalogue("stage1", f); err == nil {
		t.Error("a default that is not offered accepted")
	}
	if _, err := stagefile.Embedded("../x", game.ParseScript); err == nil {
		t.Error("Embedded accepted a path")
	}
	if _, err := stagefile.New("x", "x", bytes.Repeat([]byte(" "), stagefile.MaxBytes+1), game.ParseScript); err == nil {
		t.Error("a file over stagefile.MaxBytes accepted")
	}
}

func TestEmbeddedStagesLoad(t *testing.T) {
	for _, n := range stagefile.EmbeddedNames() {
		f, err := stagefile.Embedded(n, game.ParseScript)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := assets.Stages.ReadFile(assets.StagePath(n))
		if !bytes.Equal(f.Data, data) {
			t.Fatalf("%s: Data is not the file", n)
		}
	}
}

func TestCatalogueRun(t *testing.T) {
	cat, err := stagefile.LoadCatalogue("stage1", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range cat.Run() {
		names = append(names, f.Name)
	}
	var want []string
	for _, n := range stagefile.DefaultRun {
		if cat.ByName(n) != nil {
			want = append(want, n)
		}
	}
	if len(want) < 2 || strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("default run %v, want %v", names, want)
	}
	if err := cat.SetRun([]string{"short"}); err == nil {
		t.Error("SetRun of one stage: no error")
	}
	if err := cat.SetRun([]string{"short", "nosuch"}); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("SetRun of an unknown stage: %v", err)
	}
	if err := cat.SetRun([]string{"short", "short"}); err != nil || len(cat.Run()) != 2 {
		t.Errorf("SetRun(short, short): %v, %d stages", err, len(cat.Run()))
	}
	if err := cat.SetRun(nil); err != nil || cat.Run() != nil {
		t.Errorf("SetRun(nil): %v, run %v", err, cat.Run())
	}
	f, _ := stagefile.Embedded("short", game.ParseScript)
	g := *f
	g.Name = stagefile.Arcade
	if _, err := stagefile.NewCatalogue(stagefile.Arcade, &g); err == nil {
		t.Error("a stage named arcade is offered")
	}
}

// A file is what its Parser accepted: the parser's error refuses it, and the Script it made is
// kept for the simulation (and the lobby's practice sections).
func TestParserChecksFiles(t *testing.T) {
	refuse := func(file string, data []byte) (stagefile.Script, error) { return nil, errors.New(file + ": no") }
	if _, err := stagefile.Embedded("short", refuse); err == nil || !strings.Contains(err.Error(), "stages/short.json: no") {
		t.Errorf("a file its parser refused: %v", err)
	}
	if _, err := stagefile.LoadCatalogue("", refuse); err == nil {
		t.Error("a catalogue of refused files loaded")
	}
	if _, err := stagefile.New("short", "x", []byte("{}"), nil); err == nil {
		t.Error("a file without a parser accepted")
	}
	f, err := stagefile.Embedded("short", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	st := game.StageOf(f)
	if st == nil || f.Script.PracticeBoss() != len(st.Sections) || st.Hash() != f.Hash {
		t.Errorf("short: Script %v, want the parsed stage with its sections", f.Script)
	}
}
