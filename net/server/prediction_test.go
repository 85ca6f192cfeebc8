package server

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/linksim"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/transport"
)

// joinAlone goes through the lobby alone, starts the game and dials the instance over a link with
// the given one-way impairment; it returns the session and the running instance.
func joinAlone(t *testing.T, addr string, mgr *instance.Manager, link linksim.Config) (*session.Session, *instance.Instance) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	lc, err := lobby.Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lc.Close() })
	id, err := lc.Authenticate("solo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.Join(""); err != nil {
		t.Fatal(err)
	}
	if err := lc.Start(); err != nil {
		t.Fatal(err)
	}
	st, err := lc.WaitStart(ctx)
	if err != nil {
		t.Fatal(err)
	}
	us, err := transport.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := session.Dial(ctx, session.Config{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(st.Port)), UUID: id, Token: st.Token,
		Socket: linksim.Wrap(us, link, link)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); s.Wait() })
	ins := mgr.Instances()
	if len(ins) != 1 {
		t.Fatalf("%d instances", len(ins))
	}
	return s, ins[0]
}

// selfPos waits until the local ship is visible and returns its drawn position.
func selfPos(t *testing.T, s *session.Session) (x, y float32) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		ok := false
		s.View(func(v *session.View) {
			if v.Self != ecs.Nil {
				x, y, ok = v.Pos(v.Self)
			}
		})
		if ok {
			return x, y
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the local ship never appeared")
	return
}

// At 150 ms RTT the local ship's drawn position changes on the first frame after an input
// (client-side prediction), not one round trip later.
func TestPredictionMovesOnFirstFrame(t *testing.T) {
	addr, mgr, stop := startServer(t, Config{Stage: "short"})
	defer stop()
	s, _ := joinAlone(t, addr, mgr, linksim.Config{Latency: 75 * time.Millisecond})
	x0, y0 := selfPos(t, s)
	time.Sleep(300 * time.Millisecond) // RTT measured, input tick aimed
	x0, y0 = selfPos(t, s)
	s.SetInput(game.BtnDown)
	var x1, y1 float32
	s.View(func(v *session.View) { x1, y1, _ = v.Pos(v.Self) })
	if y1 <= y0 {
		t.Fatalf("first frame after pressing down: y %v -> %v (x %v -> %v), want the ship lower at once", y0, y1, x0, x1)
	}
	s.SetInput(0)
}

// With no loss and no other player, prediction never needs a correction: the server applies each
// input on the tick the client stamped and the client replays the same MoveShip.
func TestPredictionNoCorrectionOnCleanLink(t *testing.T) {
	addr, mgr, stop := startServer(t, Config{Stage: "short"})
	defer stop()
	s, in := joinAlone(t, addr, mgr, linksim.Config{Latency: 75 * time.Millisecond})
	selfPos(t, s)
	start := time.Now()
	for i := 0; time.Since(start) < 6*time.Second; i++ {
		// a zig-zag with holds, diagonals and releases
		b := []game.Buttons{game.BtnUp, game.BtnUp | game.BtnRight, 0, game.BtnDown, game.BtnDown | game.BtnLeft, game.BtnRight, 0}[(i/20)%7]
		s.SetInput(b)
		time.Sleep(time.Second / 60)
	}
	s.SetInput(0)
	time.Sleep(500 * time.Millisecond)
	st := s.Stats()
	deaths := 0
	for _, e := range in.EventLog() {
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
	addr, mgr, stop := startServer(t, Config{Stage: "short"})
	defer stop()
	s, in := joinAlone(t, addr, mgr, linksim.Config{Latency: 75 * time.Millisecond})
	selfPos(t, s)
	time.Sleep(300 * time.Millisecond)
	var tx, ty float32 = 700, 300
	var self ecs.Entity
	in.View(func(sim *game.Sim) {
		self = sim.PlayerEntity(0)
		p := sim.Components().Position.Mut(self)
		p.X, p.Y = tx, ty
	})
	deadline := time.Now().Add(time.Second + 150*time.Millisecond)
	var x, y float32
	for time.Now().Before(deadline) {
		in.View(func(sim *game.Sim) {
			p := sim.Components().Position.Get(self)
			tx, ty = p.X, p.Y
		})
		x, y = selfPos(t, s)
		if d := (x-tx)*(x-tx) + (y-ty)*(y-ty); d < 1 {
			if st := s.Stats(); st.Corrections == 0 {
				t.Errorf("converged without counting a correction")
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("drawn position (%v,%v) did not converge to the server's (%v,%v) within 1 s after one RTT", x, y, tx, ty)
}
