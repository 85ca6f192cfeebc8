//go:build !unix

package lobby

// fileLimit is unknown on this system.
func fileLimit() (uint64, bool) { return 0, false }
