package lobbyserver

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
)

// Asynchronous starts (ServerConfig.AsyncStart, starting.go), on the Core in virtual time: the
// test is the runtime that carries the StartRequests out.

// started hands the Core the result of the i-th StartRequest it left.
func (v *vlobby) started(i int, g handoff.Game, err error) {
	v.t.Helper()
	if i >= len(v.startQ) {
		v.t.Fatalf("start %d: the Core left %d StartRequests", i, len(v.startQ))
	}
	v.core.Started(v.now, v.startQ[i].Start.ID, g, err)
	v.collect()
}

// lobbyOf creates a lobby owned by the first of players, which the others join; it returns
// its code.
func lobbyOf(players ...*vconn) string {
	code := players[0].ok(lobby.CmdJoinLobby)
	for _, p := range players[1:] {
		p.ok(lobby.CmdJoinLobby, code)
	}
	for _, p := range players {
		p.take()
	}
	return code
}

// TestCoreAsyncStart: START leaves a StartRequest and no response; while the runtime carries it
// out, other lobbies start and play, the lobby's members chat and leave, a second START and a
// join are refused with the reason, the owner's later lines wait. The result gives the owner
// its 200 then its waiting lines' responses, START to the players still there, and drops from
// the game the player who left meanwhile.
func TestCoreAsyncStart(t *testing.T) {
	v := newVLobby(t, ServerConfig{AsyncStart: true})
	p0, p1, p2 := v.player("192.0.2.1", "p0"), v.player("192.0.2.2", "p1"), v.player("192.0.2.3", "p2")
	code := lobbyOf(p0, p1, p2)
	if got := p0.send("START " + p0.user + ";"); len(got) != 0 {
		t.Fatalf("START answered before the game started: %q", got)
	}
	if len(v.startQ) != 1 || len(v.st.specs) != 0 {
		t.Fatalf("%d StartRequests, %d Starter calls; want 1 request and no call (the runtime starts)", len(v.startQ), len(v.st.specs))
	}
	req := v.startQ[0]
	if req.Conn != p0.id || req.Start.Spec.Code != code || len(req.Start.Spec.Members) != 3 || req.Start.Spec.Members[2].Name != "p2" {
		t.Fatalf("StartRequest %+v for connection %d", req.Start, req.Conn)
	}

	// Another lobby goes on: it starts (its own request) and runs while the first one waits.
	q0, q1 := v.player("192.0.2.4", "q0"), v.player("192.0.2.5", "q1")
	lobbyOf(q0, q1)
	q0.send("START " + q0.user + ";")
	qg := &vgame{port: 7001}
	v.started(1, qg, nil)
	if got := q0.take(); len(got) != 2 || got[0] != "200 "+vSrv+" OK\r\n" || !strings.HasPrefix(got[1], "START "+vSrv+";7001,") {
		t.Fatalf("the other lobby's owner got %q", got)
	}
	if got := q1.pushes(lobby.PushStart); len(got) != 1 {
		t.Fatalf("the other lobby's player got START %q", got)
	}

	// Meanwhile in the starting lobby.
	p1.ok(lobby.CmdChat, "hurry")
	if got := p0.pushes(lobby.PushChat); len(got) != 1 || got[0] != "p1,hurry" {
		t.Fatalf("the owner's CHAT pushes while starting: %q", got)
	}
	if got := p1.fail(lobby.CmdStart); got != "lobby "+code+" is starting a game" {
		t.Fatalf("a second START: %q", got)
	}
	if got := v.player("192.0.2.6", "late").fail(lobby.CmdJoinLobby, code); got != "lobby "+code+" is starting a game: try again in a moment" {
		t.Fatalf("joining a starting lobby: %q", got)
	}
	p2.ok(lobby.CmdLeave)
	p2.take()
	if got := p1.pushes(lobby.PushMembers); len(got) != 1 || got[0] != code+",p0,p1" {
		t.Fatalf("MEMBERS after a leave while starting: %q", got)
	}
	if ls := v.core.Lobbies(); len(ls) != 2 || ls[0].Code != code || ls[0].Running {
		t.Fatalf("lobbies while starting: %+v", ls)
	}
	p0.take()
	if got := p0.send("GET_LOBBIES " + p0.user + ";"); len(got) != 0 {
		t.Fatalf("the owner's line answered before its START: %q", got)
	}

	g := &vgame{port: 7000}
	v.started(0, g, nil)
	got := p0.take()
	if len(got) != 3 || got[0] != "200 "+vSrv+" OK\r\n" ||
		!strings.HasPrefix(got[1], "START "+vSrv+";7000,"+strconv.FormatUint(uint64(req.Start.Spec.Members[0].Token), 10)+",") ||
		!strings.HasPrefix(got[2], "200 "+vSrv+" (") || !strings.Contains(got[2], "("+code+",2,true,") {
		t.Fatalf("the owner got %q; want 200 OK, START, then the response to its waiting GET_LOBBIES (the lobby running)", got)
	}
	if got := p1.pushes(lobby.PushStart); len(got) != 1 || !strings.HasPrefix(got[0], "7000,"+strconv.FormatUint(uint64(req.Start.Spec.Members[1].Token), 10)+",") {
		t.Fatalf("p1's START: %q", got)
	}
	if got := p2.take(); len(got) != 0 {
		t.Fatalf("p2, who left, got %q", got)
	}
	if len(g.drops) != 1 || g.drops[0].id != req.Start.Spec.Members[2].UUID || !g.drops[0].left {
		t.Fatalf("the game's drops %+v; want p2 as left", g.drops)
	}
	if len(v.games) != 2 || v.games[1] != g {
		t.Fatalf("games handed to the runtime: %d", len(v.games))
	}
	if got := p0.fail(lobby.CmdStart); got != "lobby "+code+" is already running a game" {
		t.Fatalf("START of the running lobby: %q", got)
	}
}

