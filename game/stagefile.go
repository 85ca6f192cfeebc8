package game

import (
	"sync"

	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rtype/rtype/assets"
)

// DefaultStage is the stage a server offers first and new lobbies play when nothing else is
// said (-stage), and the one a Config without a Stage plays.
const DefaultStage = "stage1"

// StageHashLen is the length of a stage hash: 16 lowercase hex digits (the first 8 bytes of the
// SHA-256 of the stage file, docs/PROTOCOL.md §2.4.6).
const StageHashLen = 16

// MaxStageNameLen bounds a stage name (docs/PROTOCOL.md §2.4.6).
const MaxStageNameLen = 32

// MaxStageFileBytes bounds a stage file in bytes: servers do not offer larger files and clients
// do not decompress more when they fetch one (docs/PROTOCOL.md §2.4.8).
const MaxStageFileBytes = 1 << 20

// MaxStages bounds the stages a server offers, so that the GET_STAGES response (at most
// MaxStages × (MaxStageNameLen+1+StageHashLen+1) bytes) fits in one lobby line.
const MaxStages = 64

// StageFile is one stage as a server offers it and a client receives it: Name is what players
// choose ("stage1", "short", or the base name of a -stage file without ".json"), Data the exact
// file bytes, Hash their StageHash and Stage the parsed script. A StageFile is never modified.
type StageFile struct {
	Name  string
	Data  []byte
	Hash  string
	Stage *Stage
}

// StageHash returns the hash that names a stage file's content on the wire: the lowercase hex
// of the first 8 bytes of SHA-256(data), 16 characters.
func StageHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:StageHashLen/2])
}

