package server

// Server benchmarks (docs/BENCHMARKS.md "## Server").
//
//	go test -run '^$' -bench 'BenchmarkServerBandwidth' -benchtime 1x ./net/server
//	go test -run '^$' -bench 'BenchmarkInstanceTick|BenchmarkReplicationOffline' ./net/server

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/load"
	"github.com/rtype/rtype/net/replication"
	"github.com/rtype/rtype/net/schema"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/wire"
)

// fullStateBytes is what one snapshot would cost if it carried every entity's whole replicated
// state: Σ over entities of (ENTITY overhead 12 + Σ over its replicated components (10 + size)).
// Datagram headers are not counted (that favours the full-state figure).
func fullStateBytes(w *ecs.World) (bytes, entities int) {
	stores := w.Stores()
	w.Each(func(e ecs.Entity) {
		n := 0
		for _, st := range stores {
			if st.Flags()&ecs.Replicated != 0 && st.Has(e) {
				n += wire.ComponentOverhead + st.Size()
			}
		}
		if n > 0 {
			bytes += wire.EntityOverhead + n
			entities++
		}
	})
	return bytes, entities
}

// BenchmarkServerBandwidth: 4 bots play the short stage over loopback in real time (one game per
// iteration: use -benchtime 1x). Reported: the bytes per second the server sent each client
// (Instance.Stats BytesOut / game seconds), the same for every snapshot carrying the full
// replicated state of every entity at 30 Hz (sampled from the server world every 50 ms), their
// ratio, and datagrams per client per second.
func BenchmarkServerBandwidth(b *testing.B) {
	var sumBPS, sumFull, sumDG, sumEnt float64
	for i := 0; i < b.N; i++ {
		ended := make(chan *instance.Instance, 1)
		addr, mgr, stop := startServerTB(b, Config{Stage: "short", Logger: slog.New(slog.DiscardHandler),
			OnGameEnd: func(in *instance.Instance) { ended <- in }})
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		var once sync.Once
		inGame := make(chan struct{})
		var samples, fullSum, entSum float64
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			select {
			case <-inGame:
			case <-ctx.Done():
				return
			}
			ins := mgr.Instances()
			if len(ins) != 1 {
				return
			}
			tk := time.NewTicker(50 * time.Millisecond)
			defer tk.Stop()
			for {
				over := false
				ins[0].View(func(sim *game.Sim) {
					over, _ = sim.Over()
					if !over {
						n, e := fullStateBytes(sim.World())
						fullSum += float64(n)
						entSum += float64(e)
						samples++
					}
				})
				if over {
					return
				}
				select {
				case <-tk.C:
				case <-ctx.Done():
					return
				}
			}
		}()
		res, err := bot.Run(ctx, bot.Config{Server: addr, Players: 4, Logger: slog.New(slog.DiscardHandler),
			OnSession: func(int, *session.Session) { once.Do(func() { close(inGame) }) }}, nil)
		if err != nil {
			b.Fatalf("bots: %v %+v", err, res)
		}
		in := <-ended
		<-sampled
		cancel()
		stop()
		var ticks ecs.Tick
		in.View(func(sim *game.Sim) { ticks = sim.Tick() })
		secs := float64(ticks) / game.TickRate
		st := in.Stats()
		var out, dg float64
		for _, p := range st {
			out += float64(p.BytesOut)
			dg += float64(p.DatagramsOut)
		}
		sumBPS += out / float64(len(st)) / secs
		sumDG += dg / float64(len(st)) / secs
		if samples > 0 {
			sumFull += fullSum / samples * game.TickRate / instance.SnapshotEvery
			sumEnt += entSum / samples
		}
	}
	n := float64(b.N)
	b.ReportMetric(sumBPS/n, "B/client/s")
	b.ReportMetric(sumFull/n, "full-B/client/s")
	b.ReportMetric(sumBPS/sumFull, "sent/full")
	b.ReportMetric(sumDG/n, "dgram/client/s")
	b.ReportMetric(sumEnt/n, "entities")
}

// ---- offline instance: the work of net/instance per tick, without sockets ----

// recordInputs plays a stage with the autopilot on the server world and records every slot's
// buttons per tick, so the benchmarks replay the same game (the simulation is deterministic)
// without paying for the autopilot, which runs on the clients.
func recordInputs(tb testing.TB, stage *game.Stage, seed uint64, players int) [][rules.MaxPlayers]game.Buttons {
	tb.Helper()
	sim := game.NewSim(game.Config{Seed: seed, Players: players, Stage: stage})
	var out [][rules.MaxPlayers]game.Buttons
	for over := false; !over && len(out) < 60*game.TickRate*10; over, _ = sim.Over() {
		var in [rules.MaxPlayers]game.Buttons
		for slot := 0; slot < players; slot++ {
			if e := sim.PlayerEntity(slot); e != ecs.Nil {
				in[slot] = game.Autopilot(sim.World(), sim.Components(), &sim.Stage().Terrain, e, sim.Tick()).Buttons
				sim.SetInput(slot, game.Input{Buttons: in[slot]})
			}
		}
		out = append(out, in)
		sim.Step()
		sim.World().ClearEvents()
	}
	return out
}

