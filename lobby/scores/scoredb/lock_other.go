//go:build !unix

package scoredb

import "os"

// Without flock (Windows) a temporary file is taken as abandoned once older than orphanAge.
func lockWriting(*os.File) error { return nil }

func abandoned(string) bool { return false }

// renameOpen: Windows renames no open file.
const renameOpen = false
