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

// driveLinks feeds the runner's replies to m until done holds (at most 10 s), returning the last link.
func driveLinks(t *testing.T, n *Runner, m *scene.Machine, cmds []scene.Cmd, l Link, done func() bool) Link {
	t.Helper()
	for _, c := range cmds {
		n.Exec(c)
	}
	deadline := time.After(10 * time.Second)
	for !done() {
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
	return l
}

// Retry from the pause menu against a real server (docs/PROTOCOL.md §2.4.18): a solo game is
// left and played again without the room's START: the scene goes to the room ("Restarting")
// and back to Playing on a new session, whose game starts from its beginning.
func TestEndToEndRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("starts game instances")
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cat, err := stagefile.LoadCatalogue("stage1", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := startRealServer(t, cat)
	n := NewRunner(context.Background(), quiet, "retry", "")
	defer n.Close()
	m := scene.New(addr, scene.Auto{On: true, Start: true, Stage: "short"})
	first := driveLinks(t, n, m, m.Begin(), nil, func() bool { return m.Scene == scene.Playing })
	var tick0 uint64
	for i := 0; i < 600 && tick0 < 120; i++ { // let the first game run 2 s
		first.Frame(func(f *Frame) { tick0 = uint64(f.Tick) })
		time.Sleep(time.Second / 60)
	}
	if tick0 < 120 {
		t.Fatalf("the first game did not run (tick %d)", tick0)
	}
	m.Handle(scene.Event{Kind: scene.EvMenu}) // the pause menu, then Retry
	cmds := m.Handle(scene.Event{Kind: scene.EvRetry})
	if m.Scene != scene.Room || m.Busy != "Restarting" {
		t.Fatalf("after Retry: scene %v busy %q, want the room restarting", m.Scene, m.Busy)
	}
	second := driveLinks(t, n, m, cmds, nil, func() bool { return m.Scene == scene.Playing })
	if second == nil || second == first {
		t.Fatal("Playing again without a new session")
	}
	var tick1 uint64
	var self bool
	for i := 0; i < 300 && !self; i++ {
		second.Frame(func(f *Frame) { tick1, self = uint64(f.Tick), f.Self != 0 })
		time.Sleep(time.Second / 60)
	}
	if !self || tick1 >= tick0 {
		t.Fatalf("the retried game: own ship %v at tick %d, want a new game (the first was at tick %d)", self, tick1, tick0)
	}
	if m.Scene != scene.Playing || m.Error != "" {
		t.Fatalf("after the retried game started: scene %v error %q", m.Scene, m.Error)
	}
}
