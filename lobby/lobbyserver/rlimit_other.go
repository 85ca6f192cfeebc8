//go:build !unix

package lobbyserver

// fileLimit is unknown on this system.
func fileLimit() (uint64, bool) { return 0, false }
