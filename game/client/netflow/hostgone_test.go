package netflow

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/net/session"
)

// A game host that dies under a split server (docs/DEPLOY.md): its game goes silent and the
// lobby pushes END. The client leaves the game about a second later and the Lost screen says
// the game's host stopped answering, on real sockets end to end.
func TestHostGoneNoticedSoon(t *testing.T) {
	addr, endGames, _ := startLobbyConfig(t, nil)
	inst := startFakeInstance(t)

	n := NewRunner(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), "tester", "")
	var link Link
	n.dialSession = func(ctx context.Context, cfg session.Config, stage *game.Stage) (Link, error) {
		cfg.Addr = inst.conn.LocalAddr().String()
		s, err := session.Dial(ctx, cfg)
		if err != nil {
			return nil, err
		}
		link = NewSessionLink(s, stage)
		return link, nil
	}
	defer n.Close()
	m := scene.New(addr, scene.Auto{On: true, Start: true})
	for _, c := range m.Begin() {
		n.Exec(c)
	}
	drive(t, m, n, scene.Playing)
	time.Sleep(200 * time.Millisecond) // a few snapshots

	gone := time.Now()
	inst.killed.Store(true) // the host is gone: its game is silent...
	endGames()              // ...and the lobby ends the game (END 2)
	select {
	case <-link.Done():
	case <-time.After(5 * time.Second):
		t.Fatalf("the session still runs %v after the lobby's END (want about %v)", time.Since(gone), session.InterruptedAfter)
	}
	// The game loop hands the session's end to the scene (client.Update): here, by hand.
	var reason string
	for ev := range link.Events() {
		if ev.Kind == session.EventDisconnected {
			reason = ev.Reason
		}
	}
	if !strings.HasPrefix(reason, session.HostGoneReason) {
		t.Fatalf("session ended with %q, want %q", reason, session.HostGoneReason)
	}
	for _, c := range m.Handle(scene.Event{Kind: scene.EvDisconnected, Reason: reason}) {
		n.Exec(c)
	}
	if want := "The game's host stopped answering: the lobby ended the game."; m.Scene != scene.Lost || m.Reason != want {
		t.Fatalf("scene %v says %q, want Lost saying %q", m.Scene, m.Reason, want)
	}
	t.Logf("session ended %v after the END", time.Since(gone).Round(time.Millisecond))
}