// TestCoreAsyncStartFails: a failed start gives the owner 500 with the reason and the lobby
// waits again (START works again); a start the runtime does not answer within StartTimeout
// fails the same way, and the game it hands back later is dropped, unseen by the lobby.
func TestCoreAsyncStartFails(t *testing.T) {
	v := newVLobby(t, ServerConfig{AsyncStart: true})
	p0, p1 := v.player("192.0.2.1", "p0"), v.player("192.0.2.2", "p1")
	code := lobbyOf(p0, p1)
	p0.send("START " + p0.user + ";")
	v.started(0, nil, errors.New("no game host has room"))
	if got := p0.take(); len(got) != 1 || got[0] != "500 "+vSrv+" cannot start game: no game host has room\r\n" {
		t.Fatalf("the owner got %q", got)
	}
	if got := p1.take(); len(got) != 0 {
		t.Fatalf("p1 got %q", got)
	}
	p1.ok(lobby.CmdChat, "again?")
	p0.take()
	p1.take()
	if got := p1.fail(lobby.CmdStart); got != "only the lobby owner (p0) may start the game" {
		t.Fatalf("after the failure the lobby waits: %q", got)
	}
	p1.take()

	// No answer in time.
	p0.send("START " + p0.user + ";")
	v.advance(StartTimeout - time.Millisecond)
	if got := p0.take(); len(got) != 0 {
		t.Fatalf("before StartTimeout the owner got %q", got)
	}
	v.advance(time.Millisecond)
	if got := p0.take(); len(got) != 1 || got[0] != "500 "+vSrv+" cannot start game: no answer from the game runtime within 10s\r\n" {
		t.Fatalf("at StartTimeout the owner got %q", got)
	}
	late := &vgame{port: 7000}
	v.started(1, late, nil)
	if got := append(p0.take(), p1.take()...); len(v.games) != 0 || len(got) != 0 {
		t.Fatalf("a game started after StartTimeout reached the lobby: %d games, lines %q", len(v.games), got)
	}
	if len(late.drops) != 2 || !late.drops[0].left || !late.drops[1].left {
		t.Fatalf("the late game's drops %+v; want both players, as left", late.drops)
	}
	p0.send("START " + p0.user + ";")
	g := &vgame{port: 7001}
	v.started(2, g, nil)
	if got := p1.pushes(lobby.PushStart); len(got) != 1 || len(v.games) != 1 || v.core.Lobbies()[0].Code != code || !v.core.Lobbies()[0].Running {
		t.Fatalf("the third START: p1 got %q, %d games", got, len(v.games))
	}
}