// ackDelay is the simulated round trip: a snapshot is acknowledged 6 ticks (100 ms) after it is
// sent, as over a 100 ms link without loss.
const ackDelay = 6

type sentRec struct {
	seq  uint16
	tick ecs.Tick
}

// offlineInstance does what net/instance does each tick for its clients, minus the sockets
// and the reliable channel: inputs → Sim.Step → Tracker.Observe (+ the DEL_ENTS/DEL_COMP
// decisions, deletions batched as instance.DelBatch does) → every SnapshotEvery ticks one header
// + AppendSnapshot per datagram (up to MaxDatagramsPerSnapshot) per client → Acked ackDelay
// ticks later.
type offlineInstance struct {
	sim     *game.Sim
	tr      *replication.Tracker
	ws      []*replication.Writer
	seq     []uint16
	ring    [][64]sentRec
	head    []int
	tail    []int
	buf     [wire.MaxDatagram]byte
	bytes   uint64 // every client's snapshot datagrams + DEL_ENTS/DEL_COMP (with REL)
	dgrams  uint64
	ticks   uint64
	clients int
	snaps   uint64              // snapshots (per client)
	capped  uint64              // snapshots cut at MaxDatagramsPerSnapshot with entities left out
	simOnly bool                // no replication (to split the tick cost)
	dels    []instance.DelBatch // per client
	// onDatagram, when set, sees client c's snapshot datagrams (header included), onReliable
	// the size of each reliable DEL_ENTS or DEL_COMP with its REL.
	onDatagram func(c int, b []byte)
	onReliable func(c int, n int)
}

func newOfflineInstance(stage *game.Stage, seed uint64, players int, dr bool) *offlineInstance {
	o := &offlineInstance{clients: players}
	o.sim = game.NewSim(game.Config{Seed: seed, Players: players, Stage: stage})
	o.tr = replication.NewTracker(o.sim.World())
	if dr {
		o.tr = schema.NewTracker(o.sim) // as the server replicates
	}
	o.sim.World().ClearEvents()
	for range players {
		wr := replication.NewWriter(o.tr)
		wr.ResendTicks = ackDelay + 4 // as net/instance: RTT in ticks + 4
		o.ws = append(o.ws, wr)
	}
	o.seq = make([]uint16, players)
	o.ring = make([][64]sentRec, players)
	o.head = make([]int, players)
	o.tail = make([]int, players)
	o.dels = make([]instance.DelBatch, players)
	return o
}

// reliable counts a reliable command of n bytes (and its REL) sent to client c.
func (o *offlineInstance) reliable(c, n int) {
	n += wire.Rel{}.Length()
	o.bytes += uint64(n)
	if o.onReliable != nil {
		o.onReliable(c, n)
	}
}

func (o *offlineInstance) step(in *[rules.MaxPlayers]game.Buttons) {
	for slot := 0; slot < o.clients; slot++ {
		o.sim.SetInput(slot, game.Input{Buttons: in[slot]})
	}
	o.sim.Step()
	w := o.sim.World()
	if o.simOnly {
		w.ClearEvents()
		o.ticks++
		return
	}
	evs := w.Events()
	o.tr.Observe(evs)
	for i := range evs {
		switch e := evs[i].Entity; evs[i].Kind {
		case ecs.EventDestroyed:
			for c, wr := range o.ws {
				if wr.Destroyed(e) {
					if d := &o.dels[c]; d.Full(uint64(e)) {
						o.reliable(c, len(d.Cmd()))
						d.Reset()
					}
					o.dels[c].Add(uint64(e))
				}
			}
		case ecs.EventRemoved:
			for c, wr := range o.ws {
				if wr.Removed(e, evs[i].Component) {
					if d := &o.dels[c]; d.Cmd() != nil {
						o.reliable(c, len(d.Cmd()))
						d.Reset()
					}
					o.reliable(c, wire.DelComp{}.Length())
				}
			}
		}
	}
	for c := range o.dels {
		if d := &o.dels[c]; d.Cmd() != nil {
			o.reliable(c, len(d.Cmd()))
			d.Reset()
		}
	}
	w.ClearEvents()
	now := o.sim.Tick()
	for c, wr := range o.ws {
		for o.head[c] != o.tail[c] && now-o.ring[c][o.head[c]].tick >= ackDelay {
			wr.Acked(o.ring[c][o.head[c]].seq)
			o.head[c] = (o.head[c] + 1) % 64
		}
		if now%instance.SnapshotEvery != 0 {
			continue
		}
		for d := 0; d < instance.MaxDatagramsPerSnapshot; d++ {
			o.seq[c]++
			h := wire.Header{Token: 1, Tick: uint32(now), Seq: o.seq[c]}
			b := h.Append(o.buf[:0])
			var more bool
			b, more = wr.AppendSnapshot(b, wire.MaxDatagram, o.seq[c])
			o.bytes += uint64(len(b))
			if o.onDatagram != nil {
				o.onDatagram(c, b)
			}
			o.dgrams++
			o.ring[c][o.tail[c]] = sentRec{seq: o.seq[c], tick: now}
			o.tail[c] = (o.tail[c] + 1) % 64
			if !more {
				break
			}
			if d == instance.MaxDatagramsPerSnapshot-1 {
				o.capped++
			}
		}
		o.snaps++
	}
	o.ticks++
}

