//go:build !js

package replayfiles

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rtype/rtype/game/replay"
)

// InBrowser is false: replays are files.
const InBrowser = false

// Dir is where the replays are kept given the settings' replay folder: that folder.
func Dir(settingsDir string) string { return settingsDir }

// Path is the path of the replay name kept in dir.
func Path(dir, name string) string { return filepath.Join(dir, name) }

// List returns the replay files (replay.FileExt) in dir, in no order; a missing dir is none.
func List(dir string) ([]File, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []File
	for _, e := range ents {
		if e.IsDir() || filepath.Ext(e.Name()) != replay.FileExt {
			continue
		}
		if fi, err := e.Info(); err == nil {
			out = append(out, File{filepath.Join(dir, e.Name()), fi.ModTime()})
		}
	}
	return out, nil
}

// Read returns the replay at path; a file larger than replay.MaxBytes is not read.
func Read(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Size() > replay.MaxBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than a replay may hold (%d)", path, fi.Size(), replay.MaxBytes)
	}
	return os.ReadFile(path)
}

// Exists reports whether a replay is kept at path.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Write keeps b as name in dir, atomically (a temporary file renamed), and returns its path.
func Write(dir, name string, b []byte) (string, error) {
	p := Path(dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, ".fetch-*")
	if err != nil {
		return "", err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return p, nil
}

// Download is the browser's (a file the player saves); on the desktop the file is already there.
func Download(path string) error { return errors.New("replays are files on the desktop: " + path) }
