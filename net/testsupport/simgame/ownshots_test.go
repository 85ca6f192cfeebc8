package simgame

import (
	"math"
	"testing"
	"time"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/linksim"
	"github.com/rtype/rtype/net/session"
)

// openStage: open space, no enemies, so every shot flies until it leaves the field.
const openStage = `{
  "name": "open", "scrollSpeed": 60,
  "sections": [{"at": 0, "song": 1}],
  "waves": [],
  "boss": {"at": 900000, "kind": "small", "hp": 10, "song": 3,
    "phases": [{"below": 100, "pattern": "fan", "interval": 60, "bullets": 5, "speed": 300, "open": 60, "closed": 60}]}
}`

// Own shots without delay (issue 13): at 150 ms RTT and 5 % loss, a player tapping fire sees
// each shot at the ship's nose on the frame of the press (or the next tick); every server shot of
// that player is taken over by one prediction (drawn on the predicted timeline, never a second
// copy in the interpolated past); the hand-over distance stays under a few px; a shot the server
// never fired (its press lost on the way) fades out. A second player fires too: its shots are
// never taken for the first player's.
func TestOwnShotsPredicted(t *testing.T) {
	st, err := game.ParseStage("open.json", []byte(openStage))
	if err != nil {
		t.Fatal(err)
	}
	link := func(i int) linksim.Config {
		return linksim.Config{Latency: 75 * time.Millisecond, Loss: 0.05, Seed: uint64(7 + i)}
	}
	g, err := New(Config{Stage: st, Players: 2, Seed: 3, Link: link})
	if err != nil {
		t.Fatal(err)
	}
	g.RunFor(time.Second) // HERE, WELCOME, first snapshots
	sim := g.Server.Sim()
	sc := sim.Components()
	cl, other := g.Clients[0], g.Clients[1]

	serverShots := map[ecs.Entity]bool{} // the server's normal shots and beams of slot 0 (true) and 1 (false)
	seeServer := func() {
		sim.World().Each(func(e ecs.Entity) {
			k, sh := sc.Kind.Get(e), sc.Shot.Get(e)
			if k != nil && sh != nil && (k.Kind == game.KindPlayerBullet && k.Variant == game.ShotNormal || k.Kind == game.KindBeam) {
				serverShots[e] = sh.Slot == 0
			}
		})
	}
	var buf []session.PredictedShot
	presses, onFrame, nextTick, drawnOld, foreign, frames := 0, 0, 0, 0, 0, 0
	maxPredicted := 0
	tap := []int{3, 5, 9, 12, 4, 8, 20, 2, 7, 15} // gaps between taps (ticks), some inside the cooldown
	next, ti := 30, 0
	for i := 0; i < 1200; i++ {
		b := game.Buttons(0)
		if (i/40)%2 == 0 {
			b |= game.BtnUp
		} else {
			b |= game.BtnDown
		}
		press := i == next
		if press || i == next+1 {
			b |= game.BtnFire
		}
		if i == next+1 {
			next += 2 + tap[ti%len(tap)]
			ti++
		}
		ob := game.Buttons(0)
		if i%10 < 2 {
			ob = game.BtnFire
		}
		other.SetInput(ob)
		cl.SetInput(b)
		before := cl.OwnShotStats().Predicted
		cl.View(g.Now, func(v *session.View) {
			if !press || v.Self == ecs.Nil {
				return
			}
			presses++
			if cl.OwnShotStats().Predicted == before {
				return
			}
			onFrame++
			// the new prediction is at the ship's nose: 12 px ahead of it, moved one tick
			sx, sy, _ := v.Pos(v.Self)
			found := false
			for _, ps := range v.PredictedShots(buf[:0]) {
				if math.Abs(float64(ps.X-(sx+40+12+25))) < 1 && math.Abs(float64(ps.Y-sy)) < 1 {
					found = true
				}
			}
			if !found {
				t.Errorf("tick %d: the new predicted shot is not at the nose of the ship (%.1f, %.1f): %+v", i, sx, sy, v.PredictedShots(buf[:0]))
			}
		})
		if press && cl.OwnShotStats().Predicted == before {
			g.RunFor(game.TickPeriod)
			if cl.OwnShotStats().Predicted != before {
				nextTick++
			}
		} else {
			g.RunFor(game.TickPeriod)
		}
		seeServer()
		// Every own server shot the client holds is drawn on the predicted timeline (else it
		// would be a double: the prediction, or its replacement, plus the shot in the past); no
		// other player's shot is.
		cl.View(g.Now, func(v *session.View) {
			frames++
			buf = v.PredictedShots(buf[:0])
			maxPredicted = max(maxPredicted, len(buf))
			v.World.Each(func(e ecs.Entity) {
				mine, known := serverShots[e]
				if !known {
					return
				}
				if _, _, ok := v.Pos(e); !ok {
					return
				}
				if mine && !v.OwnShot(e) {
					drawnOld++
				}
				if !mine && v.OwnShot(e) {
					foreign++
				}
			})
		})
	}
	cl.SetInput(0)
	for i := 0; i < 60; i++ {
		g.RunFor(game.TickPeriod)
		seeServer()
	}
	loopPredicted := cl.OwnShotStats().Predicted
	// A charged beam: held for 80 ticks (full charge), released; its prediction is taken over
	// by the server's beam.
	beamsBefore := cl.OwnShotStats()
	for i := 0; i < 130; i++ {
		b := game.Buttons(0)
		if i < 80 {
			b = game.BtnFire
		}
		cl.SetInput(b)
		g.RunFor(game.TickPeriod)
		seeServer()
	}
	if st := cl.OwnShotStats(); st.Predicted != beamsBefore.Predicted+2 || st.Matched != beamsBefore.Matched+2 {
		t.Errorf("press and charged release: predicted %d→%d, matched %d→%d; want a shot and a beam, both matched",
			beamsBefore.Predicted, st.Predicted, beamsBefore.Matched, st.Matched)
	}
	// A frame with own shots in flight (predicted and matched) allocates nothing.
	var q *ecs.Query1[game.Kind]
	cl.View(g.Now, func(v *session.View) { q = ecs.NewQuery1[game.Kind](v.World) })
	cl.SetInput(game.BtnFire)
	g.RunFor(3 * game.TickPeriod)
	drawn := 0
	frame := func(v *session.View) {
		buf = v.PredictedShots(buf[:0])
		drawn = len(buf)
		for it := q.Iter(); it.Next(); {
			if _, _, ok := v.Pos(it.Entity()); ok && v.OwnShot(it.Entity()) {
				drawn++
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { cl.View(g.Now, frame) }); n != 0 || drawn == 0 {
		t.Errorf("%v allocs per frame with %d own shots drawn, want 0", n, drawn)
	}
	cl.SetInput(0)
	for i := 0; i < 90; i++ {
		g.RunFor(game.TickPeriod)
		seeServer()
	}
	st0 := cl.OwnShotStats()
	mine := 0
	for _, m := range serverShots {
		if m {
			mine++
		}
	}
	mean := st0.HandOverSum / float64(max(st0.HandOverN, 1))
	t.Logf("presses %d: predicted on the press frame %d, on the next tick %d; server shots %d; predicted %d, matched %d, faded %d; hand-over distance mean %.3f px, max %.3f px; own server shots drawn in the past %d frames of %d; foreign matches %d; most unconfirmed at once %d",
		presses, onFrame, nextTick, mine, st0.Predicted, st0.Matched, st0.Faded, mean, st0.HandOverMax, drawnOld, frames, foreign, maxPredicted)
	if st0.Matched != uint64(mine) || st0.Predicted != st0.Matched+st0.Faded {
		t.Errorf("server shots %d, predicted %d, matched %d, faded %d: want every server shot matched to one prediction", mine, st0.Predicted, st0.Matched, st0.Faded)
	}
	if st0.Faded != 0 {
		t.Errorf("%d predictions faded although the server fired every press", st0.Faded)
	}
	if drawnOld != 0 || foreign != 0 {
		t.Errorf("own server shots drawn in the interpolated past: %d; other players' shots taken for own: %d", drawnOld, foreign)
	}
	if st0.HandOverMax > 4 {
		t.Errorf("hand-over distance max %.2f px, want under 4", st0.HandOverMax)
	}
	if uint64(onFrame+nextTick) != loopPredicted || mine < 50 {
		t.Errorf("%d predicted shots, %d on the press frame, %d a tick later", loopPredicted, onFrame, nextTick)
	}

	// A press the server never gets (the uplink is cut for a second): the prediction fades out
	// over OwnShotFadeTicks and is dropped.
	cl.SetInput(0)
	g.RunFor(500 * time.Millisecond)
	g.Net.SetConfig(g.ClientAddr[0], linksim.Config{Latency: 75 * time.Millisecond, Loss: 1}, link(0))
	var alphas []float32
	for i := 0; i < 90; i++ {
		b := game.Buttons(0)
		if i < 2 {
			b = game.BtnFire
		}
		cl.SetInput(b)
		cl.View(g.Now, func(v *session.View) {
			for _, ps := range v.PredictedShots(buf[:0]) {
				if len(alphas) == 0 || ps.Alpha != alphas[len(alphas)-1] {
					alphas = append(alphas, ps.Alpha)
				}
			}
		})
		g.RunFor(game.TickPeriod)
	}
	g.Net.SetConfig(g.ClientAddr[0], link(0), link(0))
	g.RunFor(time.Second)
	st1 := cl.OwnShotStats()
	t.Logf("lost press: predicted %d → %d, faded %d → %d, alpha %v", st0.Predicted, st1.Predicted, st0.Faded, st1.Faded, alphas)
	if st1.Predicted != st0.Predicted+1 || st1.Faded != st0.Faded+1 || st1.Matched != st0.Matched {
		t.Fatalf("lost press: predicted %d→%d, faded %d→%d, matched %d→%d", st0.Predicted, st1.Predicted, st0.Faded, st1.Faded, st0.Matched, st1.Matched)
	}
	fading := 0
	for _, a := range alphas {
		if a < 1 && a > 0 {
			fading++
		}
	}
	if fading < 3 {
		t.Errorf("the unconfirmed shot did not fade out: alphas %v", alphas)
	}
}