// BenchmarkInstanceTick: one server tick of a 4-player game — Sim.Step plus replication to 4
// clients (Tracker.Observe, 4 Writers: AppendSnapshot every other tick, Acked 100 ms later; dead
// reckoning on when replication.Tracker has it, as net/instance turns it on) —
// replaying autopilot inputs recorded beforehand. The game restarts (untimed) when it ends.
// "short" and "stage1" average over the whole stage; "stage1-busiest" times only the 10 s of
// stage1 with the most live entities (the prefix is replayed untimed); "stage1-load" the ticks
// `make capacity`'s load run measures (its default WARMUP and WINDOW: game seconds 3 to 13) with
// the inputs its clients send (load.Script instead of the autopilot): the game's own compute in
// its ratio; "-100games" and "-300games" step that many such games in turn, one tick each, as a
// server of 100 or 300 games does (each game's state no longer in the cache when its tick comes); "-sim-only" is Sim.Step alone, without replication. The
// inputs are recorded inside each sub-benchmark, so that -bench selecting one records only its
// stage.
func BenchmarkInstanceTick(b *testing.B) {
	const players, seed = 4, 42
	const dr = true // replicate as net/instance does
	for _, name := range []string{"short", "stage1", "stage1-busiest", "stage1-busiest-sim-only", "stage1-load", "stage1-load-100games", "stage1-load-300games", "stage2", "stage2-busiest", "stage2-busiest-sim-only"} {
		stageName, simOnly := name, strings.HasSuffix(name, "-sim-only")
		if before, _, ok := strings.Cut(name, "-"); ok {
			stageName = before
		}
		stage, err := game.LoadStage(stageName)
		if err != nil {
			b.Fatal(err)
		}
		var inputs [][rules.MaxPlayers]game.Buttons
		var from, to int
		record := func(b *testing.B) {
			if inputs != nil {
				return
			}
			if strings.Contains(name, "-load") {
				inputs = make([][rules.MaxPlayers]game.Buttons, loadWindowTo*game.TickRate)
				for t := range inputs {
					for slot := range players {
						inputs[t][slot] = load.Script(slot, uint32(t))
					}
				}
				from, to = loadWindowFrom*game.TickRate, len(inputs)
				return
			}
			inputs = recordInputs(b, stage, seed, players)
			from, to = 0, len(inputs)
			if strings.Contains(name, "busiest") {
				from, to = busiestWindow(stage, seed, players, inputs, 10*game.TickRate)
			}
		}
		games := 1
		if i := strings.LastIndex(name, "-"); strings.HasSuffix(name, "games") {
			if games, err = strconv.Atoi(strings.TrimSuffix(name[i+1:], "games")); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(name, func(b *testing.B) {
			record(b)
			os := make([]*offlineInstance, games)
			t, k := to, 0
			b.ReportAllocs()
			var ticks, ents uint64
			for b.Loop() {
				if t >= to {
					b.StopTimer()
					for g := range os {
						os[g] = newOfflineInstance(stage, seed+uint64(g), players, dr)
						os[g].simOnly = simOnly
						for t = 0; t < from; t++ {
							os[g].step(&inputs[t])
						}
					}
					b.StartTimer()
				}
				o := os[k]
				o.step(&inputs[t])
				if k++; k == games {
					k, t = 0, t+1
				}
				ticks++
				ents += uint64(o.sim.World().Len())
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ticks), "ns/tick")
			b.ReportMetric(float64(ents)/float64(ticks), "entities")
			b.ReportMetric(float64(to-from)/game.TickRate, "game-s")
		})
	}
}

