//go:build display

package client

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system, every thread: Go, ebiten and Mesa's rasterizer
// threads) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
