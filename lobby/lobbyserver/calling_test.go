package lobbyserver

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
)

// Asynchronous rejoins and spectators (ServerConfig.AsyncStart, calling.go), on the Core in
// virtual time: the test is the runtime that makes the GameCalls.

// called hands the Core the result of the i-th GameCall it left.
func (v *vlobby) called(i int, err error) {
	v.t.Helper()
	if i >= len(v.callQ) {
		v.t.Fatalf("call %d: the Core left %d GameCalls", i, len(v.callQ))
	}
	v.core.Called(v.now, v.callQ[i].Call.ID, err)
	v.collect()
}

// runningLost starts a two-player lobby (alice owns it) with AsyncStart, bob's connection
// then closes: it returns the lobby's code, its game and bob's session key (slot 1).
func runningLost(t *testing.T, v *vlobby) (alice *vconn, code string, g *vgame, key [16]byte) {
	t.Helper()
	a, b := v.player("192.0.2.1", "alice"), v.player("192.0.2.2", "bob")
	code = lobbyOf(a, b)
	a.send("START " + a.user + ";")
	g = &vgame{port: 7000}
	key = v.startQ[0].Start.Spec.Members[1].Key
	v.started(0, g, nil)
	v.core.Closed(v.now, b.id)
	v.collect()
	a.take()
	return a, code, g, key
}

// rejoinLine is bob's REJOIN of slot 1 on connection c.
func rejoinLine(c *vconn, code string, key [16]byte) string {
	return lobby.CmdRejoin + " " + c.user + ";" + code + ",1," + lobby.RejoinProof(key, code, 1, uuid.MustParse(c.user))
}

// TestCoreAsyncRejoin: REJOIN leaves a GameCall and no response; the Core does not call the
// game; other connections go on meanwhile, the rejoiner's later lines wait, and a second rejoin
// of the same slot is refused. The result gives the rejoiner what a synchronous rejoin gives
// (200, MEMBERS, settings, START with the call's token and key), then its waiting lines'
// responses; a failed call gives today's refusal.
func TestCoreAsyncRejoin(t *testing.T) {
	v := newVLobby(t, ServerConfig{AsyncStart: true})
	a, code, g, key := runningLost(t, v)
	b2 := v.player("192.0.2.2", "bob")
	b2.take()
	if got := b2.send(rejoinLine(b2, code, key)); len(got) != 0 {
		t.Fatalf("REJOIN answered before the game: %q", got)
	}
	if len(v.callQ) != 1 || len(g.rejoins) != 0 {
		t.Fatalf("%d GameCalls, %d Rejoin calls by the Core; want 1 and none", len(v.callQ), len(g.rejoins))
	}
	call := v.callQ[0].Call
	if v.callQ[0].Conn != b2.id || call.Spectate || call.Game != g || call.Member.Slot != 1 || call.Member.UUID.String() != b2.user {
		t.Fatalf("GameCall %+v for connection %d", call, v.callQ[0].Conn)
	}
	// Others go on: alice chats; another bob's rejoin of the same slot is refused.
	a.ok(lobby.CmdChat, "where are you")
	b3 := v.player("192.0.2.3", "bob")
	if got := b3.fail(lobby.CmdRejoin, code, "1", lobby.RejoinProof(key, code, 1, uuid.MustParse(b3.user))); !strings.HasPrefix(got, "slot 1 of lobby "+code+" is not waiting for a rejoin") {
		t.Fatalf("a second rejoin of the slot while one is out: %q", got)
	}
	if got := b2.send("GET_LOBBIES " + b2.user + ";"); len(got) != 0 {
		t.Fatalf("the rejoiner's next line answered before its REJOIN: %q", got)
	}
	if err := call.Call(); err != nil { // what the runtime does
		t.Fatal(err)
	}
	a.take()
	v.called(0, nil)
	m := call.Member
	got := b2.take()
	if len(got) != 5 || got[0] != "200 "+vSrv+" "+code+"\r\n" || got[1] != "MEMBERS "+vSrv+";"+code+",alice,bob\r\n" ||
		got[3] != "START "+vSrv+";7000,"+strconv.FormatUint(uint64(m.Token), 10)+","+hexKey(m.Key)+"\r\n" ||
		!strings.HasPrefix(got[4], "200 "+vSrv+" (") {
		t.Fatalf("after the call: %q; want 200, MEMBERS, STAGE, START, then the waiting GET_LOBBIES's response", got)
	}
	if got := a.pushes(lobby.PushMembers); len(got) != 1 || got[0] != code+",alice,bob" {
		t.Fatalf("alice's MEMBERS: %q", got)
	}
	// The call's key proves the next rejoin; a failed call is today's refusal.
	v.core.Closed(v.now, b2.id)
	b4 := v.player("192.0.2.2", "bob")
	b4.take()
	b4.send(rejoinLine(b4, code, m.Key))
	v.called(1, errors.New("not waiting"))
	if got := b4.take(); len(got) != 1 || !strings.HasPrefix(got[0], "500 "+vSrv+" slot 1 of lobby "+code+" is not waiting for a rejoin") {
		t.Fatalf("failed call: %q", got)
	}
}

