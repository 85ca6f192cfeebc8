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
// cut). A crash at any point leaves either no file of that name or the whole one.
func writeAtomic(dir, name string, data []byte) (err error) {
	f, err := os.CreateTemp(dir, tmpPrefix+name+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return err
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
