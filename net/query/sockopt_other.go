//go:build !unix

package query

import "syscall"

// setBroadcast: elsewhere the probes go to the loopback address and the broadcasts the system
// allows without SO_BROADCAST.
func setBroadcast(_, _ string, _ syscall.RawConn) error { return nil }