// TestCoreAsyncRejoinRaces: a rejoin that succeeds for a connection closed meanwhile, or after
// the Core gave up (CallTimeout: 500; the slot takes no other rejoin until the result), is undone — the game drops the slot as lost, and the
// player rejoins with the proof it had; a rejoin whose game ended meanwhile is refused as
// REJOIN after END is.
func TestCoreAsyncRejoinRaces(t *testing.T) {
	v := newVLobby(t, ServerConfig{AsyncStart: true})
	_, code, g, key := runningLost(t, v)

	b2 := v.player("192.0.2.2", "bob")
	b2.send(rejoinLine(b2, code, key))
	v.core.Closed(v.now, b2.id)
	v.collect()
	v.called(0, nil)
	if len(g.drops) != 2 || g.drops[1].id.String() != b2.user || g.drops[1].left {
		t.Fatalf("drops %+v; want the late rejoiner dropped as lost", g.drops)
	}

	b3 := v.player("192.0.2.2", "bob")
	b3.take()
	b3.send(rejoinLine(b3, code, key)) // the old proof still works
	v.advance(CallTimeout - 1)
	if got := b3.take(); len(got) != 0 {
		t.Fatalf("before CallTimeout: %q", got)
	}
	v.advance(1)
	if got := b3.take(); len(got) != 1 || got[0] != "500 "+vSrv+" cannot rejoin slot 1 of lobby "+code+": "+errCallTimeout.Error()+"\r\n" {
		t.Fatalf("at CallTimeout: %q", got)
	}
	b3.ok(lobby.CmdGetLobbies) // its lines are handled again
	b3.take()
	if got := b3.fail(lobby.CmdRejoin, code, "1", lobby.RejoinProof(key, code, 1, uuid.MustParse(b3.user))); !strings.HasPrefix(got, "slot 1 of lobby "+code+" is not waiting") {
		t.Fatalf("a rejoin of the slot while the timed-out call is still out: %q", got)
	}
	b3.take()
	v.called(1, nil)
	if got := b3.take(); len(got) != 0 || len(g.drops) != 3 || g.drops[2].id.String() != b3.user || g.drops[2].left {
		t.Fatalf("late success after the timeout: %q to the connection, drops %+v", got, g.drops)
	}

	b3.send(rejoinLine(b3, code, key))
	v.core.GameEnded(v.now, g, 0)
	v.collect()
	v.called(2, nil)
	if got := b3.take(); len(got) != 1 || got[0] != "500 "+vSrv+" lobby "+code+" is not running a game\r\n" {
		t.Fatalf("rejoin whose game ended meanwhile: %q", got)
	}
	if len(g.drops) != 3 {
		t.Fatalf("drops of a game over: %+v", g.drops)
	}
}

