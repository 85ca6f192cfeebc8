package server

// Prediction tests, in virtual time (net/testsupport/simgame): one player over a link of 75 ms each way.

import (
	"testing"
	"time"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/linksim"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/testsupport/simgame"
)

// soloGame is a virtual game of the short stage for one player whose buttons the test sets, over
// a link with the given one-way impairment.
func soloGame(t *testing.T, link linksim.Config) *simgame.Game {
	t.Helper()
	st, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	g, err := simgame.New(simgame.Config{Stage: st, Players: 1, Seed: 3, Link: func(int) linksim.Config { return link }})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// selfPos runs the game until the local ship is visible and returns its drawn position.
func selfPos(t *testing.T, g *simgame.Game) (x, y float32) {
	t.Helper()
	c := g.Clients[0]
	ok := false
	g.RunUntil(g.Now+5*time.Second, func() bool {
		c.View(g.Now, func(v *session.View) {
			if v.Self != ecs.Nil {
				x, y, ok = v.Pos(v.Self)
			}
		})
		return ok
	})
	if !ok {
		t.Fatal("the local ship never appeared")
	}
	return x, y
}

// At 150 ms RTT the local ship's drawn position changes on the first frame after an input
// (client-side prediction), not one round trip later.
func TestPredictionMovesOnFirstFrame(t *testing.T) {
	t.Parallel()
	g := soloGame(t, linksim.Config{Latency: 75 * time.Millisecond})
	selfPos(t, g)
	g.RunFor(300 * time.Millisecond) // RTT measured, input tick aimed
	x0, y0 := selfPos(t, g)
	c := g.Clients[0]
	c.SetInput(game.BtnDown)
	var x1, y1 float32
	c.View(g.Now+time.Millisecond, func(v *session.View) { x1, y1, _ = v.Pos(v.Self) })
	if y1 <= y0 {
		t.Fatalf("first frame after pressing down: y %v -> %v (x %v -> %v), want the ship lower at once", y0, y1, x0, x1)
	}
}

// With no loss and no other player, prediction never needs a correction: the server applies each
// input on the tick the client stamped and the client replays the same MoveShip. The zig-zag
// starts on the first frame the ship is visible, so the very first stamped input is a move too.
func TestPredictionNoCorrectionOnCleanLink(t *testing.T) {
	t.Parallel()
	g := soloGame(t, linksim.Config{Latency: 75 * time.Millisecond})
	selfPos(t, g)
	c := g.Clients[0]
	for i := 0; i < 6*game.TickRate; i++ {
		// a zig-zag with holds, diagonals and releases
		b := []game.Buttons{game.BtnUp, game.BtnUp | game.BtnRight, 0, game.BtnDown, game.BtnDown | game.BtnLeft, game.BtnRight, 0}[(i/20)%7]
		c.SetInput(b)
		c.View(g.Now, func(*session.View) {}) // a frame: a change of buttons is sent at once
		g.RunFor(time.Second / game.TickRate)
	}
	c.SetInput(0)
	g.RunFor(500 * time.Millisecond)
	st := c.Stats()
	deaths := 0
	for _, e := range g.ServerEvents {
		if len(e) > 6 && e[:6] == "death:" {
			deaths++
		}
	}
	if st.Corrections != 0 {
		t.Errorf("%d prediction corrections (mean %.2f px) on a clean 150 ms RTT link (deaths: %d)", st.Corrections, st.CorrectionPixels, deaths)
	}
	if st.RTTMillis < 140 || st.RTTMillis > 200 {
		t.Errorf("RTT %.0f ms, want about 150", st.RTTMillis)
	}
}

// A correction forced by the server (the ship moved server-side without the client's input)
// converges: the drawn position reaches the server's within a second.
func TestPredictionForcedCorrectionConverges(t *testing.T) {
	t.Parallel()
	g := soloGame(t, linksim.Config{Latency: 75 * time.Millisecond})
	selfPos(t, g)
	g.RunFor(300 * time.Millisecond)
	sim := g.Server.Sim()
	self := sim.PlayerEntity(0)
	p := sim.Components().Position.Mut(self)
	p.X, p.Y = 700, 300
	deadline := g.Now + time.Second + 150*time.Millisecond
	var x, y, tx, ty float32
	for g.Now < deadline {
		sp := sim.Components().Position.Get(self)
		tx, ty = sp.X, sp.Y
		x, y = selfPos(t, g)
		if d := (x-tx)*(x-tx) + (y-ty)*(y-ty); d < 1 {
			if st := g.Clients[0].Stats(); st.Corrections == 0 {
				t.Errorf("converged without counting a correction")
			}
			return
		}
		g.RunFor(10 * time.Millisecond)
	}
	t.Fatalf("drawn position (%v,%v) did not converge to the server's (%v,%v) within 1 s after one RTT", x, y, tx, ty)
}
