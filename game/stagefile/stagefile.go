// Package stagefile is the stage files a server offers and a client fetches (docs/PROTOCOL.md
// §2.4.6 to §2.4.8; the format is §10): their names, hashes and limits, the files embedded in
// assets/stages, and the Catalogue a server offers with its arcade run.
//
// It knows a stage file as bytes. What the bytes mean is the simulation's: a File is checked by
// the Parser it is loaded with (game.ParseScript), and keeps what the parser made of it as a
// Script, of which this package only knows what the lobby needs (the practice sections). So the
// lobby serves, resolves and checks stage files without linking the simulation.
package stagefile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rtype/rtype/assets"
)

// Default is the stage a server offers first and new lobbies play when nothing else is said
// (-stage), and the one a game.Config without a Stage plays.
const Default = "stage1"

// HashLen is the length of a stage hash: 16 lowercase hex digits (the first 8 bytes of the
// SHA-256 of the stage file, docs/PROTOCOL.md §2.4.6).
const HashLen = 16

// MaxNameLen bounds a stage name (docs/PROTOCOL.md §2.4.6).
const MaxNameLen = 32

// MaxBytes bounds a stage file in bytes: servers do not offer larger files and clients do not
// decompress more when they fetch one (docs/PROTOCOL.md §2.4.8).
const MaxBytes = 1 << 20

// MaxOffered bounds the stages a server offers, so that the GET_STAGES response (at most
// MaxOffered × (MaxNameLen+1+HashLen+1) bytes) fits in one lobby line.
const MaxOffered = 64

// MaxSections bounds the music sections of a stage (docs/PROTOCOL.md §10), so a practice game
// starts at section 0..MaxSections (SET_SECTION, the SECTION push; game.Config.Section).
const MaxSections = 255

// Hash returns the hash that names a stage file's content on the wire: the lowercase hex of the
// first 8 bytes of SHA-256(data), HashLen characters.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:HashLen/2])
}

// ValidName reports whether s can name a stage: 1..MaxNameLen characters of [A-Za-z0-9_-]
// (docs/PROTOCOL.md §2.4.6).
func ValidName(s string) bool {
	if len(s) < 1 || len(s) > MaxNameLen {
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

// Script is what a Parser made of a stage file: the simulation's stage (a *game.Stage; game.StageOf
// returns it), of which this package and the lobby only ask what they need.
type Script interface {
	// PracticeBoss is the practice section that starts the stage at its boss (its music
	// sections come before: 0..PracticeBoss-1).
	PracticeBoss() int
}

// Parser decodes and checks a stage file's data (file names it in error messages): the format of
// docs/PROTOCOL.md §10, game.ParseScript. A File is only made of data its Parser accepted.
type Parser func(file string, data []byte) (Script, error)

// File is one stage as a server offers it and a client receives it: Name is what players choose
// ("stage1", "short", or the base name of a -stage file without ".json"), Data the exact file
// bytes, Hash their Hash and Script what its Parser made of them. A File is never modified.
type File struct {
	Name   string
	Data   []byte
	Hash   string
	Script Script
}

// New checks data with parse (file is used in error messages) and returns it as the stage name.
func New(name, file string, data []byte, parse Parser) (*File, error) {
	if !ValidName(name) {
		return nil, fmt.Errorf("stagefile: stage name %q: want 1..%d characters of A-Z a-z 0-9 _ -", name, MaxNameLen)
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("stagefile: %s: %d bytes, more than the %d a stage file may have", file, len(data), MaxBytes)
	}
	if parse == nil {
		return nil, errors.New("stagefile: no Parser")
	}
	sc, err := parse(file, data)
	if err != nil {
		return nil, err
	}
	return &File{Name: name, Data: data, Hash: Hash(data), Script: sc}, nil
}

// EmbeddedNames lists the stages embedded in assets/stages (every *.json), sorted by name.
func EmbeddedNames() []string {
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

// Embedded loads the embedded stage name (assets/stages/<name>.json), checked with parse.
func Embedded(name string, parse Parser) (*File, error) {
	if !ValidName(name) {
		return nil, fmt.Errorf("stagefile: unknown stage %q (not in assets/stages)", name)
	}
	p := assets.StagePath(name)
	data, err := fs.ReadFile(assets.Stages, p)
	if err != nil {
		return nil, fmt.Errorf("stagefile: unknown stage %q (not in assets/stages)", name)
	}
	return New(name, p, data, parse)
}

// IsPath reports whether s names a file on disk rather than an embedded stage: it contains a
// path separator or ends in ".json" (the rule of Load and game.LoadStage).
func IsPath(s string) bool {
	return strings.ContainsAny(s, `/\`) || strings.HasSuffix(s, ".json")
}

// Load loads a stage by name (embedded) or path (IsPath), checked with parse; a file is named by
// its base name without ".json" ("levels/cave.json" is "cave").
func Load(nameOrPath string, parse Parser) (*File, error) {
	if !IsPath(nameOrPath) {
		return Embedded(nameOrPath, parse)
	}
	name := strings.TrimSuffix(filepath.Base(nameOrPath), ".json")
	if !ValidName(name) {
		return nil, fmt.Errorf("stagefile: stage file %q: its base name %q must be 1..%d characters of A-Z a-z 0-9 _ - (plus .json)",
			nameOrPath, name, MaxNameLen)
	}
	info, err := os.Stat(nameOrPath)
	if err != nil {
		return nil, fmt.Errorf("stagefile: %w", err)
	}
	if info.Size() > MaxBytes {
		return nil, fmt.Errorf("stagefile: %s: %d bytes, more than the %d a stage file may have", nameOrPath, info.Size(), MaxBytes)
	}
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		return nil, fmt.Errorf("stagefile: %w", err)
	}
	return New(name, nameOrPath, data, parse)
}
