//go:build !js

package replayfiles

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtype/rtype/game/replay"
)

// TestKeepListRead: a replay kept in a folder (created as needed) is listed, read back as
// written and found by Exists; other files are not listed; a missing folder lists nothing.
func TestKeepListRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "replays")
	if got, err := List(dir); err != nil || len(got) != 0 {
		t.Fatalf("missing folder: %v, %v", got, err)
	}
	data := []byte("RTRP replay bytes")
	p, err := Write(dir, "game"+replay.FileExt, data)
	if err != nil {
		t.Fatal(err)
	}
	if p != Path(dir, "game"+replay.FileExt) || !Exists(p) {
		t.Fatalf("kept at %q, Exists %v", p, Exists(p))
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := List(dir)
	if err != nil || len(got) != 1 || got[0].Path != p || got[0].Mod.IsZero() {
		t.Fatalf("List = %v, %v; want the one replay", got, err)
	}
	b, err := Read(p)
	if err != nil || !bytes.Equal(b, data) {
		t.Fatalf("Read = %q, %v", b, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("a temporary file was left behind: %v", ents)
	}
}

// TestReadRefusesOversize: a file larger than a replay may be is refused before it is read.
func TestReadRefusesOversize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big"+replay.FileExt)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(replay.MaxBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := Read(p); err == nil || !strings.Contains(err.Error(), "more than a replay may hold") {
		t.Fatalf("Read of %d bytes: %v", replay.MaxBytes+1, err)
	}
}
