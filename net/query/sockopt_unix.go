//go:build unix

package query

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// setBroadcast allows the discovery socket to send to broadcast addresses (SO_BROADCAST).
func setBroadcast(_, _ string, rc syscall.RawConn) error {
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_BROADCAST, 1) }); err != nil {
		return err
	}
	return serr
}
