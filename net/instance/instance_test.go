package instance

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/lobby"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func members(n int) []lobby.Member {
	var ms []lobby.Member
	for i := 0; i < n; i++ {
		ms = append(ms, lobby.Member{UUID: uuid.New(), Name: "p", Slot: i, Token: uint32(1000 + i)})
	}
	return ms
}

// A panic inside one game's simulation ends that game as aborted (GAME_END to its players) and
// leaves the other instances running.
func TestPanicEndsOnlyThatGame(t *testing.T) {
	stage, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	stepHook = func(in *Instance) {
		if in.code == "BOOM" && in.sim.Tick() == 30 {
			panic("injected fault")
		}
	}
	defer func() { stepHook = nil }()
	m := NewManager(Config{Host: "127.0.0.1", Stage: stage, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	bad, err := m.StartGame("BOOM", members(2))
	if err != nil {
		t.Fatal(err)
	}
	good, err := m.StartGame("FINE", members(2))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-bad.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("the game that panicked did not end")
	}
	if r := bad.Result(); r != uint8(game.ResultAborted) {
		t.Errorf("result %d, want aborted (2)", r)
	}
	gi := good.(*Instance)
	var t1 uint32
	gi.View(func(s *game.Sim) { t1 = uint32(s.Tick()) })
	time.Sleep(200 * time.Millisecond)
	var t2 uint32
	gi.View(func(s *game.Sim) { t2 = uint32(s.Tick()) })
	select {
	case <-good.Done():
		t.Fatal("the other game ended too")
	default:
	}
	if t2 <= t1 {
		t.Errorf("the other game stopped ticking: tick %d then %d", t1, t2)
	}
	if m.Running() != 1 {
		t.Errorf("%d instances running, want 1", m.Running())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := m.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if r := good.Result(); r != uint8(game.ResultAborted) {
		t.Errorf("shutdown result %d, want aborted", r)
	}
}
