//go:build display && !linux

package client

import "time"

// cpuTime is not measured outside Linux.
func cpuTime() time.Duration { return 0 }