// TestCoreAsyncStartOwnerGone: the owner's connection closes while its START is carried out:
// the next player owns the lobby (and may not start it meanwhile), the game runs for the
// players left, nobody gets the START's response. A lobby every player left is gone: its game
// is dropped when it comes.
func TestCoreAsyncStartOwnerGone(t *testing.T) {
	v := newVLobby(t, ServerConfig{AsyncStart: true})
	p0, p1 := v.player("192.0.2.1", "p0"), v.player("192.0.2.2", "p1")
	code := lobbyOf(p0, p1)
	p0.send("START " + p0.user + ";")
	p0.send("CHAT " + p0.user + ";held")
	v.core.Closed(v.now, p0.id)
	v.collect()
	if got := p1.pushes(lobby.PushMembers); len(got) != 1 || got[0] != code+",p1" {
		t.Fatalf("MEMBERS after the owner closed: %q", got)
	}
	if got := p1.fail(lobby.CmdSetDifficulty, "hard"); got != "lobby "+code+" is starting a game" {
		t.Fatalf("the new owner's setting while starting: %q", got)
	}
	p1.take()
	g := &vgame{port: 7000}
	v.started(0, g, nil)
	got := p1.take()
	if len(got) != 1 || !strings.HasPrefix(got[0], "START "+vSrv+";7000,") {
		t.Fatalf("p1 got %q; want its START only", got)
	}
	if len(g.drops) != 1 || g.drops[0].id != v.startQ[0].Start.Spec.Members[0].UUID {
		t.Fatalf("drops %+v; want the closed owner", g.drops)
	}

	// Every player leaves a starting lobby: it is gone, and so is its game.
	a, b := v.player("192.0.2.3", "a"), v.player("192.0.2.4", "b")
	lobbyOf(a, b)
	a.send("START " + a.user + ";")
	b.ok(lobby.CmdLeave)
	v.core.Closed(v.now, a.id)
	v.collect()
	if len(v.core.Lobbies()) != 1 {
		t.Fatalf("lobbies %+v; want only the first", v.core.Lobbies())
	}
	g2 := &vgame{port: 7001}
	v.started(1, g2, nil)
	if len(v.games) != 1 || len(g2.drops) != 2 {
		t.Fatalf("a game whose lobby is gone: handed to the runtime %v, drops %+v", len(v.games) != 1, g2.drops)
	}
}

// TestCoreAsyncStartSpectators: a full lobby's spectators watch the game once its start is
// carried out; while it starts they stay spectators (a player leaving frees no place for them),
// and when the start fails they take the places freed meanwhile.
func TestCoreAsyncStartSpectators(t *testing.T) {
	v := newVLobby(t, ServerConfig{AsyncStart: true, MaxConnsPerAddr: 100})
	var ps []*vconn
	for i := range rules.MaxPlayers {
		ps = append(ps, v.player("192.0.2.1", "p"+strconv.Itoa(i)))
	}
	code := lobbyOf(ps...)
	ps[0].send("START " + ps[0].user + ";")
	g := &vgame{port: 7000}
	v.started(0, g, nil)
	s := v.player("192.0.2.2", "s")
	s.send(lobby.CmdJoinLobby + " " + s.user + ";" + code) // a spectator of the running game
	v.called(0, nil)
	v.core.GameEnded(v.now, g, 1)
	v.collect()
	for _, c := range append(ps, s) {
		c.take()
	}

	ps[0].send("START " + ps[0].user + ";")
	g2 := &vgame{port: 7001}
	v.started(1, g2, nil)
	if got := s.pushes(lobby.PushSpectate); len(got) != 1 || len(g2.spectates) != 1 || !strings.HasPrefix(got[0], "7001,"+strconv.FormatUint(uint64(g2.spectates[0].Token), 10)+",") {
		t.Fatalf("the spectator at START: %q, the game's spectators %+v", got, g2.spectates)
	}
	v.core.GameEnded(v.now, g2, 0)
	v.collect()
	for _, c := range append(ps, s) {
		c.take()
	}

	ps[0].send("START " + ps[0].user + ";")
	ps[3].ok(lobby.CmdLeave)
	if got := s.pushes(lobby.PushMembers); len(got) != 1 || got[0] != code+",p0,p1,p2" {
		t.Fatalf("the spectator's MEMBERS after a leave while starting: %q; want it still a spectator", got)
	}
	ps[0].take()
	v.started(2, nil, errors.New("host draining"))
	if got := ps[0].take(); len(got) != 2 || got[0] != "500 "+vSrv+" cannot start game: host draining\r\n" || got[1] != "MEMBERS "+vSrv+";"+code+",p0,p1,p2,s\r\n" {
		t.Fatalf("the owner after the failed start: %q; want 500, then the spectator a player", got)
	}
}

