package buildinfo

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A binary built with the version stamped the way `make build` and `make dist` do it
// (-ldflags -X) prints that version with -version, and exits 0.
func TestVersionStampedAndPrinted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "rtype-bot")
	const v = "v9.8.7-test-g1234567"
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X github.com/rtype/rtype/game/buildinfo.Version="+v, "-o", bin, "../../cmd/rtype-bot")
	build.Env = append(build.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-version").CombinedOutput()
	if err != nil {
		t.Fatalf("-version: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); !strings.HasPrefix(got, "rtype-bot "+v+" (go") {
		t.Fatalf("-version printed %q, want rtype-bot %s (go...)", got, v)
	}
}