// TestCoreAsyncSpectate: JOIN_LOBBY to a running lobby leaves a Spectate GameCall; the result
// gives what a synchronous spectator gets (200, MEMBERS, settings, SPECTATE); a spectator whose
// connection closed meanwhile is dropped by the game, and its place counts meanwhile
// (MaxSpectators); one whose game ended meanwhile is told to join again.
func TestCoreAsyncSpectate(t *testing.T) {
	v := newVLobby(t, ServerConfig{AsyncStart: true, MaxConnsPerAddr: 100})
	a, code, g, _ := runningLost(t, v)
	s := v.player("192.0.2.3", "s")
	s.take()
	if got := s.send(lobby.CmdJoinLobby + " " + s.user + ";" + code); len(got) != 0 || len(g.spectates) != 0 {
		t.Fatalf("JOIN_LOBBY answered before the game: %q (Spectate calls %d)", got, len(g.spectates))
	}
	if c := v.callQ[0].Call; !c.Spectate || c.Member.Slot != -1 || c.Member.UUID.String() != s.user {
		t.Fatalf("GameCall %+v", c)
	}
	a.ok(lobby.CmdChat, "hi")
	v.called(0, nil)
	m := v.callQ[0].Call.Member
	got := s.take()
	if len(got) != 4 || got[0] != "200 "+vSrv+" "+code+"\r\n" || got[1] != "MEMBERS "+vSrv+";"+code+",alice\r\n" ||
		got[3] != "SPECTATE "+vSrv+";7000,"+strconv.FormatUint(uint64(m.Token), 10)+","+hexKey(m.Key)+"\r\n" {
		t.Fatalf("spectator after the call: %q", got)
	}

	// MaxSpectators counts the calls out.
	var out []*vconn
	for i := 1; i < handoff.MaxSpectators; i++ {
		c := v.player("192.0.2."+strconv.Itoa(10+i), "w"+strconv.Itoa(i)) // MaxSpectatorsPerAddr
		c.send(lobby.CmdJoinLobby + " " + c.user + ";" + code)
		c.take()
		out = append(out, c)
	}
	late := v.player("192.0.2.5", "late")
	if got := late.fail(lobby.CmdJoinLobby, code); got != "lobby "+code+" is running a game and has 8 spectators (max)" {
		t.Fatalf("one spectator too many while calls are out: %q", got)
	}
	v.core.Closed(v.now, out[0].id)
	v.collect()
	v.called(1, nil)
	if n := len(g.drops); n != 2 || g.drops[1].id.String() != out[0].user || !g.drops[1].left {
		t.Fatalf("drops %+v; want the closed spectator dropped", g.drops)
	}
	v.core.GameEnded(v.now, g, 1)
	v.collect()
	v.called(2, nil)
	if got := out[1].take(); len(got) != 1 || got[0] != "500 "+vSrv+" cannot watch lobby "+code+": its game ended: join again\r\n" {
		t.Fatalf("spectator whose game ended meanwhile: %q", got)
	}
}

// TestCoreAsyncRejoinHeldLines: the rejoiner's lines behind its REJOIN wait, at most
// MaxHeldLines; one more closes the connection, and the game's late success is then undone.
func TestCoreAsyncRejoinHeldLines(t *testing.T) {
	v := newVLobby(t, ServerConfig{AsyncStart: true, CommandRate: 1000})
	_, code, g, key := runningLost(t, v)
	b2 := v.player("192.0.2.2", "bob")
	b2.take()
	b2.send(rejoinLine(b2, code, key))
	for range MaxHeldLines {
		b2.send("GET_LOBBIES " + b2.user + ";")
	}
	if got := b2.take(); len(got) != 0 || b2.closed {
		t.Fatalf("with %d lines held: %q", MaxHeldLines, got)
	}
	got := b2.send("GET_LOBBIES " + b2.user + ";")
	if len(got) != 1 || got[0] != "500 "+vSrv+" too many commands (16) while the game answers, closing connection\r\n" || !b2.closed {
		t.Fatalf("one more line: %q (closed %v)", got, b2.closed)
	}
	v.called(0, nil)
	if len(g.drops) != 2 || g.drops[1].id.String() != b2.user || g.drops[1].left {
		t.Fatalf("drops %+v; want the closed rejoiner's slot lost again", g.drops)
	}
}