// TestCoreAsyncStartHeldLines: the owner's lines behind its START wait, at most MaxHeldLines.
func TestCoreAsyncStartHeldLines(t *testing.T) {
	v := newVLobby(t, ServerConfig{AsyncStart: true, CommandRate: 1000})
	p0 := v.player("192.0.2.1", "p0")
	lobbyOf(p0)
	p0.send("START " + p0.user + ";")
	for range MaxHeldLines {
		p0.send("GET_LOBBIES " + p0.user + ";")
	}
	if got := p0.take(); len(got) != 0 || p0.closed {
		t.Fatalf("with %d lines held: %q", MaxHeldLines, got)
	}
	got := p0.send("GET_LOBBIES " + p0.user + ";")
	if len(got) != 1 || got[0] != "500 "+vSrv+" too many commands (16) while its game starts, closing connection\r\n" || !p0.closed {
		t.Fatalf("one more line: %q (closed %v)", got, p0.closed)
	}
	if !slices.ContainsFunc(v.startQ, func(o Out) bool { return o.Conn == p0.id }) {
		t.Fatal("no StartRequest")
	}
}

// gateStarter is a Starter (fakeStarter) whose first start waits until release is closed: a
// game host slow to answer.
type gateStarter struct {
	*fakeStarter
	entered chan handoff.GameSpec // the first start's spec, once it waits
	release chan struct{}
	calls   atomic.Int32
}

func (s *gateStarter) StartGame(spec handoff.GameSpec) (handoff.Game, error) {
	if s.calls.Add(1) == 1 {
		s.entered <- spec
		<-s.release
	}
	return s.fakeStarter.StartGame(spec)
}

// TestServerAsyncStartDoesNotBlock: on real sockets, while one lobby's start waits for its
// (slow) game host, the server serves everyone else: another lobby is created, started and
// gets its START push, the waiting lobby's other player chats and is refused a second START;
// then the slow start completes and its players get theirs.
func TestServerAsyncStartDoesNotBlock(t *testing.T) {
	gs := &gateStarter{fakeStarter: newFakeStarter(), entered: make(chan handoff.GameSpec, 1), release: make(chan struct{})}
	released := false
	release := func() {
		if !released {
			released = true
			close(gs.release)
		}
	}
	_, addr := startServer(t, ServerConfig{Starter: gs, AsyncStart: true})
	t.Cleanup(release) // before the server's shutdown (cleanups run last first), which waits for the start
	a0, _ := dialClient(t, addr, "a0")
	a1, _ := dialClient(t, addr, "a1")
	code, err := a0.Create("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a1.Join(code); err != nil {
		t.Fatal(err)
	}
	startErr := make(chan error, 1)
	go func() { startErr <- a0.Start() }()
	select {
	case spec := <-gs.entered:
		if spec.Code != code {
			t.Fatalf("the slow start is lobby %s's, want %s", spec.Code, code)
		}
	case <-time.After(waitTime):
		t.Fatal("the start never reached the Starter")
	}

	b0, _ := dialClient(t, addr, "b0")
	if _, err := b0.Create(""); err != nil {
		t.Fatal(err)
	}
	if err := b0.Start(); err != nil {
		t.Fatalf("another lobby's START while one start waits: %v", err)
	}
	if _, err := b0.WaitStart(waitCtx(t)); err != nil {
		t.Fatal(err)
	}
	if err := a1.Chat("still waiting"); err != nil {
		t.Fatalf("CHAT in the starting lobby: %v", err)
	}
	if re := respErr(t, a1.Start(), lobby.CodeWrongRequest); re.Reason != "lobby "+code+" is starting a game" {
		t.Fatalf("a second START: %q", re.Reason)
	}
	select {
	case err := <-startErr:
		t.Fatalf("the slow START was answered before its game started: %v", err)
	default:
	}

	release()
	if err := <-startErr; err != nil {
		t.Fatalf("the slow START: %v", err)
	}
	for _, c := range []*lobby.Client{a0, a1} {
		if _, err := c.WaitStart(waitCtx(t)); err != nil {
			t.Fatal(err)
		}
	}
}
