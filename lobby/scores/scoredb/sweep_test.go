//go:build unix

package scoredb

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSweepTemporaryFiles: a temporary replay file that a killed run left is removed by the
// next start at once (it used to wait until it was 10 minutes old, and -keep-bytes did not
// count it), while one that a live writer (another server sharing the directory) still holds
// is left alone.
func TestSweepTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	rd := filepath.Join(dir, "replays")
	if err := os.MkdirAll(rd, 0o750); err != nil {
		t.Fatal(err)
	}
	left := filepath.Join(rd, tmpPrefix+"a-1") // fresh: written a moment ago by a run that died
	if err := os.WriteFile(left, make([]byte, 4096), 0o640); err != nil {
		t.Fatal(err)
	}
	held, err := os.Create(filepath.Join(rd, tmpPrefix+"b-2"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := lockWriting(held); err != nil {
		t.Fatal(err)
	}
	h, _ := openHall(t, Config{Dir: dir, Dialect: SQLite, DSN: filepath.Join(dir, "rtype.db")})
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Fatalf("the dead run's temporary file is still there (%v)", err)
	}
	if _, err := os.Stat(held.Name()); err != nil {
		t.Fatalf("a live writer's temporary file was removed: %v", err)
	}
	if st := h.Stats(); st.ReplayBytes != 0 {
		t.Fatalf("ReplayBytes %d: temporary files are not replays", st.ReplayBytes)
	}
}
