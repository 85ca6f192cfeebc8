package transport

import (
	"net/netip"
	"testing"
)

// On Linux a batch sent and a batch read allocate nothing (the server's hot path).
func TestMmsgDoesNotAllocate(t *testing.T) {
	a, b := listen(t, "127.0.0.1:0"), listen(t, "127.0.0.1:0")
	w := NewBatchConn(a).NewWriter()
	rb := NewBatchConn(b)
	if _, ok := rb.io.(*mmsgBatch); !ok {
		t.Fatalf("Linux uses %T, want the raw mmsg layer", rb.io)
	}
	payload := make([]byte, 60)
	bufs := make([][]byte, BatchSize)
	for i := range bufs {
		bufs[i] = make([]byte, maxDatagram)
	}
	ns := make([]int, BatchSize)
	from := make([]netip.AddrPort, BatchSize)
	var o Outbox
	allocs := testing.AllocsPerRun(100, func() {
		for range 8 {
			o.Put(payload, b.LocalAddr())
		}
		if sent := w.Flush(&o); sent != 8 {
			t.Fatalf("sent %d", sent)
		}
		for got := 0; got < 8; {
			n, err := rb.io.readBatch(bufs, ns, from)
			if err != nil {
				t.Fatal(err)
			}
			got += n
		}
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per batch sent and read, want 0", allocs)
	}
}

// A socket bound to every interface reads the arrival address of each datagram and replies from
// it, in batches, without allocating either.
func TestMmsgRepliesFromArrivalDoNotAllocate(t *testing.T) {
	srv, cl := listen(t, ":0"), listen(t, "127.0.0.1:0")
	rb := NewBatchConn(srv)
	w := rb.NewWriter()
	to := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.2"), srv.LocalAddr().Port())
	payload := make([]byte, 60)
	bufs := make([][]byte, BatchSize)
	for i := range bufs {
		bufs[i] = make([]byte, maxDatagram)
	}
	ns := make([]int, BatchSize)
	from := make([]netip.AddrPort, BatchSize)
	buf := make([]byte, maxDatagram)
	var o Outbox
	allocs := testing.AllocsPerRun(100, func() {
		for range 4 {
			if _, err := cl.WriteTo(payload, to); err != nil {
				t.Fatal(err)
			}
		}
		for got := 0; got < 4; {
			n, err := rb.io.readBatch(bufs, ns, from)
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				o.Put(bufs[i][:ns[i]], from[i])
			}
			got += n
		}
		if sent := w.Flush(&o); sent != 4 {
			t.Fatalf("sent %d", sent)
		}
		for range 4 {
			if _, src, err := cl.ReadFrom(buf); err != nil || src != to {
				t.Fatalf("reply from %v (%v), want %v", src, err, to)
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per batch read and replied, want 0", allocs)
	}
}
