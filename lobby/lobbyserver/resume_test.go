package lobbyserver

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
)

// adoptedSpec is the spec of a game an earlier run of the lobby started: two players, their
// keys 1.. and 2...
func adoptedSpec(code string) handoff.GameSpec {
	s := handoff.GameSpec{ID: uuid.New(), Code: code, Stage: "stage1", Difficulty: rules.DifficultyHard}
	for i, name := range []string{"alice", "bob"} {
		m := handoff.Member{UUID: uuid.New(), Name: name, Slot: i, Token: uint32(10 + i)}
		m.Key[0] = byte(i + 1)
		s.Members = append(s.Members, m)
	}
	return s
}

// TestCoreAdoptGameResume: a restarted lobby takes back a running game of its earlier run
// (AdoptGame): its lobby exists again, running, with nobody in it, watched (Out.Game), and a
// second game cannot take the same code. Its players, connected again with new UUIDs, RESUME
// their slots with the START's key: 200 <code>, MEMBERS to every member, STAGE; no START and no
// game call. Refusals: a wrong proof (another user's, or another slot's key), a slot the game
// does not have, a slot held by a connected member, no such lobby. A resumed player who leaves
// is dropped under its slot's UUID (the one the game knows); END reaches the resumed members,
// and the emptied lobby is removed.
func TestCoreAdoptGameResume(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	spec := adoptedSpec("K7QF2")
	g := &vgame{port: fakePort}
	if err := v.core.AdoptGame(v.now, spec, g); err != nil {
		t.Fatal(err)
	}
	v.collect()
	if len(v.games) != 1 || v.games[0] != g {
		t.Fatalf("games handed to the runtime: %v, want the adopted one", v.games)
	}
	if err := v.core.AdoptGame(v.now, adoptedSpec("K7QF2"), &vgame{}); err == nil {
		t.Fatal("a second game adopted under a taken code")
	}
	if err := v.core.AdoptGame(v.now, adoptedSpec("nope!"), &vgame{}); err == nil {
		t.Fatal("a game adopted under an invalid code")
	}
	a, b := v.player("192.0.2.1", "alice"), v.player("192.0.2.2", "bob")
	ua, ub := uuid.MustParse(a.user), uuid.MustParse(b.user)
	ka, kb := spec.Members[0].Key, spec.Members[1].Key
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ZZZZZ", "0", lobby.ResumeProof(ka, "ZZZZZ", 0, ua)}, "no lobby with code ZZZZZ"},
		{[]string{"K7QF2", "0", lobby.ResumeProof(ka, "K7QF2", 0, ub)}, "resume refused: wrong proof for slot 0"},
		{[]string{"K7QF2", "0", lobby.ResumeProof(kb, "K7QF2", 0, ua)}, "resume refused: wrong proof for slot 0"},
		{[]string{"K7QF2", "0", lobby.RejoinProof(ka, "K7QF2", 0, ua)}, "resume refused: wrong proof for slot 0"},
		{[]string{"K7QF2", "2", lobby.ResumeProof(ka, "K7QF2", 2, ua)}, "the game of lobby K7QF2 has no slot 2"},
		{[]string{"K7QF2", "7", lobby.ResumeProof(ka, "K7QF2", 0, ua)}, "invalid slot: 0 to 3"},
		{[]string{"K7QF2", "0", "XYZ"}, "invalid proof: 32 lowercase hex digits"},
	} {
		if got := a.fail(lobby.CmdResume, c.args...); got != c.want {
			t.Errorf("RESUME %v: %q, want %q", c.args, got, c.want)
		}
	}
	got := a.send("RESUME " + a.user + ";k7qf2,0," + lobby.ResumeProof(ka, "K7QF2", 0, ua))
	if len(got) < 3 || got[0] != "200 "+vSrv+" K7QF2\r\n" || got[1] != "MEMBERS "+vSrv+";K7QF2,alice\r\n" || !strings.HasPrefix(got[2], "STAGE "+vSrv+";K7QF2,stage1,") {
		t.Fatalf("RESUME: %q", got)
	}
	for _, l := range got {
		if strings.HasPrefix(l, "START ") {
			t.Fatalf("RESUME pushed %q: it gives no new session", l)
		}
	}
	if len(g.rejoins) != 0 || len(v.callQ) != 0 {
		t.Fatalf("RESUME called the game: %v %v", g.rejoins, v.callQ)
	}
	// Another connection cannot take slot 0 while alice's holds it, even with the key.
	a2 := v.player("192.0.2.1", "alice")
	if got := a2.fail(lobby.CmdResume, "K7QF2", "0", lobby.ResumeProof(ka, "K7QF2", 0, uuid.MustParse(a2.user))); got != "slot 0 of lobby K7QF2 is held by a connected member (alice)" {
		t.Fatalf("slot held: %q", got)
	}
	a.ok(lobby.CmdResume, "K7QF2", "0", lobby.ResumeProof(ka, "K7QF2", 0, ua)) // again: nothing changes
	b.ok(lobby.CmdResume, "K7QF2", "1", lobby.ResumeProof(kb, "K7QF2", 1, ub))
	if got := a.pushes(lobby.PushMembers); len(got) == 0 || got[len(got)-1] != "K7QF2,alice,bob" {
		t.Fatalf("alice's MEMBERS: %q", got)
	}
	// bob's connection closes: the game hears of its slot's player, not of bob's new UUID.
	v.core.Closed(v.now, b.id)
	if len(g.drops) != 1 || g.drops[0].id != spec.Members[1].UUID || g.drops[0].left {
		t.Fatalf("drops %+v, want slot 1's UUID %v, not left", g.drops, spec.Members[1].UUID)
	}
	a.take()
	v.core.GameEnded(v.now, g, 1)
	v.collect()
	if got := a.pushes(lobby.PushEnd); len(got) != 1 || got[0] != "1" {
		t.Fatalf("alice's END: %q", got)
	}
	a.ok(lobby.CmdLeave)
	if v.core.lobbies["K7QF2"] != nil {
		t.Fatal("the emptied lobby is still there")
	}
}

