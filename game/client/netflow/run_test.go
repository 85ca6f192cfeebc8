package netflow

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/stagefile"
)

// The client's network side plays an arcade run against a real server: the room's auto flow
// creates the lobby with the pseudo-stage arcade, the runner resolves every stage of the RUN
// push, and Frame.Stage is the run's first stage, then (after its boss and the tally, whose
// Frame.Tally is seen) the second.
func TestEndToEndArcadeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a stage and a tally in real time")
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	tiny, err := stagefile.Load("../../../testdata/lobby/tiny.json", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	short, err := stagefile.Embedded("short", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := stagefile.NewCatalogue("short", short, tiny)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.SetRun([]string{"tiny", "short"}); err != nil {
		t.Fatal(err)
	}
	addr, _ := startRealServer(t, cat)

	n := NewRunner(context.Background(), quiet, "e2e", "")
	defer n.Close()
	m := scene.New(addr, scene.Auto{On: true, Start: true, Stage: stagefile.Arcade})
	var l Link
	for _, c := range m.Begin() {
		n.Exec(c)
	}
	deadline := time.After(10 * time.Second)
	for m.Scene != scene.Playing {
		select {
		case r := <-n.Events():
			n.Accept(r)
			if r.Link != nil {
				l = r.Link
			}
			for _, c := range m.Handle(r.Ev) {
				n.Exec(c)
			}
		case <-deadline:
			t.Fatalf("stuck in %v (busy %q error %q reason %q)", m.Scene, m.Busy, m.Error, m.Reason)
		}
	}
	if got := n.Stage(); got != stagefile.Arcade { // what the results screen and the room name
		t.Fatalf("Runner.Stage() of an arcade lobby = %q, want %q", got, stagefile.Arcade)
	}
	sawTally := false
	for i := 0; i < 60*game.TickRate; i++ {
		var in game.Input
		done := false
		l.Frame(func(f *Frame) {
			if f.RunLen != 2 {
				t.Fatalf("Frame.RunLen %d, want 2", f.RunLen)
			}
			want := tiny.Hash
			if f.RunIndex == 1 {
				want = short.Hash
			}
			if f.Stage.Hash() != want {
				t.Fatalf("stage %d of the run: Frame.Stage %q", f.RunIndex, f.Stage.Name)
			}
			sawTally = sawTally || f.Tally
			done = f.RunIndex == 1
			if f.Self != 0 {
				in = game.Autopilot(f.World, f.C, &f.Stage.Terrain, f.Self, f.Tick)
			}
		})
		if done {
			break
		}
		l.SetInput(in.Buttons)
		time.Sleep(time.Second / 60)
	}
	l.Frame(func(f *Frame) {
		if f.RunIndex != 1 || !sawTally {
			t.Fatalf("after a minute: stage %d of the run, tally seen %v", f.RunIndex, sawTally)
		}
	})
}