// ValidStageName reports whether s can name a stage: 1..32 characters of [A-Za-z0-9_-]
// (docs/PROTOCOL.md §2.4.6).
func ValidStageName(s string) bool {
	if len(s) < 1 || len(s) > MaxStageNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// NewStageFile parses data (file is used in error messages) and returns it as the stage name.
func NewStageFile(name, file string, data []byte) (*StageFile, error) {
	if !ValidStageName(name) {
		return nil, fmt.Errorf("game: stage name %q: want 1..%d characters of A-Z a-z 0-9 _ -", name, MaxStageNameLen)
	}
	if len(data) > MaxStageFileBytes {
		return nil, fmt.Errorf("game: %s: %d bytes, more than the %d a stage file may have", file, len(data), MaxStageFileBytes)
	}
	st, err := ParseStage(file, data)
	if err != nil {
		return nil, err
	}
	return &StageFile{Name: name, Data: data, Hash: StageHash(data), Stage: st}, nil
}

// EmbeddedStageNames lists the stages embedded in assets/stages (every *.json), sorted by name.
func EmbeddedStageNames() []string {
	ents, err := fs.ReadDir(assets.Stages, "stages")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok && !e.IsDir() {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// EmbeddedStageFile loads the embedded stage name (assets/stages/<name>.json).
func EmbeddedStageFile(name string) (*StageFile, error) {
	if !ValidStageName(name) {
		return nil, fmt.Errorf("game: unknown stage %q (not in assets/stages)", name)
	}
	p := assets.StagePath(name)
	data, err := fs.ReadFile(assets.Stages, p)
	if err != nil {
		return nil, fmt.Errorf("game: unknown stage %q (not in assets/stages)", name)
	}
	return NewStageFile(name, p, data)
}

// IsStagePath reports whether s names a file on disk rather than an embedded stage: it contains
// a path separator or ends in ".json" (the rule of LoadStage).
func IsStagePath(s string) bool {
	return strings.ContainsAny(s, `/\`) || strings.HasSuffix(s, ".json")
}

// LoadStageFile loads a stage by name (embedded) or path (IsStagePath); a file is named by its
// base name without ".json" ("levels/cave.json" is "cave").
func LoadStageFile(nameOrPath string) (*StageFile, error) {
	if !IsStagePath(nameOrPath) {
		return EmbeddedStageFile(nameOrPath)
	}
	name := strings.TrimSuffix(filepath.Base(nameOrPath), ".json")
	if !ValidStageName(name) {
		return nil, fmt.Errorf("game: stage file %q: its base name %q must be 1..%d characters of A-Z a-z 0-9 _ - (plus .json)",
			nameOrPath, name, MaxStageNameLen)
	}
	info, err := os.Stat(nameOrPath)
	if err != nil {
		return nil, fmt.Errorf("game: %w", err)
	}
	if info.Size() > MaxStageFileBytes {
		return nil, fmt.Errorf("game: %s: %d bytes, more than the %d a stage file may have", nameOrPath, info.Size(), MaxStageFileBytes)
	}
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		return nil, fmt.Errorf("game: %w", err)
	}
	return NewStageFile(name, nameOrPath, data)
}

// StageCatalogue is the set of stages a server offers, with its default. It is read-only once
// built and safe for concurrent use.
type StageCatalogue struct {
	files  []*StageFile // the default first, then by name
	byName map[string]*StageFile
	byHash map[string]*StageFile
	run    []*StageFile // the arcade run (run.go)
}

// NewStageCatalogue offers files, whose names must differ, with def (one of the names) as the
// default. At most MaxStages files.
func NewStageCatalogue(def string, files ...*StageFile) (*StageCatalogue, error) {
	if len(files) == 0 || len(files) > MaxStages {
		return nil, fmt.Errorf("game: %d stages offered (want 1..%d)", len(files), MaxStages)
	}
	c := &StageCatalogue{byName: map[string]*StageFile{}, byHash: map[string]*StageFile{}}
	for _, f := range files {
		if f.Name == ArcadeName {
			return nil, fmt.Errorf("game: %q names the arcade run; a stage cannot be called so", ArcadeName)
		}
		if _, dup := c.byName[f.Name]; dup {
			return nil, fmt.Errorf("game: two stages named %q", f.Name)
		}
		c.byName[f.Name] = f
		c.byHash[f.Hash] = f
	}
	d, ok := c.byName[def]
	if !ok {
		return nil, fmt.Errorf("game: default stage %q is not offered", def)
	}
	c.files = append(c.files, d)
	rest := make([]*StageFile, 0, len(files)-1)
	for _, f := range files {
		if f != d {
			rest = append(rest, f)
		}
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i].Name < rest[j].Name })
	c.files = append(c.files, rest...)
	c.run = c.runOf(DefaultRun)
	return c, nil
}

// LoadStageCatalogue builds a server's catalogue from its -stage flag: every embedded stage, plus
// the file at def when def is a path (IsStagePath). def names the default stage; a file whose
// name is also an embedded stage's replaces that stage on this server.
func LoadStageCatalogue(def string) (*StageCatalogue, error) {
	if def == "" {
		def = DefaultStage
	}
	var extra *StageFile
	defName := def
	if IsStagePath(def) {
		f, err := LoadStageFile(def)
		if err != nil {
			return nil, err
		}
		extra, defName = f, f.Name
	}
	var files []*StageFile
	for _, n := range EmbeddedStageNames() {
		if extra != nil && n == extra.Name {
			continue
		}
		f, err := EmbeddedStageFile(n)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if extra != nil {
		files = append(files, extra)
	}
	if extra == nil {
		found := false
		for _, f := range files {
			found = found || f.Name == defName
		}
		if !found {
			return nil, fmt.Errorf("game: unknown stage %q (not in assets/stages: %s)", def, strings.Join(EmbeddedStageNames(), ", "))
		}
	}
	return NewStageCatalogue(defName, files...)
}

// Default returns the default stage.
func (c *StageCatalogue) Default() *StageFile { return c.files[0] }

// Files returns the offered stages, the default first, then by name. Do not modify the slice.
func (c *StageCatalogue) Files() []*StageFile { return c.files }

// Names returns the offered stage names in Files order.
func (c *StageCatalogue) Names() []string {
	out := make([]string, len(c.files))
	for i, f := range c.files {
		out[i] = f.Name
	}
	return out
}

// ByName returns the stage called name, or nil.
func (c *StageCatalogue) ByName(name string) *StageFile { return c.byName[name] }

// ByHash returns the stage whose file has this StageHash, or nil.
func (c *StageCatalogue) ByHash(hash string) *StageFile { return c.byHash[hash] }

// Stage resolves a stage name to its parsed script ("" is the default).
func (c *StageCatalogue) Stage(name string) (*Stage, error) {
	if name == "" {
		return c.Default().Stage, nil
	}
	f := c.byName[name]
	if f == nil {
		return nil, fmt.Errorf("unknown stage %q (offered: %s)", name, strings.Join(c.Names(), ", "))
	}
	return f.Stage, nil
}

// stageTitles caches the embedded stages' titles by name (StageTitle).
var stageTitles sync.Map

// StageTitle is what players read for the stage named name: the title in an embedded stage's
// file ("Stage 1: the Bydo base" for "stage1"), else the name itself (a server's own stage,
// which the client may not have yet).
func StageTitle(name string) string {
	if name == ArcadeName {
		return "Arcade: every stage in one game"
	}
	if t, ok := stageTitles.Load(name); ok {
		return t.(string)
	}
	title := name
	if f, err := EmbeddedStageFile(name); err == nil && f.Stage.Name != "" {
		title = f.Stage.Name
	}
	stageTitles.Store(name, title)
	return title
}
