//go:build !js

package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Load reads the settings file for a config-dir override ("" = os.UserConfigDir()).
// It always returns usable settings. A missing file is not an error. A file that cannot be read
// or parsed yields Default() and an error naming the file and the reason; a parsable file with
// bad values yields the repaired settings and an error listing the repairs.
func Load(override string) (Settings, error) {
	p, err := Path(override)
	if err != nil {
		return Default(), err
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return Default(), fmt.Errorf("settings %s unreadable (%v): using defaults", p, err)
	}
	st, err := Parse(p, data)
	if errors.Is(err, ErrCorrupt) {
		// The next Save would overwrite it with the defaults: keep the player's file for a look.
		bad := p + BadSuffix
		if rerr := os.Rename(p, bad); rerr == nil {
			err = fmt.Errorf("%w; the file is kept as %s", err, bad)
		}
	}
	return st, err
}

// Save writes the settings atomically (temp file + rename), creating the directory.
func (s Settings) Save(override string) error {
	p, err := Path(override)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), FileName+".*.tmp")
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	_, werr := tmp.Write(append(data, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("settings: writing %s: %v", p, errors.Join(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("settings: %w", err)
	}
	return nil
}
