package transport

import (
	"net/netip"
	"testing"
)

// BenchmarkBatchEcho measures a server's batched read of 8 datagrams and its batched replies,
// on a socket bound to one address (no control messages) and on one bound to every interface
// (each datagram's arrival address read, noted, looked up and sent as a control message): the
// cost of replying from the arrival address (docs/BENCHMARKS.md, "Server capacity and CPU").
func BenchmarkBatchEcho(b *testing.B) {
	for _, c := range []struct{ name, bind string }{{"bound", "127.0.0.1:0"}, {"all-interfaces", "0.0.0.0:0"}} {
		b.Run(c.name, func(b *testing.B) {
			srv, err := ListenUDP(c.bind)
			if err != nil {
				b.Skip(err)
			}
			defer srv.Close()
			cl, err := ListenUDP("127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			defer cl.Close()
			to := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), srv.LocalAddr().Port())
			rb := NewBatchConn(srv)
			w := rb.NewWriter()
			cw := NewBatchConn(cl).NewWriter()
			cr := NewBatchConn(cl)
			bufs := make([][]byte, BatchSize)
			for i := range bufs {
				bufs[i] = make([]byte, maxDatagram)
			}
			ns := make([]int, BatchSize)
			from := make([]netip.AddrPort, BatchSize)
			payload := make([]byte, 60)
			var o, co Outbox
			const k = 8
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				for range k {
					co.Put(payload, to)
				}
				cw.Flush(&co)
				for got := 0; got < k; {
					n, err := rb.io.readBatch(bufs, ns, from)
					if err != nil {
						b.Fatal(err)
					}
					for i := range n {
						o.Put(bufs[i][:ns[i]], from[i])
					}
					got += n
				}
				w.Flush(&o)
				for got := 0; got < k; {
					n, err := cr.io.readBatch(bufs, ns, from)
					if err != nil {
						b.Fatal(err)
					}
					got += n
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*k), "ns/datagram")
		})
	}
}

// BenchmarkLocalTable is the table's share of that cost: one note (the read) and one lookup (the
// reply) per datagram, over 1000 peers.
func BenchmarkLocalTable(b *testing.B) {
	tab := newLocalTable()
	a := netip.MustParseAddr("127.0.0.2")
	peers := make([]netip.AddrPort, 1000)
	for i := range peers {
		peers[i] = netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}), 5000)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		p := peers[i%len(peers)]
		tab.note(p, a)
		if _, ok := tab.lookup(p); !ok {
			b.Fatal("lost")
		}
	}
}
