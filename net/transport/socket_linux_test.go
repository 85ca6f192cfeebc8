package transport

import (
	"testing"
	"time"
)

// A socket that is not read while datagrams pour in has its receive buffer fill up: KernelDrops
// counts what the kernel threw away (and 0 before).
func TestKernelDropsCounted(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		r, w := listen(t, addr), listen(t, addr)
		if d, ok := r.KernelDrops(); !ok || d != 0 {
			t.Fatalf("%s: a fresh socket: drops %d, ok %v", addr, d, ok)
		}
		_ = r.c.SetReadBuffer(4096) // the kernel's minimum: a few datagrams
		p := make([]byte, 1000)
		for range 300 {
			if _, err := w.WriteTo(p, r.LocalAddr()); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(2 * time.Second)
		d, ok := r.KernelDrops()
		for ok && d == 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
			d, ok = r.KernelDrops()
		}
		if !ok || d == 0 || d > 300 {
			t.Fatalf("%s: after 300 datagrams into a 4 KB buffer: drops %d, ok %v", addr, d, ok)
		}
	}
}
