//go:build !linux

package transport

// KernelDrops reports nothing where there is no /proc/net/udp (ok false).
func (s *UDPSocket) KernelDrops() (drops uint64, ok bool) { return 0, false }