// TestCoreResumeStartedGame: RESUME works for a game this run started too (the Core itself asks
// nothing of the game; a host's game loses a player whose lobby connection closed, which then
// REJOINs instead): a player connected again resumes its slot; while its old connection is
// open the slot is held.
func TestCoreResumeStartedGame(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	a, b := v.player("192.0.2.1", "alice"), v.player("192.0.2.2", "bob")
	code := a.ok(lobby.CmdJoinLobby)
	b.ok(lobby.CmdJoinLobby, code)
	a.ok(lobby.CmdStart)
	key := v.st.starts[0].members[1].Key
	b2 := v.player("192.0.2.2", "bob2")
	if got := b2.fail(lobby.CmdResume, code, "1", lobby.ResumeProof(key, code, 1, uuid.MustParse(b2.user))); got != "slot 1 of lobby "+code+" is held by a connected member (bob)" {
		t.Fatalf("slot held by bob's open connection: %q", got)
	}
	v.core.Closed(v.now, b.id)
	b2.ok(lobby.CmdResume, code, "1", lobby.ResumeProof(key, code, 1, uuid.MustParse(b2.user)))
	if got := a.pushes(lobby.PushMembers); len(got) == 0 || got[len(got)-1] != code+",alice,bob2" {
		t.Fatalf("alice's MEMBERS: %q", got)
	}
}

// TestServerAdoptsBeforeServe: a game handed to Server.AdoptGame before Serve (a restarted
// lobby learns its hosts' games while it starts) is held and adopted when Serve begins: a
// client that connects RESUMEs it with lobby.Client.Resume and gets its END.
func TestServerAdoptsBeforeServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	spec := adoptedSpec("K7QF2")
	g := &fakeGame{port: fakePort, done: make(chan struct{}), dropCh: make(chan uuid.UUID, 16)}
	cfg := withStages(ServerConfig{Logger: testLogger(t)})
	s := NewServer(cfg)
	s.AdoptGame(spec, g)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ctx, ln) }()
	defer func() { cancel(); <-errc }()
	c, err := lobby.Dial(waitCtx(t), ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Authenticate("bob"); err != nil {
		t.Fatal(err)
	}
	if err := c.Resume("k7qf2", 1, spec.Members[1].Key); err != nil {
		t.Fatalf("RESUME of the adopted game: %v", err)
	}
	g.end(1)
	if r, err := c.WaitEnd(waitCtx(t)); err != nil || r != 1 {
		t.Fatalf("END after RESUME: %d %v, want 1", r, err)
	}
}

// TestCoreAdoptedGameRejoinSpectate: a game taken back by a restarted lobby is rejoined and
// watched as one it started: REJOIN with the slot's START key gives a new session (START push),
// JOIN_LOBBY of its code makes a spectator (SPECTATE push).
func TestCoreAdoptedGameRejoinSpectate(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	spec := adoptedSpec("K7QF2")
	g := &vgame{port: fakePort}
	if err := v.core.AdoptGame(v.now, spec, g); err != nil {
		t.Fatal(err)
	}
	v.collect()
	b := v.player("192.0.2.2", "bob")
	b.ok(lobby.CmdRejoin, "K7QF2", "1", lobby.RejoinProof(spec.Members[1].Key, "K7QF2", 1, uuid.MustParse(b.user)))
	if len(g.rejoins) != 1 || g.rejoins[0].Slot != 1 || g.rejoins[0].UUID.String() != b.user {
		t.Fatalf("rejoins %+v", g.rejoins)
	}
	if got := b.pushes(lobby.PushStart); len(got) != 1 {
		t.Fatalf("START pushes after REJOIN: %q", got)
	}
	w := v.player("192.0.2.3", "watcher")
	w.ok(lobby.CmdJoinLobby, "K7QF2")
	if got := w.pushes(lobby.PushSpectate); len(got) != 1 || len(g.spectates) != 1 {
		t.Fatalf("SPECTATE pushes %q, game spectators %v", got, g.spectates)
	}
}
