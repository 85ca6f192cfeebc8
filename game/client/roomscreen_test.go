//go:build display

package client

import (
	"slices"
	"strings"
	"testing"

	"github.com/rtype/rtype/game/stagefile"
)

// livesItemOf is the room menu's infinite-lives item ("" without one).
func livesItemOf(items []string) string {
	i := slices.IndexFunc(items, func(s string) bool { return strings.HasPrefix(s, livesItem) })
	if i < 0 {
		return ""
	}
	return items[i]
}

// TestRoomOffersInfiniteLivesToASoloOwner (issue 30, practice with infinite lives): the owner
// of a solo lobby that plays one stage has the trainer's item, which says the lobby's choice;
// a lobby of two, an arcade run and a member who is not the owner have none.
func TestRoomOffersInfiniteLivesToASoloOwner(t *testing.T) {
	a := testApp(t)
	a.net.SetName("alice")
	a.members, a.membersAt, a.roomStage = []string{"alice"}, 1<<30, "stage1"
	it := livesItemOf(a.roomItems())
	if it == "" || strings.Contains(it, infiniteLives) {
		t.Fatalf("solo owner: lives item %q, want one with the level's lives", it)
	}
	a.roomInfinite = true
	if it := livesItemOf(a.roomItems()); !strings.Contains(it, infiniteLives) {
		t.Fatalf("infinite lives on: lives item %q does not say so", it)
	}
	a.roomStage = stagefile.Arcade
	if it := livesItemOf(a.roomItems()); it != "" {
		t.Fatalf("arcade lobby: lives item %q", it)
	}
	a.roomStage, a.members = "stage1", []string{"alice", "bob"}
	if it := livesItemOf(a.roomItems()); it != "" {
		t.Fatalf("two members: lives item %q", it)
	}
	a.members = []string{"bob"}
	if it := livesItemOf(a.roomItems()); it != "" {
		t.Fatalf("not the owner: lives item %q", it)
	}
}
