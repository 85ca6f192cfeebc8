package replay

import (
	"fmt"
	"os"
	"strings"

	"github.com/rtype/rtype/game"
)

// Summary is one line about the replay: stage, players, length, checkpoints, final hash, result.
func (r *Replay) Summary() string {
	end := r.End()
	stage := r.Stage
	if stage == "" {
		stage = "(unnamed stage)"
	}
	if r.StageData != nil {
		stage += " (carried)"
	}
	if r.Mode == ModeArcade {
		names := []string{stage}
		for _, rs := range r.Next {
			n := rs.Name
			if rs.Data != nil {
				n += " (carried)"
			}
			names = append(names, n)
		}
		stage = "arcade run " + strings.Join(names, " → ")
	}
	result := r.Result.String()
	if !r.SimOver {
		result += " (stopped before the game's end)"
	}
	return fmt.Sprintf("stage %s (hash %s), players %d (%s), seed %d, sim version %d, build %q: ticks %d (%.1f s), checkpoints %d, final hash %016x, result %s",
		stage, r.StageHash, r.Players, strings.Join(r.Names, ", "), r.Seed, r.SimVersion, r.Build, end.Tick,
		float64(end.Tick)/game.TickRate, r.Checkpoints(), end.Hash, result)
}

// VerifyFile reads the replay file at path and verifies it (Verify); it returns the replay's
// Summary, and the reason it cannot be read or played or where it diverges.
func VerifyFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	r, err := Read(f)
	if err != nil {
		return "", err
	}
	return r.Summary(), Verify(r)
}
