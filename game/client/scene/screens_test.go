package scene

import (
	"errors"
	"testing"
)

// TestEveryScreenListed: every scene has a screen and a name of its own (screens), so a scene
// added to the list of IDs without its screen fails here.
func TestEveryScreenListed(t *testing.T) {
	seen := map[string]ID{}
	for id := ID(0); id < NumScenes; id++ {
		if screens[id].screen == nil {
			t.Errorf("scene %d has no screen in screens", id)
		}
		name := id.String()
		if screens[id].name == "" {
			t.Errorf("scene %d has no name in screens", id)
		} else if prev, dup := seen[name]; dup {
			t.Errorf("scenes %d and %d are both named %q", prev, id, name)
		}
		seen[name] = id
	}
	if got := NumScenes.String(); got != "scene(13)" {
		t.Errorf("NumScenes.String() = %q, want scene(13): a new scene is listed before NumScenes", got)
	}
}

// at returns a machine on scene id, the lobby connection open when connected: a screen tested
// alone, without the flow that leads to it.
func at(id ID, connected bool) *Machine {
	m := New("h:4242", Auto{})
	m.Scene, m.connected = id, connected
	return m
}

// ignores checks that the screen of m takes none of evs: the scene stays, no command comes.
func ignores(t *testing.T, m *Machine, evs ...EventKind) {
	t.Helper()
	for _, k := range evs {
		id := m.Scene
		if cmds := m.Handle(Event{Kind: k, Code: "ABCDE", Path: "/r/x.rtr"}); m.Scene != id || len(cmds) != 0 {
			t.Fatalf("%v took event %d: now %v, commands %v", id, k, m.Scene, kinds(cmds))
		}
	}
}

var errRefused = errors.New("connection refused")

// TestRegisterTwicePanics: a second screen for a scene, or a second scene of one name, is a
// mistake found at start-up, not a screen silently replaced.
func TestRegisterTwicePanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		id   ID
		as   string
	}{{"id twice", Controls, "controls-again"}, {"name twice", Controls, "title"}, {"past the scenes", NumScenes, "x"}} {
		t.Run(tc.name, func(t *testing.T) {
			saved := screens
			defer func() { screens = saved }()
			if tc.name == "name twice" {
				screens[tc.id].screen, screens[tc.id].name = nil, ""
			}
			defer func() {
				if recover() == nil {
					t.Errorf("register(%d, %q) did not panic", tc.id, tc.as)
				}
			}()
			register(tc.id, tc.as, controlsScreen{})
		})
	}
}
