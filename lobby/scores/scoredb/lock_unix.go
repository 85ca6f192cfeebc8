//go:build unix

package scoredb

import (
	"os"

	"golang.org/x/sys/unix"
)

// A replay being written holds an exclusive flock on its temporary file until it is renamed
// to its name (the lock follows the file through the rename and goes with the writer's
// descriptor, also when the process dies): a temporary file nobody holds is one a dead run
// left, whatever its age, even in a directory several servers share.

// lockWriting takes f's lock for the writer.
func lockWriting(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) }

// abandoned reports whether no live process holds path's lock (it cannot be opened: false).
func abandoned(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil
}

// renameOpen: the file is renamed before its descriptor closes, so the lock holds until then.
const renameOpen = true
