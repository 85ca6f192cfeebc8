package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedArtIsGenerated re-runs the generator in memory and compares every output with
// the committed bytes (assets/sprites/* and docs/art/contact-sheet.png): the generator stays the
// source of truth, and a change to it must come with `go generate ./assets/`.
func TestCommittedArtIsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the whole art set (a few seconds)")
	}
	files, sheet := render(true)
	files = append(files, file{"../../docs/art/contact-sheet.png", sheet})
	dir := filepath.Join("..", "..", "sprites")
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (run go generate ./assets/)", path, err)
			continue
		}
		if !bytes.Equal(got, f.data) {
			t.Errorf("%s differs from the generator's output (%d bytes committed, %d generated): run go generate ./assets/", path, len(got), len(f.data))
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, f := range files {
		want[f.name] = true
	}
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("%s is not written by the generator", filepath.Join(dir, e.Name()))
		}
	}
}
