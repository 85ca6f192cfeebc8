package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `rtype-server replay verify FILE` says OK with the ticks, checkpoints and final hash of a good
// replay (exit 0), and why for a damaged one (exit 1).
func TestReplayVerify(t *testing.T) {
	bin := binary(t)
	golden := filepath.Join("..", "..", "testdata", "replay", "golden.rtr")
	out, err := exec.Command(bin, "replay", "verify", golden).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "OK ") || !strings.Contains(string(out), "ticks 1500") ||
		!strings.Contains(string(out), "checkpoints 6") || !strings.Contains(string(out), "final hash ") {
		t.Fatalf("replay verify golden: %v: %s", err, out)
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "cut.rtr")
	if err := os.WriteFile(bad, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "replay", "verify", bad)
	out, err = cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "FAIL") || !strings.Contains(string(out), "truncated") {
		t.Fatalf("replay verify of a truncated file: %v: %s", err, out)
	}
	if c := exec.Command(bin, "replay"); c.Run() == nil || c.ProcessState.ExitCode() != 2 {
		t.Error("replay without verify FILE: want exit status 2")
	}
}
