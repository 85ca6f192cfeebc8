package instance

import (
	"context"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/replay"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/wire"
)

// StartGame plays the stage the lobby names, resolved through Config.Stages; an unknown name
// starts nothing.
func TestStartGamePlaysTheLobbysStage(t *testing.T) {
	cat, err := stagefile.LoadCatalogue("stage1", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewManager(Config{Host: "127.0.0.1", Stages: cat, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := m.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	}()
	for _, name := range []string{"short", "stage1", ""} {
		g, err := m.StartGame(handoff.GameSpec{Code: "STG" + name, Stage: name, Members: members(1)})
		if err != nil {
			t.Fatalf("StartGame(stage %q): %v", name, err)
		}
		want := game.StageOf(cat.Default())
		if name != "" {
			want = game.StageOf(cat.ByName(name))
		}
		var got *game.Stage
		g.(*Instance).View(func(s *game.Sim) { got = s.Stage() })
		if got != want {
			t.Errorf("stage %q: the game plays %q, want %q", name, got.Name, want.Name)
		}
		// Its replay names the stage by the lobby's name; an embedded stage is not copied in.
		r, err := replay.Decode(g.(*Instance).Replay())
		if err != nil {
			t.Fatalf("stage %q: replay: %v", name, err)
		}
		if r.Stage != name || r.StageHash != want.Hash() || (name != "") != (r.StageData == nil) || r.Protocol != wire.Version {
			t.Errorf("stage %q: replay header stage %q hash %s, %d bytes of stage data, protocol %d", name, r.Stage, r.StageHash, len(r.StageData), r.Protocol)
		}
	}
	if _, err := m.StartGame(handoff.GameSpec{Code: "NOPE", Stage: "nosuch", Members: members(1)}); err == nil || !strings.Contains(err.Error(), `unknown stage "nosuch"`) {
		t.Errorf("StartGame(unknown stage) = %v, want an unknown stage error", err)
	}
}

// TryView runs only when the game's lock is free, never waiting for it (a server query on the
// socket's reader must not wait for a tick).
func TestTryViewNeverWaits(t *testing.T) {
	cat, err := stagefile.LoadCatalogue("short", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewManager(Config{Host: "127.0.0.1", Stages: cat, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := m.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	}()
	g, err := m.StartGame(handoff.GameSpec{Code: "TRYV", Members: members(1)})
	if err != nil {
		t.Fatal(err)
	}
	in := g.(*Instance)
	ran := false
	in.mu.Lock() // as a tick holds it
	if in.TryView(func(*game.Sim) { ran = true }) || ran {
		t.Fatal("TryView ran while the game's lock was held")
	}
	in.mu.Unlock()
	// a tick may take the lock meanwhile: TryView runs at one of its tries once it is free
	for deadline := time.Now().Add(10 * time.Second); !in.TryView(func(*game.Sim) { ran = true }); {
		if time.Now().After(deadline) {
			t.Fatal("TryView never ran with the lock free")
		}
		runtime.Gosched()
	}
	if !ran {
		t.Fatal("TryView reported it ran, and did not")
	}
}
