package serverlist

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// floodedServer is a list server with three proven entries and the table filled by a flood of
// fake registrations from many networks (pending until their proof timeout).
func floodedServer(b *testing.B, tc TableConfig) *Server {
	s := NewServer(ServerConfig{Conn: &recordConn{}, Table: tc})
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range 3 {
		src := netip.AddrFrom4([4]byte{198, 51, 100, byte(i + 1)})
		_, out, err := s.t.Register(0, src, testSecret, testEntry(":4242", 4242))
		if err != nil {
			b.Fatal(err)
		}
		tok, _ := ParseToken(out[0].B)
		if !s.t.Echo(0, out[0].To, AppendEcho(nil, testSecret, tok)) {
			b.Fatal("not proven")
		}
	}
	for i := range 100000 {
		src := netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, byte(i >> 16), byte(i >> 8), byte(i), 15: 1})
		s.t.Register(time.Millisecond, src, testSecret, testEntry(":"+strconv.Itoa(1000+i%60000), 4242))
	}
	return s
}

// BenchmarkListRead is one GET /servers (a 200 with the cached body) from one of many
// addresses (no read limit), during a flood: its cost sets what 10 000 reads per second take
// (docs/BENCHMARKS.md "Server list").
func BenchmarkListRead(b *testing.B) {
	s := floodedServer(b, TableConfig{ReadRate: -1}) // every read a 200
	h := s.Handler()
	reqs := make([]*http.Request, 1024)
	for i := range reqs {
		reqs[i] = httptest.NewRequest("GET", PathServers, nil)
		reqs[i].RemoteAddr = netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(i >> 8), byte(i), 1}), 40000).String()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, reqs[i%len(reqs)])
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkListReadOneAddr is a GET /servers from one address past its rate: a 429.
func BenchmarkListReadOneAddr(b *testing.B) {
	s := floodedServer(b, TableConfig{})
	h := s.Handler()
	req := httptest.NewRequest("GET", PathServers, nil)
	req.RemoteAddr = "203.0.113.66:40000"
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
	}
}

// BenchmarkFakeRegistration is one fake registration (POST) from a flooding address: refused
// once its network's slots and rate are spent. It reports the table's records and the heap
// after the flood.
func BenchmarkFakeRegistration(b *testing.B) {
	s := floodedServer(b, TableConfig{})
	h := s.Handler()
	body := `{"name":"fake","addr":":5000","query_port":5000,"version":"x","protocol":4,"players":0,"capacity":4,"lobbies":0,"stages":["stage1"],"password":false,"fleet":false}`
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		req := httptest.NewRequest("POST", PathServers, strings.NewReader(body))
		req.RemoteAddr = "203.0.113.66:40000"
		req.Header.Set("Authorization", "Bearer "+testSecret)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
	}
	b.StopTimer()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	_, pending, recs, _ := s.t.Counts()
	b.ReportMetric(float64(recs), "records")
	b.ReportMetric(float64(pending), "pending")
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MiB")
}

// BenchmarkListReadHTTP is a GET /servers over real HTTP on loopback (keep-alive connections,
// GOMAXPROCS clients), during a flood: the server and its clients share the CPUs.
func BenchmarkListReadHTTP(b *testing.B) {
	s := floodedServer(b, TableConfig{ReadRate: -1})
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	c := hs.Client()
	c.Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r, err := c.Get(hs.URL + PathServers)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, r.Body)
			r.Body.Close()
			if r.StatusCode != http.StatusOK {
				b.Fatal(r.Status)
			}
		}
	})
}
