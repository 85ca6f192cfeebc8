package replay

import (
	"errors"
	"strings"
	"testing"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/stagefile"
)

// An arcade run is recorded as mode 1 with its stages, and plays back through its stage-clear
// tally into the next stage to the recorded hashes; a run stage the build cannot give, or a
// carried one that was damaged, is refused by name.
func TestArcadeReplay(t *testing.T) {
	g := newRunGame(t, []string{"short", "short"}, 2, 5)
	for i := 0; i < 40*game.TickRate && g.sim.RunIndex() == 0; i++ {
		g.tick()
	}
	if g.sim.RunIndex() != 1 {
		t.Fatalf("the run did not reach its second stage by tick %d", g.sim.Tick())
	}
	g.run(5 * game.TickRate)
	r := mustDecode(t, g.encode(t))
	if r.Mode != ModeArcade || r.Stage != "short" || len(r.Next) != 1 || r.Next[0].Name != "short" || r.Next[0].Data != nil {
		t.Fatalf("header: mode %d stage %q next %+v", r.Mode, r.Stage, r.Next)
	}
	if err := Verify(r); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	p, err := NewPlayer(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SeekTo(r.End().Tick); err != nil {
		t.Fatal(err)
	}
	if p.Sim().RunIndex() != 1 || p.Sim().Hash() != r.End().Hash {
		t.Errorf("played back to stage %d, hash %x; want 1, %x", p.Sim().RunIndex(), p.Sim().Hash(), r.End().Hash)
	}

	gone := *r
	gone.Next = []RunStage{{Name: "nosuch", Hash: "0123456789abcdef"}}
	if err := Verify(&gone); !errors.Is(err, ErrStage) || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("Verify(unknown run stage) = %v", err)
	}
	f, _ := stagefile.Embedded("short", game.ParseScript)
	carried := *r
	carried.Next = []RunStage{{Name: "mine", Hash: f.Hash, Data: f.Data}}
	c2 := mustDecode(t, encode(&carried))
	if err := Verify(c2); err != nil {
		t.Errorf("Verify(carried run stage) = %v", err)
	}
	c2.Next[0].Data = append([]byte(nil), c2.Next[0].Data...)
	c2.Next[0].Data[10] ^= 1
	if err := Verify(c2); !errors.Is(err, ErrStage) || !strings.Contains(err.Error(), "mine") {
		t.Errorf("Verify(damaged run stage) = %v", err)
	}
	// A mode-1 header with no later stage is corrupt.
	empty := *r
	empty.Next = nil
	if _, err := Decode(encode(&empty)); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "arcade run of 0") {
		t.Errorf("Decode(arcade run of one stage) = %v", err)
	}
}
