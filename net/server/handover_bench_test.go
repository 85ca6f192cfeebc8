package server

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/rtype/rtype/lobby"
)

// BenchmarkStartLatency measures START's latency as the owner sees it — from sending START to
// the START push — with the games in the lobby's process (all-in-one) and handed over to a host
// on loopback (split: the control channel's round trip), one lobby of one player per
// iteration. It reports p50 and p99 (docs/BENCHMARKS.md).
func BenchmarkStartLatency(b *testing.B) {
	for _, mode := range []string{"all-in-one", "split"} {
		b.Run(mode, func(b *testing.B) {
			cfg := Config{Stage: "short", Logger: quietLog(), MaxLobbies: b.N + 16, MaxLobbiesPerAddr: b.N + 16, MaxConnsPerAddr: b.N + 16, MaxConns: b.N + 16}
			if mode == "split" {
				h := startSplitHost(b, "127.0.0.1", b.N+16)
				cfg.Fleet = FleetConfig{Role: RoleLobby, Secret: testControlSecret, Hosts: []string{h.control}}
			}
			addr, _, stop := startServerTB(b, cfg)
			defer stop()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			lat := make([]time.Duration, 0, b.N)
			var clients []*lobby.Client
			defer func() {
				for _, c := range clients {
					c.Close()
				}
			}()
			warm := func() *lobby.Client {
				c, err := lobby.Dial(ctx, addr)
				if err != nil {
					b.Fatal(err)
				}
				clients = append(clients, c)
				if _, err := c.Authenticate("p"); err != nil {
					b.Fatal(err)
				}
				if _, err := c.Create(""); err != nil {
					b.Fatal(err)
				}
				return c
			}
			if mode == "split" { // the lobby has connected its host
				c := warm()
				for c.Start() != nil {
					time.Sleep(10 * time.Millisecond)
				}
			}
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				c := warm()
				b.StartTimer()
				t0 := time.Now()
				if err := c.Start(); err != nil {
					b.Fatal(err)
				}
				if _, err := c.WaitStart(ctx); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
