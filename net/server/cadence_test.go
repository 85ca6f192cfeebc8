package server

import (
	"fmt"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/linksim"
	"github.com/rtype/rtype/net/testsupport/simgame"
)

// cadenceResult sums the four clients of a virtual game of the short stage.
type cadenceResult struct {
	corrections       uint64
	correctionPx      float64 // mean size
	upDatagramsPerSec float64 // per client
	upBytesPerSec     float64 // per client
	minutes           float64 // game length
}

// playCadence plays the short stage with 4 autopilots over link with clients sending INPUT every
// `every` ticks, in virtual time.
func playCadence(tb testing.TB, link linksim.Config, every int, seed uint64) cadenceResult {
	tb.Helper()
	st, err := game.LoadStage("short")
	if err != nil {
		tb.Fatal(err)
	}
	g, err := simgame.New(simgame.Config{Stage: st, Players: 4, Seed: seed, Autopilot: true, InputEvery: every,
		Link: func(i int) linksim.Config { c := link; c.Seed = seed*10 + uint64(i); return c }})
	if err != nil {
		tb.Fatal(err)
	}
	g.RunUntil(5*time.Minute, g.AllClosed)
	var r cadenceResult
	var px float64
	secs := g.Now.Seconds()
	for _, c := range g.Clients {
		s := c.Stats()
		r.corrections += s.Corrections
		px += s.CorrectionPixels * float64(s.Corrections)
		r.upDatagramsPerSec += float64(s.DatagramsOut) / secs / 4
		r.upBytesPerSec += float64(s.BytesOut) / secs / 4
	}
	if r.corrections > 0 {
		r.correctionPx = px / float64(r.corrections)
	}
	r.minutes = secs / 60
	return r
}

// cadenceLinks are the 150 ms RTT links the upstream cadence is compared on.
var cadenceLinks = []struct {
	name string
	cfg  linksim.Config
}{
	{"150ms", linksim.Config{Latency: 75 * time.Millisecond}},
	{"150ms_jitter10_loss2", linksim.Config{Latency: 75 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}},
	{"150ms_jitter30_loss5", linksim.Config{Latency: 75 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.05}},
}

// BenchmarkUpstreamCadence compares INPUT every tick (60 Hz) with every second tick (30 Hz, two
// ticks per datagram) at 150 ms RTT, in virtual time: prediction corrections per client-minute
// and their mean size, and the upstream datagrams and bytes per client per second (3 seeds per
// case). docs/BENCHMARKS.md "Upstream cadence" has the figures and the decision.
//
//	go test -run '^$' -bench UpstreamCadence -benchtime 1x ./net/server
func BenchmarkUpstreamCadence(b *testing.B) {
	for _, lc := range cadenceLinks {
		for _, every := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/every%d", lc.name, every), func(b *testing.B) {
				var sum cadenceResult
				var px float64
				for range b.N {
					for seed := uint64(1); seed <= 3; seed++ {
						r := playCadence(b, lc.cfg, every, seed)
						sum.corrections += r.corrections
						px += r.correctionPx * float64(r.corrections)
						sum.minutes += r.minutes * 4
						sum.upDatagramsPerSec += r.upDatagramsPerSec / 3 / float64(b.N)
						sum.upBytesPerSec += r.upBytesPerSec / 3 / float64(b.N)
					}
				}
				b.ReportMetric(float64(sum.corrections)/sum.minutes, "corrections/client-min")
				if sum.corrections > 0 {
					b.ReportMetric(px/float64(sum.corrections), "correction-px")
				} else {
					b.ReportMetric(0, "correction-px")
				}
				b.ReportMetric(sum.upDatagramsPerSec, "up-dg/s")
				b.ReportMetric(sum.upBytesPerSec, "up-B/s")
			})
		}
	}
}
