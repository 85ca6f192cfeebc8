package controls

import (
	"fmt"
	"testing"
	"time"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
)

// playTap simulates a key held from pressAt for hold at fps frames per second (the first poll
// at phase): polls happen once per frame, the session samples the gate's level at every 60 Hz
// tick. It returns the fire level of each tick for 2 s.
func playTap(fps float64, phase, pressAt, hold time.Duration) []bool {
	var g FireGate
	frame := time.Duration(float64(time.Second) / fps)
	var out []bool
	nextPoll, poll := phase, 0
	for tick := 0; tick < 120; tick++ {
		now := time.Duration(tick) * game.TickPeriod
		for nextPoll <= now { // the frames drawn since the last tick poll the key once each
			poll++
			g.Poll(nextPoll >= pressAt && nextPoll < pressAt+hold, poll, nextPoll)
			nextPoll += frame
		}
		out = append(out, g.Level(now))
	}
	return out
}

// runSim feeds per-tick fire levels to a real simulation and returns the largest beam charge
// the ship showed and whether a beam was fired.
func runSim(t *testing.T, fire []bool) (maxCharge uint8, beam bool) {
	t.Helper()
	st, err := game.ParseStage("tap.json", []byte(`{"name": "tap", "scrollSpeed": 60, "sections": [{"at": 0, "song": 1}], "waves": [],
  "boss": {"at": 900000, "kind": "small", "hp": 10, "song": 3,
    "phases": [{"below": 100, "pattern": "fan", "interval": 60, "bullets": 5, "speed": 300, "open": 60, "closed": 60}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	s := game.NewSim(game.Config{Seed: 1, Players: 1, Stage: st})
	c := s.Components()
	kinds := ecs.NewQuery1[game.Kind](s.World())
	for _, f := range fire {
		var b game.Buttons
		if f {
			b = game.BtnFire
		}
		s.SetInput(0, game.Input{Buttons: b})
		s.Step()
		if p := c.Player.Get(s.PlayerEntity(0)); p != nil {
			maxCharge = max(maxCharge, game.ChargeAt(p.ChargeFrom, s.Tick()))
		}
		for it := kinds.Iter(); it.Next(); {
			if it.Get().Kind == game.KindBeam {
				beam = true
			}
		}
		s.World().ClearEvents()
	}
	return maxCharge, beam
}

// TestTapNeverCharges: a 50 ms tap fires (the server sees fire at least one tick) and never
// starts the beam charge, at any frame rate from 1 to 144 FPS and any phase of the frames.
func TestTapNeverCharges(t *testing.T) {
	for _, fps := range []float64{1, 2, 3, 5, 7, 10, 12, 15, 21, 30, 60, 144} {
		frame := time.Duration(float64(time.Second) / fps)
		for ph := 0; ph < 16; ph++ {
			phase := frame * time.Duration(ph) / 16
			fire := playTap(fps, phase, 200*time.Millisecond, 50*time.Millisecond)
			run, longest, seen := 0, 0, false
			for _, f := range fire {
				if f {
					run++
					seen = true
				} else {
					run = 0
				}
				longest = max(longest, run)
			}
			if longest > TapTicks+1 {
				t.Errorf("%v FPS phase %v: fire held %d ticks for a 50 ms tap", fps, phase, longest)
			}
			if fps >= 20 && !seen { // slower frames can miss a tap shorter than a frame entirely
				t.Errorf("%v FPS phase %v: tap lost", fps, phase)
			}
			if ch, beam := runSim(t, fire); ch > 0 || beam {
				t.Errorf("%v FPS phase %v: a 50 ms tap charged the beam to %d (beam %v)", fps, phase, ch, beam)
			}
		}
	}
}

// TestHoldStillCharges: a 1.5 s hold reaches the full charge and fires a beam at any frame
// rate from 5 FPS up.
func TestHoldStillCharges(t *testing.T) {
	for _, fps := range []float64{5, 10, 21, 60} {
		t.Run(fmt.Sprint(fps), func(t *testing.T) {
			fire := playTap(fps, 3*time.Millisecond, 100*time.Millisecond, 1500*time.Millisecond)
			ch, beam := runSim(t, fire)
			if ch != 255 || !beam {
				t.Fatalf("%v FPS: a 1.5 s hold charged to %d, beam %v", fps, ch, beam)
			}
		})
	}
}
