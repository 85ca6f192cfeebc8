package replay

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
)

// benchInputs are the buttons of a 4-autopilot game of stage 1 (seed 42), per tick and slot: the
// recording benchmark feeds them to a Sim with and without a Recorder.
var benchInputs = sync.OnceValue(func() [][rules.MaxPlayers]game.Buttons {
	st, _ := stagefile.Embedded("stage1", game.ParseScript)
	s := game.NewSim(game.Config{Seed: 42, Players: 4, Stage: game.StageOf(st)})
	var out [][rules.MaxPlayers]game.Buttons
	for range 6000 {
		var in [rules.MaxPlayers]game.Buttons
		for slot := range in {
			if e := s.PlayerEntity(slot); e != ecs.Nil {
				in[slot] = game.Autopilot(s.World(), s.Components(), &game.StageOf(st).Terrain, e, s.Tick()).Buttons
				s.SetInput(slot, game.Input{Buttons: in[slot]})
			}
		}
		out = append(out, in)
		s.Step()
		s.World().ClearEvents()
	}
	return out
})

// benchGame steps a Sim through benchInputs, recorded or not.
type benchGame struct {
	sim *game.Sim
	i   int
}

func newBenchGame(record bool) *benchGame {
	st, _ := stagefile.Embedded("stage1", game.ParseScript)
	cfg := game.Config{Seed: 42, Players: 4, Stage: game.StageOf(st)}
	g := &benchGame{sim: game.NewSim(cfg)}
	if record {
		g.sim.SetRecorder(NewRecorder(NewRunHeader(cfg, []string{"stage1"}, nil)))
	}
	return g
}

func (g *benchGame) tick(ins [][rules.MaxPlayers]game.Buttons) {
	in := &ins[g.i]
	for slot := range in {
		g.sim.SetInput(slot, game.Input{Buttons: in[slot]})
	}
	g.sim.Step()
	g.sim.World().ClearEvents()
	g.i++
}

// BenchmarkRecordCost is the cost of recording: two Sims play the same 4-player stage-1 game
// (autopilot inputs), one with a Recorder, in alternating chunks of 50 ticks (the same ticks for
// both, which goes first alternating), so both see the same machine. It reports each one's
// ns/tick, and the median over the chunks of recorded/plain, which the other processes on a
// shared machine disturb least (docs/BENCHMARKS.md).
func BenchmarkRecordCost(b *testing.B) {
	const chunk = 50
	ins := benchInputs()
	plain, rec := newBenchGame(false), newBenchGame(true)
	var tPlain, tRec time.Duration
	var ratios []float64
	ticks := 0
	b.ResetTimer()
	for i := 0; i < b.N; i += chunk {
		if plain.i+chunk > len(ins) {
			b.StopTimer()
			plain, rec = newBenchGame(false), newBenchGame(true)
			b.StartTimer()
		}
		first, second := plain, rec
		if (i/chunk)%2 == 1 {
			first, second = rec, plain
		}
		t0 := time.Now()
		for range chunk {
			first.tick(ins)
		}
		t1 := time.Now()
		for range chunk {
			second.tick(ins)
		}
		d1, d2 := t1.Sub(t0), time.Since(t1)
		if first == rec {
			d1, d2 = d2, d1
		}
		tPlain += d1
		tRec += d2
		ratios = append(ratios, float64(d2)/float64(d1))
		ticks += chunk
	}
	b.StopTimer()
	slices.Sort(ratios)
	b.ReportMetric(float64(tPlain.Nanoseconds())/float64(ticks), "plain-ns/tick")
	b.ReportMetric(float64(tRec.Nanoseconds())/float64(ticks), "recorded-ns/tick")
	b.ReportMetric(ratios[len(ratios)/2], "ratio")
}

// bossReplay is a replay of a 4-autopilot game of stage 1 from the start to its boss.
var bossReplay = sync.OnceValues(func() (*Replay, error) {
	g := newBotGame(nil, "stage1", 4, 42)
	for !g.sim.BossFight() {
		if over, _ := g.sim.Over(); over {
			break
		}
		g.tick()
	}
	return Decode(g.rec.Encode(g.sim, rules.ResultAborted))
})

// BenchmarkSeekBoss is a seek from the start to the boss of stage 1 (its first tick) in a
// 4-player replay, by playing it again (SeekTo); it also reports the replay's size per minute.
func BenchmarkSeekBoss(b *testing.B) {
	r, err := bossReplay()
	if err != nil {
		b.Fatal(err)
	}
	p, err := NewPlayer(r)
	if err != nil {
		b.Fatal(err)
	}
	end := r.End().Tick
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := p.SeekTo(0); err != nil {
			b.Fatal(err)
		}
		if err := p.SeekTo(end); err != nil || !p.Sim().BossFight() {
			b.Fatal("no boss", err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(end), "ticks")
	b.ReportMetric(float64(len(encode(r)))*60*game.TickRate/float64(end), "bytes/min")
}
