package game

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtype/rtype/assets"
)

func TestStageHash(t *testing.T) {
	// SHA-256("") = e3b0c44298fc1c14 9afbf4c8...: the hash is its first 8 bytes in hex.
	if got := StageHash(nil); got != "e3b0c44298fc1c14" {
		t.Fatalf("StageHash(empty) = %s", got)
	}
	if len(StageHash([]byte("x"))) != StageHashLen {
		t.Fatal("hash length")
	}
}

// The catalogue offers every embedded stage, the default first, and a -stage file under its
// base name, which replaces an embedded stage of that name.
func TestLoadStageCatalogue(t *testing.T) {
	names := EmbeddedStageNames()
	if len(names) < 2 || !strings.Contains(","+strings.Join(names, ",")+",", ",stage1,") || !strings.Contains(","+strings.Join(names, ",")+",", ",short,") {
		t.Fatalf("EmbeddedStageNames = %v, want stage1 and short among them", names)
	}
	cat, err := LoadStageCatalogue("short")
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
	data, _ := os.ReadFile("../assets/stages/short.json")
	if f := cat.ByName("short"); !bytes.Equal(f.Data, data) || f.Hash != StageHash(data) || cat.ByHash(f.Hash) != f {
		t.Fatal("short: Data must be the file's bytes and Hash their StageHash")
	}
	if st, err := cat.Stage(""); err != nil || st != cat.ByName("short").Stage {
		t.Fatalf(`Stage("") = %v, %v; want the default`, st, err)
	}
	if _, err := cat.Stage("nosuch"); err == nil || !strings.Contains(err.Error(), "stage1") {
		t.Fatalf("Stage(unknown) = %v, want an error listing the offered stages", err)
	}

	dir := t.TempDir()
	tiny, err := os.ReadFile("../testdata/lobby/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"cave.json", "stage1.json"} {
		if err := os.WriteFile(filepath.Join(dir, n), tiny, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cat, err = LoadStageCatalogue(filepath.Join(dir, "cave.json"))
	if err != nil {
		t.Fatal(err)
	}
	if cat.Default().Name != "cave" || cat.Default().Hash != StageHash(tiny) || len(cat.Files()) != len(names)+1 {
		t.Fatalf("with a file: Names = %v, want cave first plus the embedded stages", cat.Names())
	}
	cat, err = LoadStageCatalogue(filepath.Join(dir, "stage1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if f := cat.ByName("stage1"); f.Hash != StageHash(tiny) || len(cat.Files()) != len(names) {
		t.Fatalf("a file named stage1 must replace the embedded stage1 (names %v)", cat.Names())
	}

	bad := filepath.Join(dir, "bad name.json")
	os.WriteFile(bad, tiny, 0o644)
	for _, def := range []string{"nosuch", filepath.Join(dir, "missing.json"), bad} {
		if _, err := LoadStageCatalogue(def); err == nil {
			t.Errorf("LoadStageCatalogue(%q) succeeded", def)
		}
	}
}

func TestNewStageCatalogueErrors(t *testing.T) {
	f, err := EmbeddedStageFile("short")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewStageCatalogue("short"); err == nil {
		t.Error("empty catalogue accepted")
	}
	if _, err := NewStageCatalogue("short", f, f); err == nil {
		t.Error("two stages with one name accepted")
	}
	if _, err := NewStageCatalogue("stage1", f); err == nil {
		t.Error("a default that is not offered accepted")
	}
	if _, err := EmbeddedStageFile("../x"); err == nil {
		t.Error("EmbeddedStageFile accepted a path")
	}
	if _, err := NewStageFile("x", "x", bytes.Repeat([]byte(" "), MaxStageFileBytes+1)); err == nil {
		t.Error("a file over MaxStageFileBytes accepted")
	}
}

// Every embedded stage loads through the catalogue (a broken stage file would stop servers).
func TestEmbeddedStagesLoad(t *testing.T) {
	for _, n := range EmbeddedStageNames() {
		f, err := EmbeddedStageFile(n)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := assets.Stages.ReadFile(assets.StagePath(n))
		if !bytes.Equal(f.Data, data) {
			t.Fatalf("%s: Data is not the file", n)
		}
	}
}

// Menus show stage titles, not ids; a stage the client does not embed shows its name.
func TestStageTitle(t *testing.T) {
	if got := StageTitle("stage1"); got != "Stage 1: the Bydo base" {
		t.Errorf("StageTitle(stage1) = %q", got)
	}
	if got := StageTitle("cave"); got != "cave" {
		t.Errorf("StageTitle(cave) = %q, want the name", got)
	}
}

// A parsed stage keeps its file (Stage.Source) and is named by its StageHash (Stage.Hash), the
// same as the StageFile's; a Stage built in code has neither.
func TestStageSourceAndHash(t *testing.T) {
	f, err := EmbeddedStageFile("short")
	if err != nil {
		t.Fatal(err)
	}
	st, err := LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(st.Source(), f.Data) || st.Hash() != f.Hash || f.Stage.Hash() != f.Hash {
		t.Errorf("LoadStage(short): Hash %q, StageFile's %q", st.Hash(), f.Hash)
	}
	if (&Stage{}).Hash() != "" || (&Stage{}).Source() != nil {
		t.Error("a Stage built in code has a hash")
	}
}
