package instance

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
)

// Players handed the game's port by START whose HERE never comes (their UDP is blocked) are
// dropped after HereTimeout, and the server says so once per game, at warn level, naming the
// UDP port as the likely cause and how many players it concerns (in virtual time).
func TestNoHereLoggedOncePerGame(t *testing.T) {
	stage, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	g, err := NewGame(GameConfig{Code: "TEST", Members: members(3), Stage: stage, Seed: 1, HereTimeout: 2 * time.Second, Logger: log}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for now := time.Duration(0); now < 3*time.Second; now += game.TickPeriod {
		g.Tick(now)
		g.Outbox().Reset()
	}
	lines := strings.Count(buf.String(), "never said HERE")
	if lines != 1 {
		t.Fatalf("%d warn lines about missing HERE, want 1:\n%s", lines, buf.String())
	}
	for _, want := range []string{"UDP port", "players_without_here=3", "level=WARN"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("log %q does not say %q", buf.String(), want)
		}
	}
	for i, st := range g.Stats() {
		if !st.Gone {
			t.Errorf("player %d still in the game without HERE: %+v", i, st)
		}
	}
}

// A client that gives up waiting for WELCOME (its UDP is blocked) closes its lobby connection
// before the server's HERE timeout: the host still gets the warning.
func TestNoHereLoggedWhenTheClientGivesUp(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	stage, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	ms := members(1)
	g, err := NewGame(GameConfig{Code: "TEST", Members: ms, Stage: stage, Seed: 1, HereTimeout: 20 * time.Second, Logger: log}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for now := time.Duration(0); now < time.Second; now += game.TickPeriod {
		g.Tick(now)
		g.Outbox().Reset()
	}
	g.Drop(time.Second, ms[0].UUID, false)
	if !strings.Contains(buf.String(), "never said HERE") {
		t.Fatalf("no warning for a player whose HERE never came before its lobby connection closed:\n%s", buf.String())
	}
}
