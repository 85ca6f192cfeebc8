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
