package server

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/net/testsupport/simgame"
)

// costSample is one second of game time: the server core's time in it, the live entities (mean
// over its ticks), whether the boss fight was on, the datagrams it received and sent.
type costSample struct {
	busy     time.Duration
	entities float64
	boss     bool
	dgrams   uint64
}

// costBuckets are the live-entity ranges of BenchmarkServerCost's table.
var costBuckets = []float64{0, 25, 50, 75, 100, 150}

// BenchmarkServerCost: what one game costs the server as its work grows, for a host to predict
// its capacity. Whole games of stage 1 and stage 2 with 1–4 autopilots (net/simgame: the real
// server core and session clients in virtual time; the autopilots fly the stage to its boss with
// every weapon they pick up: Force, lasers, Bits, missiles), timing only the server core's calls
// (instance.Game Receive and Tick: datagram parsing, inputs, acknowledgements, simulation,
// replication, reliable events; no sockets, no runtime). Each second of game time is a sample;
// the log gives the server's time per game-second by live entities (from a quiet stretch to the
// boss fight), the metrics the whole game's and its busiest 10 s (most live entities). The
// system calls come on top: each of the game's datagrams costs what the raw-UDP floor measures
// (make capacity).
//
//	go test -run '^$' -bench BenchmarkServerCost -benchtime 1x ./net/server
func BenchmarkServerCost(b *testing.B) {
	for _, stageName := range []string{"stage1", "stage2"} {
		stage, err := game.LoadStage(stageName)
		if err != nil {
			b.Fatal(err)
		}
		for players := 1; players <= rules.MaxPlayers; players++ {
			b.Run(fmt.Sprintf("%s/%dp", stageName, players), func(b *testing.B) {
				var all []costSample
				for b.Loop() {
					all = append(all, playCost(b, stage, players, rules.DifficultyNormal)...)
				}
				reportCost(b, all)
			})
		}
		// Hard: more enemies firing more bullets, the busiest games a host sees.
		b.Run(stageName+"/4p-hard", func(b *testing.B) {
			var all []costSample
			for b.Loop() {
				all = append(all, playCost(b, stage, rules.MaxPlayers, rules.DifficultyHard)...)
			}
			reportCost(b, all)
		})
	}
}

// playCost plays one game to its end and returns its seconds.
func playCost(b *testing.B, stage *game.Stage, players int, d rules.Difficulty) []costSample {
	g, err := simgame.New(simgame.Config{Stage: stage, Players: players, Seed: 42, Autopilot: true, Difficulty: d})
	if err != nil {
		b.Fatal(err)
	}
	sim := g.Server.Sim()
	datagrams := func() (n uint64) {
		for _, st := range g.Server.Stats() {
			n += st.DatagramsIn + st.DatagramsOut
		}
		return n
	}
	var out []costSample
	g.RunFor(2 * time.Second) // HERE, WELCOME: the game is under way
	for sec := 0; sec < 15*60 && !g.ServerFinished(); sec++ {
		if over, _ := sim.Over(); over {
			break
		}
		s := costSample{busy: g.ServerBusy, dgrams: datagrams()}
		ents := 0
		for range game.TickRate {
			g.RunFor(game.TickPeriod)
			ents += sim.World().Len()
			s.boss = s.boss || sim.BossFight()
		}
		s.busy, s.dgrams = g.ServerBusy-s.busy, datagrams()-s.dgrams
		s.entities = float64(ents) / game.TickRate
		out = append(out, s)
	}
	return out
}

// reportCost logs the table by live entities and reports the whole game's and the busiest 10 s.
func reportCost(b *testing.B, all []costSample) {
	if len(all) == 0 {
		b.Fatal("no game second")
	}
	// perSec: the mean server time, live entities and datagrams of the seconds ss, and the
	// median server time (a second in which the machine took the core away counts once).
	perSec := func(ss []costSample) (busy, ents, dg, median float64) {
		ts := make([]float64, len(ss))
		for i, s := range ss {
			ts[i] = float64(s.busy.Microseconds())
			busy += ts[i]
			ents += s.entities
			dg += float64(s.dgrams)
		}
		sort.Float64s(ts)
		n := float64(len(ss))
		return busy / n, ents / n, dg / n, ts[len(ts)/2]
	}
	busy, ents, dg, med := perSec(all)
	b.ReportMetric(busy, "µs/game-s")
	b.ReportMetric(med, "median-µs/game-s")
	b.ReportMetric(ents, "entities")
	b.ReportMetric(dg, "datagrams/game-s")
	b.ReportMetric(float64(len(all)), "game-s")
	best, bestEnts := 0, 0.0
	for i := 0; i+10 <= len(all); i++ {
		e := 0.0
		for _, s := range all[i : i+10] {
			e += s.entities
		}
		if e > bestEnts {
			best, bestEnts = i, e
		}
	}
	busiest := all[best:min(best+10, len(all))]
	bb, be, _, bm := perSec(busiest)
	b.ReportMetric(bb, "busiest-µs/game-s")
	b.ReportMetric(bm, "busiest-median-µs/game-s")
	b.ReportMetric(be, "busiest-entities")

	var sb strings.Builder
	fmt.Fprintf(&sb, "%-16s %8s %9s %16s %14s\n", "live entities", "game-s", "mean", "µs/game-s (med)", "datagrams/s")
	for i, lo := range costBuckets {
		hi := 1e9
		if i+1 < len(costBuckets) {
			hi = costBuckets[i+1]
		}
		var in []costSample
		for _, s := range all {
			if s.entities >= lo && s.entities < hi {
				in = append(in, s)
			}
		}
		if len(in) == 0 {
			continue
		}
		name := fmt.Sprintf("%.0f–%.0f", lo, hi)
		if hi == 1e9 {
			name = fmt.Sprintf("%.0f+", lo)
		}
		bu, en, d, m := perSec(in)
		fmt.Fprintf(&sb, "%-16s %8d %9.1f %9.0f (%4.0f) %14.0f\n", name, len(in), en, bu, m, d)
	}
	var boss []costSample
	for _, s := range all {
		if s.boss {
			boss = append(boss, s)
		}
	}
	if len(boss) > 0 {
		bu, en, d, m := perSec(boss)
		fmt.Fprintf(&sb, "%-16s %8d %9.1f %9.0f (%4.0f) %14.0f\n", "boss fight", len(boss), en, bu, m, d)
	}
	// The dearest seconds (p90): what a host must hold at the peaks.
	sorted := append([]costSample(nil), all...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].busy < sorted[j].busy })
	fmt.Fprintf(&sb, "p90 second: %d µs, max %d µs", sorted[len(sorted)*9/10].busy.Microseconds(), sorted[len(sorted)-1].busy.Microseconds())
	b.Log("\n" + sb.String())
}
