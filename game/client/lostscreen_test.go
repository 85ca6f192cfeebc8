//go:build display

package client

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/game/client/netflow"
	"github.com/rtype/rtype/game/client/scene"
)

// testApp is a client app on no display-bound window (menus and flow only), closed with t.
func testApp(t *testing.T) *app {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Skip("needs a display (run under xvfb-run)")
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	a, err := newApp(ctx, Config{Mute: true, ConfigDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Server: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	return a
}

// TestLostOffersRejoinOnlyWhileTheLobbyAnswers (issue 30, item 3): a lost game with a valid
// ticket offers "Retry the connection", not a rejoin, until the lobby server answers the
// check; retrying checks again (the scene's busy label); the rejoin is offered once it
// answered; the first item is never taken for a rejoin when it is not one.
func TestLostOffersRejoinOnlyWhileTheLobbyAnswers(t *testing.T) {
	a := testApp(t)
	a.m.Scene, a.m.Addr = scene.Lost, "127.0.0.1:1"
	items, choices := a.lostMenu()
	if len(items) != 1 || choices[0] != lostBack {
		t.Fatalf("no ticket: items %q, want only back", items)
	}
	a.ux.ticket = netflow.Ticket{Server: "127.0.0.1:1", Code: "XYZ12", Slot: 1, Key: make([]byte, 16), Expires: time.Now().Add(time.Minute)}
	a.ux.haveTicket = true
	a.m.Error = scene.NoAnswer + "connection refused"
	items, choices = a.lostMenu()
	if len(items) != 2 || choices[0] != lostRetry || !strings.Contains(strings.ToLower(items[0]), "retry") {
		t.Fatalf("ticket, lobby silent: items %q %v, want a retry of the connection first", items, choices)
	}
	a.lostChoose(choices[0])
	if a.m.Scene != scene.Lost || a.m.Busy != scene.CheckingServer || a.m.Error != "" {
		t.Fatalf("retry: scene %v busy %q error %q, want the Lost screen checking the server", a.m.Scene, a.m.Busy, a.m.Error)
	}
	if _, c := a.lostMenu(); c[0] == lostRejoin {
		t.Fatal("a rejoin offered while the check is under way")
	}
	a.handle(scene.Event{Kind: scene.EvConnected})
	items, choices = a.lostMenu()
	if !a.m.LobbyAnswers || choices[0] != lostRejoin || items[0] != scene.RejoinLabel("XYZ12", 1) {
		t.Fatalf("lobby answered: items %q, want the rejoin first", items)
	}
	a.ux.ticket.Expires = time.Now().Add(-time.Second)
	if _, c := a.lostMenu(); c[0] != lostBack {
		t.Fatal("an expired ticket still offers a rejoin or a retry")
	}
	a.lostChoose(lostBack)
	if a.m.Scene != scene.Title {
		t.Fatalf("back: scene %v, want the title", a.m.Scene)
	}
}
