package replay

import (
	"testing"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/net/wire"
)

// botGame is a game played by game.Autopilot in every slot, recorded.
type botGame struct {
	sim *game.Sim
	rec *Recorder
	st  *game.Stage
}

func newBotGame(tb testing.TB, stage string, players int, seed uint64) *botGame {
	f, err := stagefile.Embedded(stage, game.ParseScript)
	if err != nil {
		panic(err) // the embedded stages are part of the build
	}
	names := []string{"ann", "bob", "cyd", "dee"}[:players]
	cfg := game.Config{Seed: seed, Players: players, Stage: game.StageOf(f)}
	h := NewRunHeader(cfg, []string{stage}, names)
	h.Protocol, h.Build, h.Time = wire.Version, "test", 1764633600
	g := &botGame{sim: game.NewSim(cfg), rec: NewRecorder(h), st: game.StageOf(f)}
	g.sim.SetRecorder(g.rec)
	return g
}

// newRunGame is newBotGame for an arcade run of the embedded stages named.
func newRunGame(tb testing.TB, stages []string, players int, seed uint64) *botGame {
	run := make([]*game.Stage, len(stages))
	for i, name := range stages {
		f, err := stagefile.Embedded(name, game.ParseScript)
		if err != nil {
			panic(err)
		}
		run[i] = game.StageOf(f)
	}
	names := []string{"ann", "bob", "cyd", "dee"}[:players]
	cfg := game.Config{Seed: seed, Players: players, Run: run}
	h := NewRunHeader(cfg, stages, names)
	h.Protocol, h.Build, h.Time = wire.Version, "test", 1764633600
	g := &botGame{sim: game.NewSim(cfg), rec: NewRecorder(h)}
	g.sim.SetRecorder(g.rec)
	return g
}

// tick sets every present slot's autopilot input, then steps.
func (g *botGame) tick() {
	s := g.sim
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		if e := s.PlayerEntity(slot); e != 0 {
			s.SetInput(slot, game.Autopilot(s.World(), s.Components(), &s.Stage().Terrain, e, s.Tick()))
		}
	}
	s.Step()
	s.World().ClearEvents()
}

func (g *botGame) run(ticks int) {
	for i := 0; i < ticks; i++ {
		if over, _ := g.sim.Over(); over {
			return
		}
		g.tick()
	}
}

// encode ends the recording now.
func (g *botGame) encode(tb testing.TB) []byte {
	tb.Helper()
	res := rules.ResultAborted // stopped
	if over, r := g.sim.Over(); over {
		res = r
	}
	b := g.rec.Encode(g.sim, res)
	if b == nil {
		tb.Fatal("Encode: nil")
	}
	return b
}

func mustDecode(tb testing.TB, b []byte) *Replay {
	tb.Helper()
	r, err := Decode(b)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func ecsTick(t uint32) ecs.Tick { return ecs.Tick(t) }

// encode returns the file bytes of r (docs/REPLAY.md). r.Events must end with EventEnd.
func encode(r *Replay) []byte {
	b := appendHeader(make([]byte, 0, 256+len(r.StageData)+2*len(r.Events)), &r.Header)
	var st stream
	for i := range r.Events {
		b = st.appendEvent(b, &r.Events[i])
	}
	return appendTrailer(b, r.Result, r.SimOver, r.Stats)
}
