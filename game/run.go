package game

import (
	"fmt"
	"strings"
)

// ArcadeName is the pseudo-stage a lobby chooses for an arcade run (docs/PROTOCOL.md §2.4.15):
// not a stage file, so a catalogue never offers a stage of that name.
const ArcadeName = "arcade"

// DefaultRun names the stages of the arcade run a server offers unless told otherwise
// (StageCatalogue.SetRun): the three embedded stages, in order.
var DefaultRun = []string{"stage1", "stage2", "stage3"}

// Run returns the catalogue's arcade run: the stages SetRun named or, without SetRun, those of
// DefaultRun the catalogue offers, in order; nil when fewer than two (no arcade mode). Do not
// modify the slice.
func (c *StageCatalogue) Run() []*StageFile { return c.run }

// SetRun makes the arcade run the stages named, in order (2..MaxRunStages of them, each offered
// by the catalogue); an empty list offers no arcade run. Call it before the catalogue is shared.
func (c *StageCatalogue) SetRun(names []string) error {
	if len(names) == 0 {
		c.run = nil
		return nil
	}
	if len(names) < 2 || len(names) > MaxRunStages {
		return fmt.Errorf("game: an arcade run of %d stages (want 2..%d)", len(names), MaxRunStages)
	}
	for _, n := range names {
		if c.byName[n] == nil {
			return fmt.Errorf("game: arcade run: unknown stage %q (offered: %s)", n, strings.Join(c.Names(), ", "))
		}
	}
	c.run = c.runOf(names)
	return nil
}

func (c *StageCatalogue) runOf(names []string) []*StageFile {
	var out []*StageFile
	for _, n := range names {
		if f := c.byName[n]; f != nil {
			out = append(out, f)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// RunStages returns the parsed scripts of files (an arcade run: Config.Run).
func RunStages(files []*StageFile) []*Stage {
	out := make([]*Stage, len(files))
	for i, f := range files {
		out[i] = f.Stage
	}
	return out
}