// loadWindowFrom and loadWindowTo are the game seconds a `make capacity` load run measures with
// its defaults (.ci/capacity.sh: WARMUP=3s, WINDOW=10s after the games start).
const loadWindowFrom, loadWindowTo = 3, 13

// busiestWindow returns the ticks [from, to) of the window of n ticks with the most live
// entities on average.
func busiestWindow(stage *game.Stage, seed uint64, players int, inputs [][rules.MaxPlayers]game.Buttons, n int) (int, int) {
	sim := game.NewSim(game.Config{Seed: seed, Players: players, Stage: stage})
	counts := make([]int, len(inputs))
	for t := range inputs {
		for slot := 0; slot < players; slot++ {
			sim.SetInput(slot, game.Input{Buttons: inputs[t][slot]})
		}
		sim.Step()
		sim.World().ClearEvents()
		counts[t] = sim.World().Len()
	}
	if len(counts) <= n {
		return 0, len(counts)
	}
	best, sum := 0, 0
	for t := 0; t < n; t++ {
		sum += counts[t]
	}
	bestSum := sum
	for t := n; t < len(counts); t++ {
		sum += counts[t] - counts[t-n]
		if sum > bestSum {
			bestSum, best = sum, t-n+1
		}
	}
	return best, best + n
}

// BenchmarkReplicationOffline: a whole 4-player game per iteration through the offline instance
// (100 ms acks, no loss), with delta replication alone and with dead reckoning, reporting what each client receives per second — snapshot datagrams
// with headers, plus REL+DEL_ENTS/DEL_COMP — against full-state snapshots at 30 Hz, over the whole
// stage and over its busiest 10 s; also the 99th-percentile tick time.
func BenchmarkReplicationOffline(b *testing.B) {
	const seed = 42
	for _, players := range []int{1, 2, 4} {
		for _, name := range []string{"short", "stage1", "stage2"} {
			stage, err := game.LoadStage(name)
			if err != nil {
				b.Fatal(err)
			}
			inputs := recordInputs(b, stage, seed, players)
			from, to := busiestWindow(stage, seed, players, inputs, 10*game.TickRate)
			for _, dr := range []bool{false, true} {
				b.Run(fmt.Sprintf("%dp/", players)+name+map[bool]string{false: "/delta", true: "/instance"}[dr], func(b *testing.B) {
					var sent, full, busySent, busyFull, secs, busySecs float64
					var snaps, capped, busySnaps, busyCapped float64
					var durs []time.Duration
					for b.Loop() {
						o := newOfflineInstance(stage, seed, players, dr)
						var fullBytes float64
						var busyStartBytes, busyStartSnaps, busyStartCapped uint64
						var busyFullBytes float64
						for t := range inputs {
							if t == from {
								busyStartBytes, busyStartSnaps, busyStartCapped = o.bytes, o.snaps, o.capped
							}
							start := time.Now()
							o.step(&inputs[t])
							durs = append(durs, time.Since(start))
							if o.sim.Tick()%instance.SnapshotEvery == 0 {
								n, _ := fullStateBytes(o.sim.World())
								fullBytes += float64(n)
								if t >= from && t < to {
									busyFullBytes += float64(n)
								}
							}
							if t == to-1 {
								busySent += float64(o.bytes-busyStartBytes) / float64(players)
								busySnaps += float64(o.snaps - busyStartSnaps)
								busyCapped += float64(o.capped - busyStartCapped)
							}
						}
						sent += float64(o.bytes) / float64(players)
						snaps += float64(o.snaps)
						capped += float64(o.capped)
						full += fullBytes
						busyFull += busyFullBytes
						secs += float64(len(inputs)) / game.TickRate
						busySecs += float64(to-from) / game.TickRate
					}
					sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
					b.ReportMetric(sent/secs, "B/client/s")
					b.ReportMetric(full/secs, "full-B/client/s")
					b.ReportMetric(sent/full, "sent/full")
					b.ReportMetric(busySent/busySecs, "busiest-B/client/s")
					b.ReportMetric(busyFull/busySecs, "busiest-full-B/client/s")
					b.ReportMetric(float64(durs[len(durs)*99/100].Nanoseconds()), "p99-ns/tick")
					b.ReportMetric(100*capped/snaps, "capped-%")
					b.ReportMetric(100*busyCapped/busySnaps, "busiest-capped-%")
					b.ReportMetric(float64(len(inputs))/game.TickRate, "game-s")
				})
			}
		}
	}
}
