//go:build display

package client

import (
	"context"
	"image"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/rtype/rtype/game/client/scene"
)

// TestMenusRest: the menus animate (their clock runs and every frame is presented) for
// menuAwake after the last input, then rest: the clock stops and a frame is presented only
// when the picture changes (the selection moving, a chat line arriving in the lobby room), so
// a client left open on the title or in a lobby costs next to nothing.
func TestMenusRest(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("needs a display (run under xvfb-run)")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := newApp(ctx, Config{Mute: true, ConfigDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Server: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	b := image.Rect(0, 0, 1280, 720)
	a.m.Scene = scene.Title
	a.frameN, a.rest.lastInput = 1000, 1000-menuAwake+2 // two ticks before the rest
	for i := 0; i < 2; i++ {
		if !a.menuAnimating() || !a.menuPresent(b) {
			t.Fatalf("tick %d after the input: not animating and presented", menuAwake-2+i)
		}
		a.frameN++
	}
	if a.menuAnimating() {
		t.Fatalf("still animating %d ticks after the last input", menuAwake)
	}
	clock, scroll := a.rest.clock, a.scroll
	if !a.menuPresent(b) {
		t.Fatal("the first frame at rest is not presented")
	}
	for i := 0; i < 3; i++ {
		if a.menuPresent(b) {
			t.Fatalf("frame %d at rest presented though nothing changed", i)
		}
	}
	if a.rest.clock != clock || a.scroll != scroll {
		t.Errorf("the menus' clock or drift moved at rest: clock %d→%d, scroll %v→%v", clock, a.rest.clock, scroll, a.scroll)
	}
	a.menu = 1 // a key moved the selection (at rest: the picture must follow at once)
	if !a.menuPresent(b) {
		t.Fatal("the moved selection is not presented")
	}
	if a.menuPresent(b) {
		t.Fatal("presented again without a change")
	}
	if !a.menuPresent(image.Rect(0, 0, 1920, 1080)) {
		t.Fatal("a resized window is not presented")
	}

	a.m.Scene, a.m.Code, a.menu = scene.Room, "K7QF2", 0 // the lobby room at rest
	a.members, a.membersAt = []string{"alice", "bob"}, 1<<30
	a.menuPresent(b)
	if a.menuPresent(b) {
		t.Fatal("the lobby room at rest presented without a change")
	}
	a.chat.lines = append(a.chat.lines, chatLine{from: "bob", text: "ready?", at: a.frameN})
	if !a.menuPresent(b) {
		t.Fatal("a chat line arriving at rest is not presented")
	}

	a.rest.lastInput = a.frameN // a key press: the menus animate again
	if !a.menuAnimating() || !a.menuPresent(b) || !a.menuPresent(b) {
		t.Fatal("no animation after a key press")
	}
}
