//go:build display

package client

import (
	"slices"
	"testing"

	"github.com/rtype/rtype/game/client/scene"
)

// TestPauseRetryInSoloGames (issue 30, "Retry"): the pause menu of a solo game offers Retry,
// which leaves the game for the room, "Restarting" until the lobby's START push; a game of two
// players or a spectator's has no Retry.
func TestPauseRetryInSoloGames(t *testing.T) {
	a := testApp(t)
	a.m.Scene, a.m.MenuOpen = scene.Playing, true
	a.ux.names = []string{"alice", "bob"}
	if _, c := a.pauseMenu(); slices.Contains(c, pauseRetry) {
		t.Fatal("a two-player game offers Retry")
	}
	a.ux.names = []string{"alice"}
	a.m.Spectator = true
	if _, c := a.pauseMenu(); slices.Contains(c, pauseRetry) {
		t.Fatal("a spectator is offered Retry")
	}
	a.m.Spectator = false
	items, c := a.pauseMenu()
	i := slices.Index(c, pauseRetry)
	if i < 0 || items[i] != "Retry" || c[len(c)-1] != pauseLeave {
		t.Fatalf("solo game: pause menu %q, want Retry before Leave game", items)
	}
	if left := a.pauseChoose(pauseRetry); !left || a.m.Scene != scene.Room || a.m.Busy != "Restarting" || a.m.MenuOpen {
		t.Fatalf("Retry: left %v scene %v busy %q menu open %v, want the room restarting", left, a.m.Scene, a.m.Busy, a.m.MenuOpen)
	}
}
