package game

import (
	"fmt"
	"sync"

	"github.com/rtype/rtype/game/stagefile"
)

// ParseScript is ParseStage as a stagefile.Parser: what stage files are checked with wherever the
// simulation plays them (the server's catalogue, the stages a client resolves); StageOf returns
// the *Stage it made.
func ParseScript(file string, data []byte) (stagefile.Script, error) {
	st, err := ParseStage(file, data)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// StageOf returns the stage parsed from f (f checked with ParseScript), or nil for a file
// another Parser checked.
func StageOf(f *stagefile.File) *Stage {
	st, _ := f.Script.(*Stage)
	return st
}

// CatalogueStage resolves a stage name of c ("" its default) to its parsed stage: c must have
// been loaded with ParseScript.
func CatalogueStage(c *stagefile.Catalogue, name string) (*Stage, error) {
	f, err := c.Resolve(name)
	if err != nil {
		return nil, err
	}
	st := StageOf(f)
	if st == nil {
		return nil, fmt.Errorf("game: stage %s was not checked with game.ParseScript", f.Name)
	}
	return st, nil
}

// stageTitles caches the embedded stages' titles by name (StageTitle).
var stageTitles sync.Map

// StageTitle is what players read for the stage named name: the title in an embedded stage's
// file ("Stage 1: the Bydo base" for "stage1"), else the name itself (a server's own stage,
// which the client may not have yet); "Arcade" for an arcade run (stagefile.Arcade: a lobby's,
// a game's result, a hall-of-fame board).
func StageTitle(name string) string {
	if name == stagefile.Arcade {
		return "Arcade"
	}
	if t, ok := stageTitles.Load(name); ok {
		return t.(string)
	}
	title := name
	if f, err := stagefile.Embedded(name, ParseScript); err == nil && StageOf(f).Name != "" {
		title = StageOf(f).Name
	}
	stageTitles.Store(name, title)
	return title
}
