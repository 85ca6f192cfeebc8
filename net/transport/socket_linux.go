package transport

import (
	"bufio"
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// KernelDrops returns how many datagrams the kernel dropped for this socket before they were
// read (its receive buffer was full): the "drops" column of the socket's line in /proc/net/udp
// or /proc/net/udp6, found by the socket's inode. ok is false where the system does not say.
// For monitoring; it reads a /proc file, so call it at scrape time, not per datagram.
func (s *UDPSocket) KernelDrops() (drops uint64, ok bool) {
	rc, err := s.c.SyscallConn()
	if err != nil {
		return 0, false
	}
	var st unix.Stat_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Fstat(int(fd), &st) }); err != nil || serr != nil {
		return 0, false
	}
	inode := []byte(strconv.FormatUint(st.Ino, 10))
	for _, name := range []string{"/proc/net/udp", "/proc/net/udp6"} {
		if d, found := procUDPDrops(name, inode); found {
			return d, true
		}
	}
	return 0, false
}

// procUDPDrops scans a /proc/net/udp table for the socket with the given inode (column 10) and
// returns its drops (column 13).
func procUDPDrops(name string, inode []byte) (uint64, bool) {
	f, err := os.Open(name)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := bytes.Fields(sc.Bytes())
		if len(fields) < 13 || !bytes.Equal(fields[9], inode) {
			continue
		}
		d, err := strconv.ParseUint(string(fields[12]), 10, 64)
		return d, err == nil
	}
	return 0, false
}
