//go:build display

package client

import "testing"

// -autoplay alone goes to the game without keys: it creates a lobby and starts it; with -lobby
// it joins and leaves the start to the owner.
func TestAutoFlow(t *testing.T) {
	for _, c := range []struct {
		cfg       Config
		on, start bool
		lobby     string
	}{
		{Config{Autoplay: true}, true, true, ""},
		{Config{Autoplay: true, Lobby: "abcde"}, true, false, "ABCDE"},
		{Config{Start: true}, true, true, ""},
		{Config{}, false, false, ""},
	} {
		a := AutoFlow(c.cfg)
		if a.On != c.on || a.Start != c.start || a.Lobby != c.lobby {
			t.Errorf("AutoFlow(%+v) = %+v, want on=%v start=%v lobby=%q", c.cfg, a, c.on, c.start, c.lobby)
		}
	}
}

// A solo game pauses when its window loses the focus, once, and never for a window that never
// had it, a game with other players, an open menu or the autopilot.
func TestFocusPause(t *testing.T) {
	if !focusPause(true, false, true, false, false) {
		t.Error("a solo game did not pause on losing the focus")
	}
	for _, c := range [][5]bool{
		{false, false, true, false, false}, // never focused (Xvfb without a window manager)
		{true, true, true, false, false},   // still focused
		{true, false, false, false, false}, // several players
		{true, false, true, true, false},   // menu already open
		{true, false, true, false, true},   // autoplay
	} {
		if focusPause(c[0], c[1], c[2], c[3], c[4]) {
			t.Errorf("focusPause%v = true", c)
		}
	}
}
