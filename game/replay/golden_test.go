package replay

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"encoding/hex"

	"github.com/rtype/rtype/game"
)

var update = flag.Bool("update", false, "re-record testdata/replay/golden.rtr and example.rtr (after bumping game.SimVersion)")

const (
	goldenDir  = "../../testdata/replay"
	goldenFile = "golden.rtr"
	// goldenTicks is the length of the golden game: 25 s of 4 autopilot players on stage 1.
	goldenTicks = 1500
)

// recordGolden records the golden game: 4 autopilot players on stage1, seed 2026, 25 s.
func recordGolden(tb testing.TB) []byte {
	g := newBotGame(tb, "stage1", 4, 2026)
	g.run(goldenTicks)
	return g.encode(tb)
}

// recordExample records docs/REPLAY.md's example: one player on the short stage for 12 ticks.
func recordExample(tb testing.TB) []byte {
	g := newBotGame(tb, "short", 1, 1)
	for _, in := range []game.Buttons{game.BtnRight | game.BtnFire, 0, 0, game.BtnUp, game.BtnUp, 0, 0, 0, 0, 0, game.BtnUp, game.BtnUp} {
		g.sim.SetInput(0, game.Input{Buttons: in})
		g.sim.Step()
	}
	g.rec.Pause(g.sim.Tick(), 0, true)
	return g.encode(tb)
}

// TestGoldenReplay plays testdata/replay/golden.rtr (a real 4-player game) to its recorded final
// hash, checking every checkpoint on the way; `make test-arm64` runs it on arm64 too, so the
// simulation is pinned bit for bit across architectures. When it fails, the simulation's
// behaviour changed: bump game.SimVersion and re-record (-update), so that replays of the old
// behaviour are refused instead of desyncing.
func TestGoldenReplay(t *testing.T) {
	path := filepath.Join(goldenDir, goldenFile)
	if *update {
		if err := os.WriteFile(path, recordGolden(t), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if r.SimVersion != game.SimVersion {
		t.Fatalf("%s was recorded with simulation version %d; this build's is %d: re-record it (go test ./game/replay -run Golden -update)",
			goldenFile, r.SimVersion, game.SimVersion)
	}
	if r.Players != 4 || r.End().Tick != goldenTicks || r.Checkpoints() != goldenTicks/CheckpointEvery+1 {
		t.Fatalf("%s: %d players, %d ticks, %d checkpoints", goldenFile, r.Players, r.End().Tick, r.Checkpoints())
	}
	if err := Verify(r); err != nil {
		t.Fatalf("%s on %s: %v\nThe simulation's behaviour changed: bump game.SimVersion (game/record.go) and re-record: go test ./game/replay -run Golden -update",
			goldenFile, runtime.GOARCH, err)
	}
	t.Logf("%s/%s: %d ticks, %d checkpoints, final hash %016x, %d bytes", runtime.GOOS, runtime.GOARCH, r.End().Tick, r.Checkpoints(), r.End().Hash, len(b))
}

// parseHex decodes the annotated hex format: byte pairs separated by whitespace, '#' starts a
// comment running to the end of the line.
func parseHex(tb testing.TB, text string) []byte {
	var out []byte
	for _, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, tok := range strings.Fields(line) {
			b, err := hex.DecodeString(tok)
			if err != nil {
				tb.Fatalf("hex token %q: %v", tok, err)
			}
			out = append(out, b...)
		}
	}
	return out
}

var hexBlock = regexp.MustCompile("(?ms)^```hex golden=example\\n(.*?)^```")

// docs/REPLAY.md's example is testdata/replay/example.hex, which is testdata/replay/example.rtr,
// which is what this build records for that game, and which verifies.
func TestReplayDocExample(t *testing.T) {
	rec := recordExample(t)
	binPath := filepath.Join(goldenDir, "example.rtr")
	if *update {
		if err := os.WriteFile(binPath, rec, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin, err := os.ReadFile(binPath)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(goldenDir, "example.hex"))
	if err != nil {
		t.Fatal(err)
	}
	if h := parseHex(t, string(text)); !bytes.Equal(h, bin) {
		t.Errorf("example.hex differs from example.rtr:\n hex % x\n rtr % x", h, bin)
	}
	if !bytes.Equal(rec, bin) {
		t.Errorf("this build records the example as\n% x\nexample.rtr is\n% x", rec, bin)
	}
	doc, err := os.ReadFile("../../docs/REPLAY.md")
	if err != nil {
		t.Fatal(err)
	}
	m := hexBlock.FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/REPLAY.md has no ```hex golden=example block")
	}
	if !bytes.Equal(bytes.TrimSpace(m[1]), bytes.TrimSpace(text)) {
		t.Error("docs/REPLAY.md's example block differs from testdata/replay/example.hex")
	}
	if err := Verify(mustDecode(t, bin)); err != nil {
		t.Fatal(err)
	}
}
