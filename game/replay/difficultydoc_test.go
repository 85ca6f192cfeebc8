package replay

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/rtype/rtype/game/rules"
)

// docs/REPLAY.md's difficulty byte lists rules.Difficulty's values and names, and a value past
// them is not a replay of this build.
func TestDifficultyByteDoc(t *testing.T) {
	var vals []string
	for d := rules.Difficulty(0); d < rules.NumDifficulties; d++ {
		vals = append(vals, fmt.Sprintf("%d %s", d, d))
	}
	want := fmt.Sprintf("| difficulty | u8 | bits 0–6: `rules.Difficulty`: %s (the lobby's names, docs/PROTOCOL.md §2.4.11; %d to 127 are not a replay of this build: `ErrCorrupt`); bit 7: infinite lives",
		strings.Join(vals, ", "), rules.NumDifficulties)
	doc, err := os.ReadFile("../../docs/REPLAY.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), want) {
		t.Errorf("docs/REPLAY.md lacks the row\n%s", want)
	}
	g := newBotGame(t, "short", 1, 1)
	g.run(10)
	for d := rules.Difficulty(0); d <= rules.NumDifficulties; d++ {
		r := mustDecode(t, g.encode(t))
		r.Difficulty = d
		_, err := Decode(encode(r))
		if ok := d < rules.NumDifficulties; ok != (err == nil) || (!ok && !errors.Is(err, ErrCorrupt)) {
			t.Errorf("difficulty byte %d: %v", d, err)
		}
	}
}
