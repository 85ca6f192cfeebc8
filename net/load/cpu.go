package load

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// userHZ is the unit of the CPU times in /proc/<pid>/stat (USER_HZ, 100 on Linux).
const userHZ = 100

// cpuSeconds is the user + system CPU time of process pid, read from /proc/<pid>/stat (Linux
// only: an error elsewhere).
func cpuSeconds(pid int) (float64, error) {
	if pid <= 0 {
		return 0, fmt.Errorf("load: no pid")
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// pid (comm) state ppid ... : comm may hold spaces; fields after it count from 3.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("load: unexpected /proc stat")
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("load: unexpected /proc stat")
	}
	ut, err1 := strconv.ParseUint(string(f[11]), 10, 64) // field 14: utime
	st, err2 := strconv.ParseUint(string(f[12]), 10, 64) // field 15: stime
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("load: unexpected /proc stat")
	}
	return float64(ut+st) / userHZ, nil
}
