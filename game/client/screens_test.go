//go:build display

package client

import (
	"testing"

	"github.com/rtype/rtype/game/client/scene"
)

// TestEveryScreenListed: every scene has a client screen (screens), so a scene added to
// package scene without its screen here fails, instead of showing an empty picture.
func TestEveryScreenListed(t *testing.T) {
	for id := scene.ID(0); id < scene.NumScenes; id++ {
		if screens[id] == nil {
			t.Errorf("scene %v has no screen in screens", id)
		}
	}
	if _, ok := screenOf(scene.NumScenes).(noScreen); !ok {
		t.Error("an ID past the scenes has a screen")
	}
}
