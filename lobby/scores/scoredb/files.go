package scoredb

import (
	"fmt"
	"os"
	"path/filepath"
)

// tmpPrefix starts the names of replay files being written.
const tmpPrefix = ".tmp-"

// writeAtomic writes data to dir/name so that the name never holds a part of it: a temporary
// file in dir, written and synced, renamed to name, then dir synced (the rename survives a power
// cut). A crash at any point leaves either no file of that name or the whole one. The
// temporary file is locked while it is written (lock_unix.go): the next start's sweep removes
// it as soon as no live process holds it.
func writeAtomic(dir, name string, data []byte) (err error) {
	f, err := os.CreateTemp(dir, tmpPrefix+name+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	closed := false
	defer func() {
		if !closed {
			f.Close()
		}
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if err = lockWriting(f); err != nil {
		return fmt.Errorf("lock %s: %w", tmp, err)
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if !renameOpen {
		closed = true
		if err = f.Close(); err != nil {
			return err
		}
	}
	if err = os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return err
	}
	if !closed {
		closed = true
		if err = f.Close(); err != nil {
			return err
		}
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err = d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
