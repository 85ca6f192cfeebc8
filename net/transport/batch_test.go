package transport

import (
	"encoding/binary"
	"net/netip"
	"testing"
	"time"
)

// A BatchWriter sends a whole Outbox (more than one batch) and a BatchConn's ReadLoop reads every
// datagram with its source, in order, over loopback.
func TestBatchRoundTrip(t *testing.T) {
	a, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	const n = 3*BatchSize + 5
	var o Outbox
	for k := range n {
		p := make([]byte, 8+k%40)
		binary.LittleEndian.PutUint32(p, uint32(k))
		o.Put(p, b.LocalAddr())
	}
	if sent := NewBatchConn(a).NewWriter().Flush(&o); sent != n || o.Len() != 0 {
		t.Fatalf("sent %d of %d, outbox left %d", sent, n, o.Len())
	}
	quit := make(chan struct{})
	var got []uint32
	done := make(chan struct{})
	go func() {
		defer close(done)
		NewBatchConn(b).ReadLoop(quit, func(p []byte, from netip.AddrPort) {
			if from != a.LocalAddr() {
				t.Errorf("from %v, want %v", from, a.LocalAddr())
			}
			k := binary.LittleEndian.Uint32(p)
			if len(p) != 8+int(k)%40 {
				t.Errorf("datagram %d: %d bytes", k, len(p))
			}
			got = append(got, k)
			if len(got) == n {
				close(quit)
			}
		})
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		b.Close()
		<-done
		t.Fatalf("read %d of %d datagrams", len(got), n)
	}
	b.Close()
	for i, k := range got {
		if k != uint32(i) {
			t.Fatalf("datagram %d is #%d (out of order)", i, k)
		}
	}
}
