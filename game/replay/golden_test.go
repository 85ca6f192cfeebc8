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

// docs/REPLAY.md's example is testdata/replay/example.hex, which is testdata/replay/example.rtr,
// which is what this build records for that game, and which verifies.
func TestReplayDocExample(t *testing.T) {
	for _, ex := range []struct {
		name   string // testdata/replay/<name>.rtr, .hex and docs/REPLAY.md's ```hex golden=<name> block
		record func(testing.TB) []byte
	}{{"example", recordExample}, {"example-arcade", recordArcadeExample}} {
		t.Run(ex.name, func(t *testing.T) { checkDocExample(t, ex.name, ex.record(t)) })
	}
}

// recordArcadeExample records docs/REPLAY.md's arcade example: one player, an arcade run of the
// embedded "short" then "stage1", 3 ticks.
func recordArcadeExample(tb testing.TB) []byte {
	g := newRunGame(tb, []string{"short", "stage1"}, 1, 1)
	for _, in := range []game.Buttons{game.BtnRight, game.BtnRight, 0} {
		g.sim.SetInput(0, game.Input{Buttons: in})
		g.sim.Step()
	}
	return g.encode(tb)
}

func checkDocExample(t *testing.T, name string, rec []byte) {
	binPath := filepath.Join(goldenDir, name+".rtr")
	if *update {
		if err := os.WriteFile(binPath, rec, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin, err := os.ReadFile(binPath)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(goldenDir, name+".hex"))
	if err != nil {
		t.Fatal(err)
	}
	if h := parseHex(t, string(text)); !bytes.Equal(h, bin) {
		t.Errorf("%s.hex differs from %s.rtr:\n hex % x\n rtr % x", name, name, h, bin)
	}
	if !bytes.Equal(rec, bin) {
		t.Errorf("this build records the example as\n% x\n%s.rtr is\n% x", rec, name, bin)
	}
	doc, err := os.ReadFile("../../docs/REPLAY.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?ms)^```hex golden=" + regexp.QuoteMeta(name) + "\n(.*?)^```").FindSubmatch(doc)
	if m == nil {
		t.Fatalf("docs/REPLAY.md has no ```hex golden=%s block", name)
	}
	if !bytes.Equal(bytes.TrimSpace(m[1]), bytes.TrimSpace(text)) {
		t.Errorf("docs/REPLAY.md's %s block differs from testdata/replay/%s.hex", name, name)
	}
	if err := Verify(mustDecode(t, bin)); err != nil {
		t.Fatal(err)
	}
}
