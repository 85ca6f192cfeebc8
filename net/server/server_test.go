package server

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/schema"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/testsupport/simgame"
	"github.com/rtype/rtype/net/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// startServer runs the server in-process on 127.0.0.1:0 and returns its lobby address, its
// instance manager and a stop function (see startServerTB).
func startServer(t *testing.T, cfg Config) (string, *instance.Manager, func()) {
	t.Helper()
	return startServerTB(t, cfg)
}

// entitySnap is one entity's replicated state: its Position, and every other replicated
// component encoded (id + wire bytes).
type entitySnap struct {
	other  string
	x, y   float32
	hasPos bool
	vx, vy float32
	hasVel bool
}

// snapshotWorld takes every entity's replicated components, for comparing a client's mirror with
// the server's world.
func snapshotWorld(w *ecs.World) map[ecs.Entity]entitySnap {
	out := map[ecs.Entity]entitySnap{}
	w.Each(func(e ecs.Entity) {
		var s entitySnap
		var b []byte
		for _, st := range w.Stores() {
			if st.Flags()&ecs.Replicated == 0 || !st.Has(e) {
				continue
			}
			if st.ID() == game.CompPosition {
				p := ecs.StoreOf[game.Position](w).Get(e)
				s.x, s.y, s.hasPos = p.X, p.Y, true
				continue
			}
			if st.ID() == game.CompVelocity {
				v := ecs.StoreOf[game.Velocity](w).Get(e)
				s.vx, s.vy, s.hasVel = v.X, v.Y, true
				continue
			}
			b = append(b, byte(st.ID()))
			b = st.AppendWire(b, e)
		}
		s.other = string(b)
		if len(b) > 0 || s.hasPos || s.hasVel {
			out[e] = s
		}
	})
	return out
}

// PositionTolerance is how far a mirror's Position may be from the server's: dead reckoning
// (net/schema.DeadReckonPx) plus float rounding.
const PositionTolerance = schema.DeadReckonPx + 0.01

// VelocityTolerance is how far a mirror's Velocity may be from the server's: half a Motion step
// (1/16 px/s, docs/PROTOCOL.md §4).
const VelocityTolerance = 0.5/wire.MotionVelScale + 1e-4

// same reports whether a mirror's entity matches the server's.
func same(got, want entitySnap) bool {
	if got.other != want.other || got.hasPos != want.hasPos || got.hasVel != want.hasVel {
		return false
	}
	dx, dy := got.x-want.x, got.y-want.y
	dvx, dvy := got.vx-want.vx, got.vy-want.vy
	return dx*dx <= PositionTolerance*PositionTolerance && dy*dy <= PositionTolerance*PositionTolerance &&
		dvx*dvx <= VelocityTolerance*VelocityTolerance && dvy*dvy <= VelocityTolerance*VelocityTolerance
}

// The real-socket, real-time end-to-end path (lobby → START → UDP → GAME_END) with 4 bots: the
// netcode itself is tested in virtual time (netcode_test.go, TestMirrorEqualsServerWorld).
func TestBotsPlayShortStage(t *testing.T) {
	t.Parallel()
	addr, _, stop := startServer(t, Config{Stage: "short"})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := bot.Run(ctx, bot.Config{Server: addr, Players: 4}, nil)
	if err != nil {
		t.Fatalf("bots: %v (%+v)", err, res)
	}
	for _, r := range res {
		if !r.Ended() || r.Ticks == 0 || r.DatagramsIn == 0 {
			t.Errorf("bot %s: %+v", r.Bot, r)
		}
		// A snapshot every SnapshotEvery ticks (every CongestedSnapshotEvery on a lossy link),
		// empty ones included, counted against the game's ticks, not the wall clock: the same on
		// a busy machine. Not one a tick (at most Ticks datagrams, PONGs and reliable commands
		// included); at least half of the congested cadence's (loopback may drop some under load).
		if lo := uint64(r.Ticks) / (2 * instance.CongestedSnapshotEvery); r.DatagramsIn < lo || r.DatagramsIn > uint64(r.Ticks) {
			t.Errorf("bot %s: %d datagrams in over %d ticks, want %d to %d (a snapshot every %d ticks)", r.Bot, r.DatagramsIn, r.Ticks, lo, r.Ticks, instance.SnapshotEvery)
		}
	}
}

// Two autopilots play the short stage to its end in virtual time (net/testsupport/simgame); once GAME_END is
// delivered, each client's mirror world equals the server's: no ghost, no missing entity, the
// same component values.
func TestMirrorEqualsServerWorld(t *testing.T) {
	t.Parallel()
	st, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	g, err := simgame.New(simgame.Config{Stage: st, Players: 2, Seed: 11, Autopilot: true})
	if err != nil {
		t.Fatal(err)
	}
	if !g.RunUntil(10*time.Minute, func() bool { over, _ := g.Server.Over(); return over }) {
		t.Fatal("the game did not end")
	}
	g.RunFor(time.Second) // GAME_END delivered and acknowledged, the clients still open
	want := snapshotWorld(g.Server.Sim().World())
	if len(want) == 0 {
		t.Fatal("server world is empty at the end")
	}
	_, res := g.Server.Over()
	t.Logf("game ended (%s) at %v of virtual time with %d entities", res, g.Now, len(want))
	for i, c := range g.Clients {
		var got map[ecs.Entity]entitySnap
		c.View(g.Now, func(v *session.View) { got = snapshotWorld(v.World) })
		for e, w := range want {
			if gv, ok := got[e]; !ok {
				t.Errorf("client %d: entity %#x missing from the mirror", i, uint64(e))
			} else if !same(gv, w) {
				t.Errorf("client %d: entity %#x differs: mirror %+v server %+v", i, uint64(e), gv, w)
			}
		}
		for e := range got {
			if _, ok := want[e]; !ok {
				t.Errorf("client %d: ghost entity %#x in the mirror", i, uint64(e))
			}
		}
	}
}
