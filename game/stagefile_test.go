package game

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rtype/rtype/game/stagefile"
)

// The catalogue offers every embedded stage, the default first, and a -stage file under its
// base name, which replaces an embedded stage of that name.
// Every embedded stage loads through the catalogue (a broken stage file would stop servers).
// Menus show stage titles, not ids; a stage the client does not embed shows its name.
func TestStageTitle(t *testing.T) {
	if got := StageTitle("stage1"); got != "Stage 1: the Bydo base" {
		t.Errorf("StageTitle(stage1) = %q", got)
	}
	if got := StageTitle(stagefile.Arcade); got != "Arcade" {
		t.Errorf("StageTitle(arcade) = %q, want Arcade", got)
	}
	if got := StageTitle("cave"); got != "cave" {
		t.Errorf("StageTitle(cave) = %q, want the name", got)
	}
}

// A parsed stage keeps its file (Stage.Source) and is named by its stagefile.Hash (Stage.Hash), the
// same as the stagefile.File's; a Stage built in code has neither.
func TestStageSourceAndHash(t *testing.T) {
	f, err := stagefile.Embedded("short", ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	st, err := LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(st.Source(), f.Data) || st.Hash() != f.Hash || StageOf(f).Hash() != f.Hash {
		t.Errorf("LoadStage(short): Hash %q, stagefile.File's %q", st.Hash(), f.Hash)
	}
	if (&Stage{}).Hash() != "" || (&Stage{}).Source() != nil {
		t.Error("a Stage built in code has a hash")
	}
}

// A server's catalogue resolves a lobby's stage name to the parsed stage its game plays.
func TestCatalogueStage(t *testing.T) {
	cat, err := stagefile.LoadCatalogue("short", ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := CatalogueStage(cat, ""); err != nil || st != StageOf(cat.ByName("short")) || st == nil {
		t.Errorf(`CatalogueStage("") = %v, %v; want short, the default`, st, err)
	}
	if _, err := CatalogueStage(cat, "nosuch"); err == nil || !strings.Contains(err.Error(), `unknown stage "nosuch"`) {
		t.Errorf("CatalogueStage(unknown) = %v", err)
	}
	other, _ := stagefile.NewCatalogue("x", &stagefile.File{Name: "x", Hash: "0123456789abcdef"})
	if _, err := CatalogueStage(other, "x"); err == nil {
		t.Error("a file another parser checked resolved to a stage")
	}
}
