package lobbyserver

import (
	"strings"
	"testing"

	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
)

// SET_LIVES (docs/PROTOCOL.md §2.4.17), in virtual time: the owner of a solo lobby chooses
// infinite lives; every member hears LIVES; the game started is a practice with infinite lives
// (not kept, GameSpec.Practice); a second member or another stage takes the lobby back to the
// level's lives, an arcade lobby and a lobby of two refuse it, and a new member of a lobby with
// infinite lives is told so with the lobby's settings.
func TestCoreSetLives(t *testing.T) {
	v := newVLobby(t, ServerConfig{Hall: vhall{}})
	a := hallPlayer(v, "10.0.0.1", "alice")
	code := a.ok(lobby.CmdJoinLobby, "", "short")
	a.take()
	if got := a.fail(lobby.CmdSetLives, "forever"); got != "SET_LIVES takes one argument: infinite or level" {
		t.Errorf("SET_LIVES forever: %q", got)
	}
	a.ok(lobby.CmdSetLives, lobby.LivesInfinite)
	if got := a.pushes(lobby.PushLives); len(got) != 1 || got[0] != code+",infinite" {
		t.Fatalf("LIVES pushes after SET_LIVES infinite: %q", got)
	}
	a.ok(lobby.CmdSetLives, lobby.LivesInfinite) // no change: no push
	if got := a.pushes(lobby.PushLives); len(got) != 0 {
		t.Fatalf("LIVES pushes after the same choice: %q", got)
	}
	w := hallPlayer(v, "10.0.0.3", "wendy") // joins: told with the lobby's settings
	w.ok(lobby.CmdJoinLobby, code)
	if got := w.pushes(lobby.PushLives); len(got) != 0 {
		t.Fatalf("a second member got %q: the lobby is no longer solo, its lives are the level's", got)
	}
	if got := a.pushes(lobby.PushLives); len(got) != 1 || got[0] != code+",level" {
		t.Fatalf("the owner when a second member joined: LIVES %q, want level", got)
	}
	if got := a.fail(lobby.CmdSetLives, lobby.LivesInfinite); got != "practice is for a solo lobby (2 players here)" {
		t.Errorf("SET_LIVES infinite with two members: %q", got)
	}
	w.ok(lobby.CmdLeave)
	a.ok(lobby.CmdSetLives, lobby.LivesInfinite)
	a.take()
	a.ok(lobby.CmdSetStage, "stage1") // another stage: the level's lives
	if got := a.pushes(lobby.PushLives); len(got) != 1 || got[0] != code+",level" {
		t.Fatalf("LIVES after SET_STAGE: %q", got)
	}
	a.ok(lobby.CmdSetStage, stagefile.Arcade)
	if got := a.fail(lobby.CmdSetLives, lobby.LivesInfinite); got != "an arcade run starts at its beginning: practice plays one stage" {
		t.Errorf("SET_LIVES infinite in an arcade lobby: %q", got)
	}
	a.ok(lobby.CmdSetStage, "short")
	a.ok(lobby.CmdSetLives, lobby.LivesInfinite)
	a.ok(lobby.CmdStart)
	if s := v.st.specs[len(v.st.specs)-1]; !s.InfiniteLives || !s.Practice() || s.Section != 0 {
		t.Fatalf("the spec: infinite lives %v, practice %v, section %d", s.InfiniteLives, s.Practice(), s.Section)
	}
	if got := a.fail(lobby.CmdSetLives, lobby.LivesLevel); got != "lobby "+code+" is running a game" {
		t.Errorf("SET_LIVES while running: %q", got)
	}
	a.take()
	v.core.GameEnded(v.now, v.games[len(v.games)-1], 0)
	v.collect()
	for _, l := range a.take() {
		if strings.HasPrefix(l, lobby.PushGameID+" ") {
			t.Fatalf("a game with infinite lives was kept: %q", l)
		}
	}
}

// RETRY (docs/PROTOCOL.md §2.4.18), in virtual time: the owner of a solo lobby in a game asks
// for it again; the 200 comes first, its player leaves the running game (Drop, left), and when
// that game ends (END) the lobby starts the next with the same settings by itself (START with a
// new token), with no START line. A waiting solo lobby starts at once; a lobby of two, a
// player who is not the owner and a lobby already restarting are refused.
func TestCoreRetry(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	a := hallPlayer(v, "10.0.0.1", "alice")
	code := a.ok(lobby.CmdJoinLobby, "", "short")
	a.ok(lobby.CmdSetSection, "1")
	a.ok(lobby.CmdSetLives, lobby.LivesInfinite)
	a.ok(lobby.CmdStart)
	first := a.pushes(lobby.PushStart)
	if len(first) != 1 {
		t.Fatalf("START pushes: %q", first)
	}
	g := v.st.starts[0].game.(*vgame)
	a.ok(lobby.CmdRetry)
	if len(g.drops) != 1 || g.drops[0].left != true || g.drops[0].id.String() != a.user {
		t.Fatalf("the running game's drops after RETRY: %+v, want alice leaving", g.drops)
	}
	if got := a.fail(lobby.CmdRetry); got != "lobby "+code+" is starting a game" {
		t.Errorf("a second RETRY before the game ended: %q", got)
	}
	if len(v.st.specs) != 1 {
		t.Fatalf("a game started before the running one ended: %d starts", len(v.st.specs))
	}
	a.take()
	v.core.GameEnded(v.now, g, 2)
	v.collect()
	got := a.take()
	if len(got) != 2 || !strings.HasPrefix(got[0], lobby.PushEnd+" "+vSrv+";2") || !strings.HasPrefix(got[1], lobby.PushStart+" "+vSrv+";") {
		t.Fatalf("after the retried game ended: %q, want END then START", got)
	}
	if got[1] == first[0] {
		t.Fatal("the next game's START repeats the first's token and key")
	}
	if len(v.st.specs) != 2 {
		t.Fatalf("%d starts, want 2", len(v.st.specs))
	}
	if s0, s1 := v.st.specs[0], v.st.specs[1]; s1.Stage != s0.Stage || s1.Section != 1 || !s1.InfiniteLives || s1.ID == s0.ID {
		t.Fatalf("the next game: %+v, want the first's settings and a new id", s1)
	}
	// A waiting solo lobby: RETRY starts it.
	v.core.GameEnded(v.now, v.games[len(v.games)-1], 0)
	v.collect()
	a.take()
	a.ok(lobby.CmdRetry)
	if got := a.pushes(lobby.PushStart); len(got) != 1 || len(v.st.specs) != 3 {
		t.Fatalf("RETRY in a waiting lobby: START %q, %d starts", got, len(v.st.specs))
	}
	// Two players: refused, for the owner and the other.
	b := hallPlayer(v, "10.0.0.2", "bob")
	c := hallPlayer(v, "10.0.0.3", "carol")
	bcode := b.ok(lobby.CmdJoinLobby, "", "short")
	c.ok(lobby.CmdJoinLobby, bcode)
	if got := b.fail(lobby.CmdRetry); got != "retry is for a solo game (2 players here)" {
		t.Errorf("RETRY by the owner of two: %q", got)
	}
	if got := c.fail(lobby.CmdRetry); got != "only the lobby owner (bob) may retry" {
		t.Errorf("RETRY by a member: %q", got)
	}
	if got := hallPlayer(v, "10.0.0.4", "dave").fail(lobby.CmdRetry); got != "not in a lobby" {
		t.Errorf("RETRY outside a lobby: %q", got)
	}
}
