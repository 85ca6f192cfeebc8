package netflow

import (
	"context"
	"io"
	"log/slog"
	"net"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby/lobbyserver"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/session"
)

// TestEndToEndRealServer runs the client's network side (no display) against a real lobby
// server and game instance: the keyless flow reaches the game, the session's mirror world shows
// the own ship through Link.Frame (with a draw position), the autopilot's input moves it, and a
// Close leaves the server with no player. The lobby is created with the short stage while the
// server's default is stage1: Frame.Stage is short.
func TestEndToEndRealServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a game instance")
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cat, err := stagefile.LoadCatalogue("stage1", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	addr, mgr := startRealServer(t, cat)

	n := NewRunner(context.Background(), quiet, "e2e", "")
	m := scene.New(addr, scene.Auto{On: true, Start: true, Stage: "short"})
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
	// fly with the autopilot for up to 3 s and watch the own ship in the mirror world
	var first, last [2]float32
	seen := 0
	l.Frame(func(f *Frame) {
		if want := game.StageOf(cat.ByName("short")); !reflect.DeepEqual(f.Stage, want) {
			t.Errorf("Frame.Stage = %v, want the short stage", f.Stage)
		}
	})
	for i := 0; i < 180; i++ {
		var in game.Input
		l.Frame(func(f *Frame) {
			if f.Self == 0 {
				return
			}
			x, y, ok := f.Pos(f.Self)
			if !ok {
				return
			}
			if k := f.C.Kind.Get(f.Self); k == nil || k.Kind != game.KindPlayer {
				t.Errorf("Self is not a player ship: %+v", k)
			}
			if seen == 0 {
				first = [2]float32{x, y}
			}
			last = [2]float32{x, y}
			seen++
			in = game.Autopilot(f.World, f.C, nil, f.Self, f.Tick)
		})
		l.SetInput(in.Buttons)
		time.Sleep(time.Second / 60)
	}
	if seen < 60 {
		t.Fatalf("own ship visible in only %d of 180 frames", seen)
	}
	if first == last {
		t.Errorf("own ship never moved under the autopilot: %v", first)
	}
	if st := l.Stats(); st.SnapshotsPerSec <= 0 && st.ServerTick == 0 {
		t.Errorf("no snapshot statistics: %+v", st)
	}
	select {
	case ev := <-l.Events():
		if ev.Kind == session.EventDisconnected {
			t.Fatalf("disconnected: %s", ev.Reason)
		}
	default:
	}
	n.Close() // says BYE and LEAVE
	if got := mgr.Running(); got > 1 {
		t.Fatalf("%d instances running", got)
	}
}

// startRealServer runs a real lobby server and game instance manager on loopback serving the
// stages of cat (seed 7), stopped at the test's end, and returns the lobby's address and the
// manager.
func startRealServer(t *testing.T, cat *stagefile.Catalogue) (string, *instance.Manager) {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	mgr, err := instance.NewManager(instance.Config{Host: "127.0.0.1", Stages: cat, Seed: func() uint64 { return 7 }, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := lobbyserver.NewServer(lobbyserver.ServerConfig{ServerUUID: uuid.New(), MaxLobbies: 4, IdleTimeout: time.Minute, Starter: mgr, Logger: quiet,
		Stages: cat})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		mgr.Shutdown(sctx)
	})
	return ln.Addr().String(), mgr
}
