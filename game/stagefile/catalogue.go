package stagefile

import (
	"fmt"
	"sort"
	"strings"
)

// Arcade is the pseudo-stage a lobby chooses for an arcade run (docs/PROTOCOL.md §2.4.15): not a
// stage file, so a catalogue never offers a stage of that name.
const Arcade = "arcade"

// MaxRun bounds the stages of an arcade run (the RUN push, a replay's run, game.Config.Run).
const MaxRun = 16

// DefaultRun names the stages of the arcade run a server offers unless told otherwise
// (Catalogue.SetRun): the three embedded stages, in order.
var DefaultRun = []string{"stage1", "stage2", "stage3"}

// Catalogue is the set of stages a server offers, with its default and its arcade run. It is
// read-only once built (after SetRun) and safe for concurrent use.
type Catalogue struct {
	files  []*File // the default first, then by name
	byName map[string]*File
	byHash map[string]*File
	run    []*File
}

// NewCatalogue offers files, whose names must differ, with def (one of the names) as the
// default. At most MaxOffered files. Its arcade run is DefaultRun's stages it offers.
func NewCatalogue(def string, files ...*File) (*Catalogue, error) {
	if len(files) == 0 || len(files) > MaxOffered {
		return nil, fmt.Errorf("stagefile: %d stages offered (want 1..%d)", len(files), MaxOffered)
	}
	c := &Catalogue{byName: map[string]*File{}, byHash: map[string]*File{}}
	for _, f := range files {
		if f.Name == Arcade {
			return nil, fmt.Errorf("stagefile: %q names the arcade run; a stage cannot be called so", Arcade)
		}
		if _, dup := c.byName[f.Name]; dup {
			return nil, fmt.Errorf("stagefile: two stages named %q", f.Name)
		}
		c.byName[f.Name] = f
		c.byHash[f.Hash] = f
	}
	d, ok := c.byName[def]
	if !ok {
		return nil, fmt.Errorf("stagefile: default stage %q is not offered", def)
	}
	c.files = append(c.files, d)
	rest := make([]*File, 0, len(files)-1)
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

// LoadCatalogue builds a server's catalogue from its -stage flag, every file checked with parse:
// every embedded stage, plus the file at def when def is a path (IsPath). def names the default
// stage ("": Default); a file whose name is also an embedded stage's replaces that stage on this
// server. A comma-separated list (embedded names and paths, "stage1,short,levels/cave.json")
// offers exactly those stages, the first the default.
func LoadCatalogue(def string, parse Parser) (*Catalogue, error) {
	if def == "" {
		def = Default
	}
	if strings.Contains(def, ",") {
		var files []*File
		for _, s := range strings.Split(def, ",") {
			f, err := Load(strings.TrimSpace(s), parse)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
		return NewCatalogue(files[0].Name, files...)
	}
	var extra *File
	defName := def
	if IsPath(def) {
		f, err := Load(def, parse)
		if err != nil {
			return nil, err
		}
		extra, defName = f, f.Name
	}
	var files []*File
	for _, n := range EmbeddedNames() {
		if extra != nil && n == extra.Name {
			continue
		}
		f, err := Embedded(n, parse)
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
			return nil, fmt.Errorf("stagefile: unknown stage %q (not in assets/stages: %s)", def, strings.Join(EmbeddedNames(), ", "))
		}
	}
	return NewCatalogue(defName, files...)
}

// Default returns the default stage.
func (c *Catalogue) Default() *File { return c.files[0] }

// Files returns the offered stages, the default first, then by name. Do not modify the slice.
func (c *Catalogue) Files() []*File { return c.files }

// Names returns the offered stage names in Files order.
func (c *Catalogue) Names() []string {
	out := make([]string, len(c.files))
	for i, f := range c.files {
		out[i] = f.Name
	}
	return out
}

// ByName returns the stage called name, or nil.
func (c *Catalogue) ByName(name string) *File { return c.byName[name] }

// ByHash returns the stage whose file has this Hash, or nil.
func (c *Catalogue) ByHash(hash string) *File { return c.byHash[hash] }

// Resolve returns the stage called name ("" is the default), or an error that lists the
// offered stages.
func (c *Catalogue) Resolve(name string) (*File, error) {
	if name == "" {
		return c.Default(), nil
	}
	f := c.byName[name]
	if f == nil {
		return nil, fmt.Errorf("unknown stage %q (offered: %s)", name, strings.Join(c.Names(), ", "))
	}
	return f, nil
}

// Run returns the catalogue's arcade run: the stages SetRun named or, without SetRun, those of
// DefaultRun the catalogue offers, in order; nil when fewer than two (no arcade mode). Do not
// modify the slice.
func (c *Catalogue) Run() []*File { return c.run }

// SetRun makes the arcade run the stages named, in order (2..MaxRun of them, each offered by the
// catalogue); an empty list offers no arcade run. Call it before the catalogue is shared.
func (c *Catalogue) SetRun(names []string) error {
	if len(names) == 0 {
		c.run = nil
		return nil
	}
	if len(names) < 2 || len(names) > MaxRun {
		return fmt.Errorf("stagefile: an arcade run of %d stages (want 2..%d)", len(names), MaxRun)
	}
	for _, n := range names {
		if c.byName[n] == nil {
			return fmt.Errorf("stagefile: arcade run: unknown stage %q (offered: %s)", n, strings.Join(c.Names(), ", "))
		}
	}
	c.run = c.runOf(names)
	return nil
}

func (c *Catalogue) runOf(names []string) []*File {
	var out []*File
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
