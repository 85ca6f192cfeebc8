package server

import (
	"os"
	"strconv"
	"testing"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/wire"
)

// streamCategory names what a STATE record is about, for BenchmarkReplicationBreakdown.
func streamCategory(k game.EntityKind) string {
	switch k {
	case game.KindPlayer:
		return "ships"
	case game.KindForce:
		return "forces"
	case game.KindPlayerBullet, game.KindBeam:
		return "player-shots"
	case game.KindEnemyBullet:
		return "enemy-shots"
	case game.KindEnemy, game.KindPowerUp:
		return "enemies"
	case game.KindBoss, game.KindBossWeakPoint, game.KindBossPart:
		return "boss"
	case game.KindBit:
		return "bits"
	}
	return "other"
}

// BenchmarkReplicationBreakdown: one 4-player game of stage 1 through the offline instance (as
// BenchmarkReplicationOffline), splitting what client 0 receives by what it is about — STATE
// records per kind of entity, "deletions" (the reliable DEL_ENTS and DEL_COMP with their REL),
// "headers" (datagram headers and the STATE command's frame) — over two 10 s windows: the one
// with the most live entities ("busiest", the figure of BenchmarkReplicationOffline) and the
// one with the most bytes ("max"). Metrics are B/s.
//
//	go test -run '^$' -bench BenchmarkReplicationBreakdown -benchtime 1x ./net/server
//
// RTYPE_BREAKDOWN_STAGE names another stage (default stage1), RTYPE_BREAKDOWN_SEED another seed
// (default 42).
func BenchmarkReplicationBreakdown(b *testing.B) {
	const players, window = 4, 10 * game.TickRate
	name := os.Getenv("RTYPE_BREAKDOWN_STAGE")
	if name == "" {
		name = "stage1"
	}
	seed := uint64(42)
	if s := os.Getenv("RTYPE_BREAKDOWN_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			b.Fatal(err)
		}
	}
	stage, err := game.LoadStage(name)
	if err != nil {
		b.Fatal(err)
	}
	inputs := recordInputs(b, stage, seed, players)
	from, _ := busiestWindow(stage, seed, players, inputs, window)
	for b.Loop() {
		o := newOfflineInstance(stage, seed, players, true)
		kinds := map[uint64]string{} // entity → category, learnt when first seen
		perTick := make([]map[string]int, len(inputs))
		cur := 0
		add := func(cat string, n int) {
			if perTick[cur] == nil {
				perTick[cur] = map[string]int{}
			}
			perTick[cur][cat] += n
		}
		o.onDatagram = func(c int, d []byte) {
			if c != 0 {
				return
			}
			add("headers", wire.HeaderSize)
			for d = d[wire.HeaderSize:]; len(d) > 0; {
				var st wire.State
				n, err := st.Parse(d)
				if err != nil {
					b.Fatal(err)
				}
				add("headers", wire.StateOverhead) // the STATE's frame, with the datagram's header
				for it := st.Records(); ; {
					rec, ok := it.Next()
					if !ok {
						break
					}
					cat, ok := kinds[rec.Entity]
					if !ok {
						cat = "other"
						if k := o.sim.Components().Kind.Get(ecs.Entity(rec.Entity)); k != nil {
							cat = streamCategory(k.Kind)
						}
						kinds[rec.Entity] = cat
					}
					add(cat, wire.RecordSize(rec.Entity, rec.Mask))
				}
				d = d[n:]
			}
		}
		o.onReliable = func(c int, n int) {
			if c == 0 {
				add("deletions", n)
			}
		}
		for t := range inputs {
			cur = t
			o.step(&inputs[t])
		}
		sum := func(at int) (map[string]int, int) {
			m, total := map[string]int{}, 0
			for t := at; t < at+window && t < len(perTick); t++ {
				for k, v := range perTick[t] {
					m[k] += v
					total += v
				}
			}
			return m, total
		}
		maxAt, maxTotal, run := 0, 0, 0
		for t := range perTick {
			for _, v := range perTick[t] {
				run += v
			}
			if t >= window {
				for _, v := range perTick[t-window] {
					run -= v
				}
			}
			if t >= window-1 && run > maxTotal {
				maxAt, maxTotal = t-window+1, run
			}
		}
		busy, busyTotal := sum(from)
		top, _ := sum(maxAt)
		const secs = window / game.TickRate
		b.ReportMetric(float64(busyTotal)/secs, "busiest-B/s")
		b.ReportMetric(float64(maxTotal)/secs, "max-B/s")
		for _, cat := range []string{"ships", "forces", "bits", "player-shots", "enemy-shots", "enemies", "boss", "deletions", "headers", "other"} {
			b.ReportMetric(float64(busy[cat])/secs, "busiest-"+cat+"-B/s")
			b.ReportMetric(float64(top[cat])/secs, "max-"+cat+"-B/s")
		}
		b.ReportMetric(float64(from)/game.TickRate, "busiest-at-s")
		b.ReportMetric(float64(maxAt)/game.TickRate, "max-at-s")
	}
}
