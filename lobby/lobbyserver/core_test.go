package lobbyserver

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
)

// The lobby's rules, tested on the Core in virtual time: the test is the runtime. It opens
// connections, hands the Core lines and advances the clock; no socket, no goroutine, no sleep.

// vgame is a game of the virtual lobby's starter: a Rejoiner and Spectatable unless plain.
type vgame struct {
	port      int
	drops     []vdrop
	rejoins   []handoff.Member
	spectates []handoff.Member
	noRejoin  bool // Rejoin fails (the slot is not waiting for a rejoin)
}

type vdrop struct {
	id   uuid.UUID
	left bool
}

func (g *vgame) Port() int                    { return g.port }
func (g *vgame) Done() <-chan struct{}        { return nil }
func (g *vgame) Result() uint8                { return 0 }
func (g *vgame) Drop(id uuid.UUID, left bool) { g.drops = append(g.drops, vdrop{id, left}) }
func (g *vgame) Rejoin(m handoff.Member) error {
	if g.noRejoin {
		return errors.New("not waiting")
	}
	g.rejoins = append(g.rejoins, m)
	return nil
}
func (g *vgame) Spectate(m handoff.Member) error { g.spectates = append(g.spectates, m); return nil }

// plainGame is a Game that is neither a Rejoiner nor Spectatable.
type plainGame struct{ g vgame }

func (g *plainGame) Port() int                    { return g.g.port }
func (g *plainGame) Done() <-chan struct{}        { return nil }
func (g *plainGame) Result() uint8                { return 0 }
func (g *plainGame) Drop(id uuid.UUID, left bool) { g.g.Drop(id, left) }

type vstart struct {
	code, stage string
	members     []handoff.Member
	game        handoff.Game
}

// vstarter starts vgames (plainGames when plain is set), or fails with err.
type vstarter struct {
	err    error
	plain  bool
	starts []vstart
	specs  []handoff.GameSpec // every StartGame call's spec
}

func (s *vstarter) StartGame(spec handoff.GameSpec) (handoff.Game, error) {
	code, stage, members := spec.Code, spec.Stage, spec.Members
	s.specs = append(s.specs, spec)
	if s.err != nil {
		return nil, s.err
	}
	var g handoff.Game = &vgame{port: fakePort}
	if s.plain {
		g = &plainGame{vgame{port: fakePort}}
	}
	s.starts = append(s.starts, vstart{code, stage, members, g})
	return g, nil
}

// vlobby is a Core with a virtual clock and connections.
type vlobby struct {
	t      *testing.T
	core   *Core
	st     *vstarter
	now    time.Duration
	next   ConnID
	conns  map[ConnID]*vconn
	games  []handoff.Game // handed over by the Core (Out.Game)
	reqs   []Out          // hall-of-fame requests left by the Core (Out.Request)
	startQ []Out          // starts left by the Core (Out.Start, AsyncStart)
	callQ  []Out          // game calls left by the Core (Out.Call, AsyncStart)
}

// vconn is one virtual connection: the lines the Core sent it, and whether it closed it.
type vconn struct {
	v      *vlobby
	id     ConnID
	lines  []string
	closed bool
	user   string // from auth
}

const vSrv = "7d444840-9dc0-11d1-b245-5ffdce74fad2"

func newVLobby(t *testing.T, cfg ServerConfig) *vlobby {
	t.Helper()
	st := &vstarter{}
	if cfg.Starter == nil {
		cfg.Starter = st
	}
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	cfg.ServerUUID = uuid.MustParse(vSrv)
	v := &vlobby{t: t, st: st, conns: make(map[ConnID]*vconn), now: time.Hour}
	v.core = NewCore(withStages(cfg), v.now)
	return v
}

// collect delivers the Core's outbox to the virtual connections.
func (v *vlobby) collect() {
	for _, o := range v.core.Outbox() {
		if o.Game != nil {
			v.games = append(v.games, o.Game)
			continue
		}
		if o.Request != nil {
			v.reqs = append(v.reqs, o)
			continue
		}
		if o.Start != nil {
			v.startQ = append(v.startQ, o)
			continue
		}
		if o.Call != nil {
			v.callQ = append(v.callQ, o)
			continue
		}
		c := v.conns[o.Conn]
		if c == nil || c.closed {
			v.t.Fatalf("the Core sent %q to connection %d, which it closed or never opened", o.Line, o.Conn)
		}
		if o.Line != nil {
			c.lines = append(c.lines, string(o.Line))
		}
		if o.Close {
			c.closed = true
		}
	}
	v.core.ResetOutbox()
}

// dial opens a connection from addr; refused is the Core's answer when over a limit.
func (v *vlobby) dial(addr string) (c *vconn, refused string) {
	v.next++
	if r := v.core.Open(v.now, v.next, netip.MustParseAddr(addr)); r != nil {
		return nil, string(r)
	}
	c = &vconn{v: v, id: v.next}
	v.conns[c.id] = c
	v.collect()
	return c, ""
}

func (v *vlobby) open(addr string) *vconn {
	v.t.Helper()
	c, refused := v.dial(addr)
	if c == nil {
		v.t.Fatalf("connection from %s refused: %q", addr, refused)
	}
	return c
}

// advance moves the clock d ahead, calling Tick at every deadline on the way.
func (v *vlobby) advance(d time.Duration) {
	end := v.now + d
	for {
		next := v.core.NextDeadline()
		if next > end {
			break
		}
		v.now = max(v.now, next)
		v.core.Tick(v.now)
		v.collect()
	}
	v.now = end
}

// send hands the Core one line (CRLF added) and returns the lines c got for it.
func (c *vconn) send(line string) []string {
	c.v.t.Helper()
	if c.closed {
		c.v.t.Fatalf("send %q on a closed connection", line)
	}
	n := len(c.lines)
	c.v.core.Line(c.v.now, c.id, []byte(line+"\r\n"))
	c.v.collect()
	return c.lines[n:]
}

// do sends an authenticated command and returns its response line (pushes stay in c.lines).
func (c *vconn) do(name string, args ...string) string {
	c.v.t.Helper()
	got := c.send(name + " " + c.user + ";" + strings.Join(args, ","))
	for _, l := range got {
		if lobby.IsResponse([]byte(l)) {
			return l
		}
	}
	c.v.t.Fatalf("%s: no response in %q", name, got)
	return ""
}

// ok is do that requires a 200 and returns its body.
func (c *vconn) ok(name string, args ...string) string {
	c.v.t.Helper()
	l := c.do(name, args...)
	r, err := lobby.ParseResponse([]byte(l))
	if err != nil || r.Code != lobby.CodeOK {
		c.v.t.Fatalf("%s %v: %q, want 200", name, args, l)
	}
	return r.Body
}

// fail is do that requires a 500 and returns its line.
func (c *vconn) fail(name string, args ...string) string {
	c.v.t.Helper()
	l := c.do(name, args...)
	if !strings.HasPrefix(l, "500 "+vSrv+" ") {
		c.v.t.Fatalf("%s %v: %q, want 500", name, args, l)
	}
	return strings.TrimSuffix(strings.TrimPrefix(l, "500 "+vSrv+" "), "\r\n")
}

func (c *vconn) auth(name string) *vconn {
	c.v.t.Helper()
	got := c.send("AUTHENTICATE ;" + name)
	if len(got) != 1 || !strings.HasPrefix(got[0], "200 "+vSrv+" ") {
		c.v.t.Fatalf("AUTHENTICATE %s: %q", name, got)
	}
	c.user = strings.TrimSuffix(strings.TrimPrefix(got[0], "200 "+vSrv+" "), "\r\n")
	return c
}

// take returns the lines c got since the last take.
func (c *vconn) take() []string {
	l := c.lines
	c.lines = nil
	return l
}

// pushes returns the lines named name that c got since the last take, without the name and
// header ("MEMBERS <srv>;ABCDE,alice" gives "ABCDE,alice").
func (c *vconn) pushes(name string) []string {
	var out []string
	for _, l := range c.take() {
		if p, ok := strings.CutPrefix(l, name+" "+vSrv+";"); ok {
			out = append(out, strings.TrimSuffix(p, "\r\n"))
		}
	}
	return out
}

func (v *vlobby) player(addr, name string) *vconn { return v.open(addr).auth(name) }

// TestCoreAuthTimeout: a connection that does not authenticate is closed at AuthTimeout, to
// the nanosecond, however many lines it sends; AUTHENTICATE in time keeps it.
func TestCoreAuthTimeout(t *testing.T) {
	v := newVLobby(t, ServerConfig{AuthTimeout: 10 * time.Second, IdleTimeout: time.Minute})
	junk, late := v.open("192.0.2.1"), v.open("192.0.2.1")
	for range 99 {
		junk.send("HELLO ;")
		v.advance(100 * time.Millisecond)
	}
	v.advance(100*time.Millisecond - 1)
	if junk.closed {
		t.Fatal("closed before AuthTimeout")
	}
	late.auth("late")
	v.advance(1)
	if !junk.closed || late.closed {
		t.Fatalf("at AuthTimeout: junk closed %v (want true), authenticated closed %v (want false)", junk.closed, late.closed)
	}
	if n := v.core.Stats().LimitHits[LimitAuthTimeout]; n != 1 {
		t.Fatalf("auth_timeout hits %d, want 1", n)
	}
	// A negative AuthTimeout: the idle timeout applies from the start.
	v = newVLobby(t, ServerConfig{AuthTimeout: -1, IdleTimeout: time.Minute})
	c := v.open("192.0.2.1")
	v.advance(time.Minute - 1)
	if c.closed {
		t.Fatal("closed before the idle timeout")
	}
	v.advance(1)
	if !c.closed || v.core.Stats().LimitHits[LimitAuthTimeout] != 1 { // counted as never authenticated
		t.Fatalf("closed %v, hits %v: want closed by the idle timeout", c.closed, v.core.Stats().LimitHits)
	}
}

// TestCoreIdleTimeout: only valid commands restart the idle timer; a player in a running game
// is never idle-closed; END restarts the timer.
func TestCoreIdleTimeout(t *testing.T) {
	const idle = 5 * time.Minute
	v := newVLobby(t, ServerConfig{IdleTimeout: idle})
	c := v.player("192.0.2.1", "busy")
	for range 10 { // valid commands for 40 minutes
		v.advance(4 * time.Minute)
		c.ok(lobby.CmdGetLobbies)
	}
	for range 4 { // invalid lines (500, 401) do not restart it
		v.advance(time.Minute)
		c.send("GET_LOBBIES " + c.user + ";junk")
		c.send("GET_LOBBIES 0b5c1f9e-6f0a-4c5e-9f43-2d3b8f1f2a77;")
	}
	v.advance(time.Minute - 1)
	if c.closed {
		t.Fatal("closed before the idle timeout")
	}
	v.advance(1)
	if !c.closed {
		t.Fatal("invalid lines kept the connection open")
	}

	p := v.player("192.0.2.1", "player")
	p.ok(lobby.CmdJoinLobby)
	p.ok(lobby.CmdStart)
	v.advance(10 * time.Hour) // a long game
	if p.closed {
		t.Fatal("a player in a running game was idle-closed")
	}
	p.take()
	v.core.GameEnded(v.now, v.games[0], 1)
	v.collect()
	if got := p.take(); len(got) != 1 || got[0] != "END "+vSrv+";1\r\n" {
		t.Fatalf("at END: %q", got)
	}
	v.advance(idle - 1)
	if p.closed {
		t.Fatal("closed before idle after END: the timer must restart at END")
	}
	v.advance(1)
	if !p.closed {
		t.Fatal("not closed an idle timeout after END")
	}
	if n := v.core.Stats().LimitHits[LimitIdle]; n != 2 {
		t.Fatalf("idle hits %d, want 2", n)
	}
}

// TestCoreConnectionLimits: connections over MaxConns and MaxConnsPerAddr get one 500 line;
// a closed connection frees its place.
func TestCoreConnectionLimits(t *testing.T) {
	v := newVLobby(t, ServerConfig{MaxConns: 4, MaxConnsPerAddr: 2})
	a1, _ := v.open("192.0.2.1"), v.open("192.0.2.1")
	if c, r := v.dial("192.0.2.1"); c != nil || r != "500 "+vSrv+" too many connections from 192.0.2.1 (max 2), closing connection\r\n" {
		t.Fatalf("third connection of one address: %v %q", c, r)
	}
	v.open("192.0.2.2")
	v.open("192.0.2.3")
	if c, r := v.dial("192.0.2.4"); c != nil || r != "500 "+vSrv+" server full: too many connections (max 4), closing connection\r\n" {
		t.Fatalf("fifth connection: %v %q", c, r)
	}
	v.core.Closed(v.now, a1.id)
	v.open("192.0.2.1")
	st := v.core.Stats()
	if st.Connections != 4 || st.ConnsAccepted != 7 || st.LimitHits[LimitConns] != 1 || st.LimitHits[LimitConnsPerAddr] != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// TestCoreLobbyLimits: one address owns at most MaxLobbiesPerAddr lobbies, the server holds at
// most MaxLobbies; leaving the only place of one's lobby to create another is not refused.
func TestCoreLobbyLimits(t *testing.T) {
	v := newVLobby(t, ServerConfig{MaxLobbies: 3, MaxLobbiesPerAddr: 2})
	a, b, c := v.player("192.0.2.1", "a"), v.player("192.0.2.1", "b"), v.player("192.0.2.1", "c")
	a.ok(lobby.CmdJoinLobby)
	b.ok(lobby.CmdJoinLobby)
	if got := c.fail(lobby.CmdJoinLobby); got != "too many lobbies from 192.0.2.1 (max 2)" {
		t.Fatalf("third lobby of one address: %q", got)
	}
	a.ok(lobby.CmdJoinLobby) // a replaces its own lobby
	d := v.player("192.0.2.2", "d")
	d.ok(lobby.CmdJoinLobby)
	e := v.player("192.0.2.3", "e")
	if got := e.fail(lobby.CmdJoinLobby); got != "too many lobbies (max 3)" {
		t.Fatalf("fourth lobby: %q", got)
	}
	if len(v.core.Lobbies()) != 3 {
		t.Fatalf("lobbies %v", v.core.Lobbies())
	}
}

// TestCoreCommandRate: a connection's lines beyond its rate get 500, its budget comes back
// with time, and MaxRefused refused lines in a row close it.
func TestCoreCommandRate(t *testing.T) {
	v := newVLobby(t, ServerConfig{CommandRate: 2})
	r := v.player("192.0.2.1", "fast") // AUTHENTICATE took one of the burst
	for range CommandBurst - 1 {
		r.ok(lobby.CmdGetLobbies)
	}
	if got := r.fail(lobby.CmdGetLobbies); got != "too many commands: at most 2 per second" {
		t.Fatalf("over the burst: %q", got)
	}
	v.advance(500 * time.Millisecond) // one line's worth
	r.ok(lobby.CmdGetLobbies)
	r.fail(lobby.CmdGetLobbies)
	o := v.player("192.0.2.1", "calm") // another connection of that address has its own budget
	o.ok(lobby.CmdGetLobbies)
	for i := 2; i < MaxRefused; i++ {
		r.fail(lobby.CmdGetLobbies)
	}
	if r.closed {
		t.Fatal("closed before MaxRefused refusals")
	}
	if got := r.send("GET_LOBBIES " + r.user + ";"); len(got) != 1 || got[0] != "500 "+vSrv+" too many commands, closing connection\r\n" || !r.closed {
		t.Fatalf("refusal %d: %q, closed %v", MaxRefused, got, r.closed)
	}
	if n := v.core.Stats().LimitHits[LimitCommandRate]; n != MaxRefused+1 {
		t.Fatalf("command_rate hits %d, want %d", n, MaxRefused+1)
	}
}

// TestCoreCommandBurstAboveTenPerSecond: above 10 lines per second the burst is two seconds'
// worth (CommandBurstAt), not CommandBurst.
func TestCoreCommandBurstAboveTenPerSecond(t *testing.T) {
	const perSecond = 50
	if CommandBurstAt(perSecond) != 2*perSecond || CommandBurstAt(2) != CommandBurst {
		t.Fatalf("CommandBurstAt(%d) = %d, CommandBurstAt(2) = %d", perSecond, CommandBurstAt(perSecond), CommandBurstAt(2))
	}
	v := newVLobby(t, ServerConfig{CommandRate: perSecond})
	r := v.player("192.0.2.1", "fast") // AUTHENTICATE took one of the burst
	for range 2*perSecond - 1 {
		r.ok(lobby.CmdGetLobbies)
	}
	if got := r.fail(lobby.CmdGetLobbies); got != "too many commands: at most 50 per second" {
		t.Fatalf("over the burst: %q", got)
	}
}

// TestCoreChatRate: ChatBurst lines at once, then one per ChatEvery; every member and
// spectator of the lobby gets each line relayed.
func TestCoreChatRate(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	a, b, out := v.player("192.0.2.1", "alice"), v.player("192.0.2.2", "bob"), v.player("192.0.2.3", "out")
	if got := a.fail(lobby.CmdChat, "hi"); got != "not in a lobby" {
		t.Fatalf("chat outside a lobby: %q", got)
	}
	code := a.ok(lobby.CmdJoinLobby)
	b.ok(lobby.CmdJoinLobby, code)
	b.take()
	out.take()
	for i := range ChatBurst {
		a.ok(lobby.CmdChat, "line "+strconv.Itoa(i)+", with a comma")
	}
	if got := a.fail(lobby.CmdChat, "one more"); got != "too many chat lines: at most 5 at once, then 1 per second" {
		t.Fatalf("over the chat burst: %q", got)
	}
	v.advance(ChatEvery / 2)
	a.fail(lobby.CmdChat, "too soon")
	v.advance(ChatEvery / 2)
	a.ok(lobby.CmdChat, "later")
	got := b.pushes(lobby.PushChat)
	if len(got) != ChatBurst+1 || got[0] != "alice,line 0, with a comma" || got[ChatBurst] != "alice,later" {
		t.Fatalf("bob got %q", got)
	}
	if got := out.take(); len(got) != 0 {
		t.Fatalf("a user outside the lobby got %q", got)
	}
	if n := v.core.Stats().ChatLines; n != ChatBurst+1 {
		t.Fatalf("ChatLines %d", n)
	}
}

// TestCoreOwnerAndStage: the first member owns the lobby (START, SET_STAGE); when it leaves,
// the next one does; SET_STAGE pushes STAGE to every member when the stage changes.
func TestCoreOwnerAndStage(t *testing.T) {
	stages, err := stagefile.LoadCatalogue("stage1", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	v := newVLobby(t, ServerConfig{Stages: stages})
	a, b := v.player("192.0.2.1", "alice"), v.player("192.0.2.2", "bob")
	code := a.ok(lobby.CmdJoinLobby, "", "short")
	short := stages.ByName("short")
	if got := a.pushes(lobby.PushStage); len(got) != 1 || got[0] != code+",short,"+short.Hash {
		t.Fatalf("STAGE after creating with short: %q", got)
	}
	b.ok(lobby.CmdJoinLobby, code)
	if got := b.fail(lobby.CmdStart); got != "only the lobby owner (alice) may start the game" {
		t.Fatalf("bob's START: %q", got)
	}
	if got := b.fail(lobby.CmdSetStage, "stage1"); got != "only the lobby owner (alice) may change the stage" {
		t.Fatalf("bob's SET_STAGE: %q", got)
	}
	if got := a.fail(lobby.CmdSetStage, "nope"); !strings.HasPrefix(got, `unknown stage "nope" (offered: `) {
		t.Fatalf("unknown stage: %q", got)
	}
	b.take()
	a.ok(lobby.CmdSetStage, "stage1")
	a.ok(lobby.CmdSetStage, "stage1") // unchanged: no push
	if got := b.pushes(lobby.PushStage); len(got) != 1 || !strings.HasPrefix(got[0], code+",stage1,") {
		t.Fatalf("bob's STAGE pushes: %q", got)
	}
	a.ok(lobby.CmdLeave)
	if got := b.pushes(lobby.PushMembers); len(got) != 1 || got[0] != code+",bob" {
		t.Fatalf("MEMBERS after the owner left: %q", got)
	}
	b.ok(lobby.CmdStart)
	if s := v.st.starts[0]; s.code != code || s.stage != "stage1" || len(s.members) != 1 || s.members[0].Name != "bob" {
		t.Fatalf("StartGame(%q, %q, %+v)", s.code, s.stage, s.members)
	}
	if got := b.fail(lobby.CmdSetStage, "short"); got != "lobby "+code+" is running a game" {
		t.Fatalf("SET_STAGE while running: %q", got)
	}
}

// TestCoreStartPushes: START gives every player its slot's token and key, distinct tokens;
// a failing starter leaves the lobby waiting.
func TestCoreStartPushes(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	ps := []*vconn{v.player("192.0.2.1", "p0"), v.player("192.0.2.2", "p1"), v.player("192.0.2.3", "p2"), v.player("192.0.2.4", "p3")}
	code := ps[0].ok(lobby.CmdJoinLobby)
	for _, p := range ps[1:] {
		p.ok(lobby.CmdJoinLobby, code)
	}
	if got := v.player("192.0.2.5", "p4").fail(lobby.CmdJoinLobby, code); got != "lobby "+code+" is full (4 players)" {
		t.Fatalf("fifth player: %q", got)
	}
	v.st.err = errors.New("no room")
	if got := ps[0].fail(lobby.CmdStart); got != "cannot start game: no room" {
		t.Fatalf("failed start: %q", got)
	}
	if ls := v.core.Lobbies(); ls[0].Running {
		t.Fatal("a lobby whose start failed is running")
	}
	v.st.err = nil
	for _, p := range ps {
		p.take()
	}
	ps[0].ok(lobby.CmdStart)
	ms := v.st.starts[0].members
	seen := map[uint32]bool{}
	for i, p := range ps {
		got := p.pushes(lobby.PushStart)
		want := strconv.Itoa(fakePort) + "," + strconv.FormatUint(uint64(ms[i].Token), 10) + "," + hexKey(ms[i].Key)
		if len(got) != 1 || got[0] != want || ms[i].Slot != i || ms[i].Name != "p"+strconv.Itoa(i) || seen[ms[i].Token] || ms[i].Token == 0 {
			t.Fatalf("player %d: START %q, member %+v, want %q", i, got, ms[i], want)
		}
		seen[ms[i].Token] = true
	}
	if got := ps[0].fail(lobby.CmdStart); got != "lobby "+code+" is already running a game" {
		t.Fatalf("second START: %q", got)
	}
	if len(v.games) != 1 {
		t.Fatalf("%d games handed to the runtime, want 1", len(v.games))
	}
}

func hexKey(k [16]byte) string { return hex.EncodeToString(k[:]) }

// TestCoreLeavingAGame: LEAVE and JOIN_LOBBY elsewhere drop the player from the game as left,
// a closed connection as lost; a lobby whose players all left for good is gone, one with a
// lost player stays until END for a rejoin.
func TestCoreLeavingAGame(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	a, b, c := v.player("192.0.2.1", "a"), v.player("192.0.2.2", "b"), v.player("192.0.2.3", "c")
	code := a.ok(lobby.CmdJoinLobby)
	b.ok(lobby.CmdJoinLobby, code)
	c.ok(lobby.CmdJoinLobby, code)
	a.ok(lobby.CmdStart)
	g := v.games[0].(*vgame)
	a.take()
	b.ok(lobby.CmdLeave)
	c.ok(lobby.CmdJoinLobby) // a new lobby of its own
	if got := a.pushes(lobby.PushMembers); len(got) != 2 || got[1] != code+",a" {
		t.Fatalf("MEMBERS to a: %q", got)
	}
	v.core.Closed(v.now, a.id)
	ub, uc, ua := uuid.MustParse(b.user), uuid.MustParse(c.user), uuid.MustParse(a.user)
	if want := []vdrop{{ub, true}, {uc, true}, {ua, false}}; len(g.drops) != 3 || g.drops[0] != want[0] || g.drops[1] != want[1] || g.drops[2] != want[2] {
		t.Fatalf("drops %+v, want %+v", g.drops, want)
	}
	if ls := v.core.Lobbies(); len(ls) != 2 || ls[0] != (lobby.LobbyInfo{Code: code, Players: 0, Running: true, Stage: "stage1", Difficulty: 0}) {
		t.Fatalf("lobbies %v: want %s kept, empty and running, for a rejoin", ls, code)
	}
	v.core.GameEnded(v.now, g, 2)
	if ls := v.core.Lobbies(); len(ls) != 1 || ls[0].Code == code {
		t.Fatalf("lobbies %v after END: %s must be gone", ls, code)
	}

	// A game without rejoins: the lobby goes with its last player.
	v.st.plain = true
	d := v.player("192.0.2.4", "d")
	code = d.ok(lobby.CmdJoinLobby)
	d.ok(lobby.CmdStart)
	v.core.Closed(v.now, d.id)
	for _, l := range v.core.Lobbies() {
		if l.Code == code {
			t.Fatalf("lobby %s of a plain game kept after its last player left", code)
		}
	}
}

// TestCoreSpectators: JOIN_LOBBY to a running lobby makes a spectator (SPECTATE with its own
// token), at most MaxSpectators; spectators get chat and MEMBERS, and take the free places at
// END in join order; a game that does not take spectators refuses them.
func TestCoreSpectators(t *testing.T) {
	v := newVLobby(t, ServerConfig{MaxConnsPerAddr: 100})
	owner := v.player("192.0.2.1", "owner")
	code := owner.ok(lobby.CmdJoinLobby)
	early := v.player("192.0.2.1", "early")
	early.ok(lobby.CmdJoinLobby, code)
	owner.ok(lobby.CmdStart)
	g := v.games[0].(*vgame)
	var specs []*vconn
	for i := range handoff.MaxSpectators {
		s := v.player("192.0.2."+strconv.Itoa(10+i), "s"+strconv.Itoa(i)) // MaxSpectatorsPerAddr
		got := s.send("JOIN_LOBBY " + s.user + ";" + code)
		if len(got) != 4 || got[0] != "200 "+vSrv+" "+code+"\r\n" || got[1] != "MEMBERS "+vSrv+";"+code+",owner,early\r\n" ||
			!strings.HasPrefix(got[2], "STAGE "+vSrv+";"+code+",stage1,") {
			t.Fatalf("spectator %d: %q", i, got)
		}
		m := g.spectates[i]
		if want := "SPECTATE " + vSrv + ";" + strconv.Itoa(fakePort) + "," + strconv.FormatUint(uint64(m.Token), 10) + "," + hexKey(m.Key) + "\r\n"; got[3] != want || m.Slot != -1 {
			t.Fatalf("spectator %d: %q, member %+v, want %q", i, got[3], m, want)
		}
		specs = append(specs, s)
	}
	late := v.player("192.0.2.3", "late")
	if got := late.fail(lobby.CmdJoinLobby, code); got != "lobby "+code+" is running a game and has 8 spectators (max)" {
		t.Fatalf("ninth spectator: %q", got)
	}
	early.ok(lobby.CmdLeave)
	owner.ok(lobby.CmdChat, "hello")
	if got := specs[7].pushes(lobby.PushChat); len(got) != 1 || got[0] != "owner,hello" {
		t.Fatalf("spectator's chat: %q", got)
	}
	specs[0].take()
	v.core.GameEnded(v.now, g, 1)
	v.collect()
	if got := specs[0].take(); len(got) != 2 || got[0] != "END "+vSrv+";1\r\n" || got[1] != "MEMBERS "+vSrv+";"+code+",owner,s0,s1,s2\r\n" {
		t.Fatalf("at END, spectator 0 got %q", got)
	}
	if ls := v.core.Lobbies(); ls[0].Players != 4 || ls[0].Running {
		t.Fatalf("lobby after END: %+v", ls[0])
	}
	// Still spectators: they become spectators of the next game.
	specs[3].take()
	owner.ok(lobby.CmdStart)
	if got := specs[3].pushes(lobby.PushSpectate); len(got) != 1 {
		t.Fatalf("spectator 3 at the next START: %q", got)
	}

	v.st.plain = true
	p := v.player("192.0.2.4", "p")
	pc := p.ok(lobby.CmdJoinLobby)
	p.ok(lobby.CmdStart)
	if got := late.fail(lobby.CmdJoinLobby, pc); got != "lobby "+pc+" is running a game" {
		t.Fatalf("spectating a game without spectators: %q", got)
	}
}

// TestCoreRejoin: a player whose connection closed takes its slot back from a new connection
// with the proof of its key: 200, MEMBERS, STAGE, START with a new token and key; a wrong
// proof, a bad slot or a slot not waiting is refused.
func TestCoreRejoin(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	a, b := v.player("192.0.2.1", "alice"), v.player("192.0.2.2", "bob")
	code := a.ok(lobby.CmdJoinLobby)
	b.ok(lobby.CmdJoinLobby, code)
	a.ok(lobby.CmdStart)
	g := v.games[0].(*vgame)
	key := v.st.starts[0].members[1].Key
	v.core.Closed(v.now, b.id)
	b2 := v.player("192.0.2.2", "bob")
	proof := lobby.RejoinProof(key, code, 1, uuid.MustParse(b2.user))
	if got := b2.fail(lobby.CmdRejoin, code, "1", lobby.RejoinProof(key, code, 1, uuid.MustParse(b.user))); got != "rejoin refused: wrong proof for slot 1" {
		t.Fatalf("replayed proof of another user: %q", got)
	}
	if got := b2.fail(lobby.CmdRejoin, code, "2", proof); got != "the game of lobby "+code+" has no slot 2" {
		t.Fatalf("no such slot: %q", got)
	}
	if got := b2.fail(lobby.CmdRejoin, code, "01", proof); got != "invalid slot: 0 to 3" {
		t.Fatalf("slot 01: %q", got)
	}
	g.noRejoin = true
	if got := b2.fail(lobby.CmdRejoin, code, "1", proof); !strings.HasPrefix(got, "slot 1 of lobby "+code+" is not waiting for a rejoin") {
		t.Fatalf("slot not waiting: %q", got)
	}
	g.noRejoin = false
	a.take()
	got := b2.send("REJOIN " + b2.user + ";" + strings.ToLower(code) + ",1," + proof)
	m := g.rejoins[0]
	if len(got) != 4 || got[0] != "200 "+vSrv+" "+code+"\r\n" || got[1] != "MEMBERS "+vSrv+";"+code+",alice,bob\r\n" ||
		got[3] != "START "+vSrv+";"+strconv.Itoa(fakePort)+","+strconv.FormatUint(uint64(m.Token), 10)+","+hexKey(m.Key)+"\r\n" {
		t.Fatalf("REJOIN: %q", got)
	}
	if m.Slot != 1 || m.UUID.String() != b2.user || m.Key == key {
		t.Fatalf("rejoin member %+v", m)
	}
	if got := a.pushes(lobby.PushMembers); len(got) != 1 || got[0] != code+",alice,bob" {
		t.Fatalf("alice's MEMBERS: %q", got)
	}
	// The new key proves the next rejoin; the old one no longer does.
	v.core.Closed(v.now, b2.id)
	b3 := v.player("192.0.2.2", "bob")
	if got := b3.fail(lobby.CmdRejoin, code, "1", lobby.RejoinProof(key, code, 1, uuid.MustParse(b3.user))); got != "rejoin refused: wrong proof for slot 1" {
		t.Fatalf("old key: %q", got)
	}
	b3.ok(lobby.CmdRejoin, code, "1", lobby.RejoinProof(m.Key, code, 1, uuid.MustParse(b3.user)))
	v.core.GameEnded(v.now, g, 0)
	if got := b3.do(lobby.CmdRejoin, code, "1", proof); !strings.Contains(got, "is not running a game") {
		t.Fatalf("REJOIN after END: %q", got)
	}
}

// TestCoreGetLobbiesPages: GET_LOBBIES lists whole entries, oldest first, as many as fit in a
// line; <skip> gives the next page, and the pages together list every lobby once.
func TestCoreGetLobbiesPages(t *testing.T) {
	stages, long := longStages(t)
	v := newVLobby(t, ServerConfig{Stages: stages, MaxLobbies: 200, MaxLobbiesPerAddr: 200, MaxConnsPerAddr: 200, MaxConns: 300})
	var codes []string
	for i := range 150 {
		p := v.player("192.0.2.1", "p"+strconv.Itoa(i))
		codes = append(codes, p.ok(lobby.CmdJoinLobby, "", long))
		v.advance(time.Second) // keep the command budget of the lister below
	}
	lister := v.player("192.0.2.2", "lister")
	var all []string
	pages := 0
	for len(all) < len(codes) {
		l := lister.do(lobby.CmdGetLobbies, strconv.Itoa(len(all)))
		if len(l) > lobby.MaxLine {
			t.Fatalf("page of %d bytes", len(l))
		}
		r, err := lobby.ParseResponse([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		ls, err := lobby.ParseLobbies(r.Body)
		if err != nil || len(ls) == 0 {
			t.Fatalf("page at %d: %v, %v", len(all), ls, err)
		}
		for _, e := range ls {
			all = append(all, e.Code)
		}
		pages++
	}
	if strings.Join(all, ",") != strings.Join(codes, ",") || pages < 2 {
		t.Fatalf("%d pages listed %d lobbies, want all %d in creation order", pages, len(all), len(codes))
	}
	if got := lister.ok(lobby.CmdGetLobbies, "1000"); got != "" {
		t.Fatalf("past the end: %q", got)
	}
	for _, bad := range []string{"-1", "+1", "01", "x", "1234567890"} {
		if got := lister.fail(lobby.CmdGetLobbies, bad); got != "GET_LOBBIES takes no argument, or the number of lobbies to skip" {
			t.Fatalf("GET_LOBBIES %s: %q", bad, got)
		}
	}
}

// TestCoreStageDownload: GET_STAGE parts put together are the gzipped stage file; part
// numbers out of range or not canonical are refused.
func TestCoreStageDownload(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	c := v.player("192.0.2.1", "dl")
	ss, err := lobby.ParseStages(c.ok(lobby.CmdGetStages))
	if err != nil || len(ss) == 0 {
		t.Fatalf("GET_STAGES: %v %v", ss, err)
	}
	for _, s := range ss {
		var gz []byte
		parts := 1
		for i := 0; i < parts; i++ {
			n, b, err := lobby.ParseStagePart(c.ok(lobby.CmdGetStage, s.Hash, strconv.Itoa(i)))
			if err != nil {
				t.Fatalf("%s part %d: %v", s.Name, i, err)
			}
			parts = n
			gz = append(gz, b...)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if f := v.core.cfg.Stages.ByName(s.Name); !bytes.Equal(data, f.Data) {
			t.Fatalf("stage %s downloaded differs from the file", s.Name)
		}
		for _, bad := range []string{strconv.Itoa(parts), "-0", "+0", "00", "99999"} {
			if got := c.fail(lobby.CmdGetStage, s.Hash, bad); !strings.HasPrefix(got, "part \""+bad+"\" out of range") {
				t.Fatalf("part %s: %q", bad, got)
			}
		}
		v.advance(10 * time.Second) // the command budget
	}
	if got := c.fail(lobby.CmdGetStage, "0123456789abcdef", "0"); got != `unknown stage hash "0123456789abcdef"` {
		t.Fatalf("unknown hash: %q", got)
	}
}

// TestCoreAuthenticatedCommands: every command but AUTHENTICATE needs this connection's own
// user UUID as its header.
func TestCoreAuthenticatedCommands(t *testing.T) {
	v := newVLobby(t, ServerConfig{CommandRate: 1000})
	a, b := v.player("192.0.2.1", "a"), v.player("192.0.2.2", "b")
	anon := v.open("192.0.2.3")
	for name, h := range commands {
		if !h.authed {
			if name != lobby.CmdAuthenticate {
				t.Errorf("%s answered without AUTHENTICATE", name)
			}
			continue
		}
		for _, tc := range []struct {
			c    *vconn
			hdr  string
			want string
		}{
			{anon, "", "401 " + vSrv + " missing user uuid header (AUTHENTICATE first)\r\n"},
			{a, strings.ToUpper(a.user), "401 " + vSrv + " malformed user uuid header (want 36-char lowercase uuid)\r\n"},
			{a, b.user, "401 " + vSrv + " unknown user uuid\r\n"},
		} {
			if got := tc.c.send(name + " " + tc.hdr + ";"); len(got) != 1 || got[0] != tc.want {
				t.Errorf("%s with header %q: %q, want %q", name, tc.hdr, got, tc.want)
			}
		}
	}
	if got := a.send("DANCE " + a.user + ";"); len(got) != 1 || got[0] != "500 "+vSrv+" unknown command DANCE\r\n" {
		t.Fatalf("unknown command: %q", got)
	}
}

// TestCoreIPv6LimitsPerPrefix: the per-address limits count an IPv6 /64 as one address (one
// subscriber gets a /64: counted per /128 it could open 2^64 times the limit); IPv4 addresses
// and other /64s count apart.
func TestCoreIPv6LimitsPerPrefix(t *testing.T) {
	v := newVLobby(t, ServerConfig{MaxConnsPerAddr: 2, MaxLobbiesPerAddr: 1})
	a := v.player("2001:db8:1:2::1", "a")
	v.player("2001:db8:1:2:ffff::7", "b")
	if c, r := v.dial("2001:db8:1:2:dead:beef:0:1"); c != nil || r != "500 "+vSrv+" too many connections from 2001:db8:1:2::/64 (max 2), closing connection\r\n" {
		t.Fatalf("third connection from one /64: %v %q", c, r)
	}
	other := v.player("2001:db8:1:3::1", "other") // the next /64
	v.player("::ffff:192.0.2.1", "v4")            // an IPv4-mapped address counts as its IPv4 address
	v.player("192.0.2.1", "v4b")
	if c, r := v.dial("192.0.2.1"); c != nil || !strings.Contains(r, "too many connections from 192.0.2.1 (max 2)") {
		t.Fatalf("third connection from 192.0.2.1: %v %q", c, r)
	}
	a.ok(lobby.CmdJoinLobby)
	b := v.conns[2]
	if got := b.fail(lobby.CmdJoinLobby); got != "too many lobbies from 2001:db8:1:2::/64 (max 1)" {
		t.Fatalf("second lobby of one /64: %q", got)
	}
	other.ok(lobby.CmdJoinLobby)
}

// TestMaxConnsUnderFileLimit: a -max-conns the process's file limit cannot honour is warned
// about at start: the server would run out of descriptors (accept, /metrics and the game
// socket with it) before it refuses connections with "server full".
func TestMaxConnsUnderFileLimit(t *testing.T) {
	n, ok := fileLimit()
	if !ok {
		t.Skip("no file limit on this system")
	}
	if got, over := capConns(100, 1024); got != 100 || over {
		t.Fatalf("capConns(100, 1024) = %d, %v", got, over)
	}
	if got, over := capConns(4096, 1024); got != 1024-FileReserve || !over {
		t.Fatalf("capConns(4096, 1024) = %d, %v", got, over)
	}
	var buf bytes.Buffer
	NewServer(withStages(ServerConfig{MaxConns: 1 << 40, Logger: slog.New(slog.NewTextHandler(&buf, nil))}))
	if !strings.Contains(buf.String(), "lobby -max-conns exceeds what the process file limit allows") ||
		!strings.Contains(buf.String(), "fileLimit="+strconv.FormatUint(n, 10)) {
		t.Fatalf("no warning for MaxConns 2^40 under a file limit of %d: log %q", n, buf.String())
	}
	buf.Reset()
	NewServer(withStages(ServerConfig{MaxConns: 1, Logger: slog.New(slog.NewTextHandler(&buf, nil))}))
	if strings.Contains(buf.String(), "file limit") {
		t.Fatalf("warned for MaxConns 1: %q", buf.String())
	}
}

// TestCoreSpectatorsFollowTheGame: spectators the game drops (silent, BYE: SpectatorsGone)
// leave the lobby: their places are free for others, and they are not made players at END; a
// report about an older SPECTATE of the same user (another token) changes nothing.
func TestCoreSpectatorsFollowTheGame(t *testing.T) {
	v := newVLobby(t, ServerConfig{MaxConnsPerAddr: 100})
	owner := v.player("192.0.2.1", "owner")
	code := owner.ok(lobby.CmdJoinLobby)
	owner.ok(lobby.CmdStart)
	g := v.games[0].(*vgame)
	var specs []*vconn
	for i := range handoff.MaxSpectators {
		s := v.player("192.0.2."+strconv.Itoa(10+i), "s"+strconv.Itoa(i)) // MaxSpectatorsPerAddr
		s.ok(lobby.CmdJoinLobby, code)
		specs = append(specs, s)
	}
	stale := g.spectates[7]
	stale.Token++ // another SPECTATE of that user
	v.core.SpectatorsGone(v.now, g, []handoff.Member{g.spectates[0], g.spectates[1], stale})
	v.collect()
	if got := specs[0].fail(lobby.CmdChat, "still here?"); got != "not in a lobby" {
		t.Fatalf("a dropped spectator's CHAT: %q", got)
	}
	if got := specs[7].ok(lobby.CmdChat, "still here"); got != "OK" {
		t.Fatalf("spectator 7's CHAT: %q", got)
	}
	for i := range 2 { // two places are free
		v.player("192.0.2.3", "n"+strconv.Itoa(i)).ok(lobby.CmdJoinLobby, code)
	}
	if got := v.player("192.0.2.3", "late").fail(lobby.CmdJoinLobby, code); !strings.Contains(got, "8 spectators (max)") {
		t.Fatalf("ninth spectator: %q", got)
	}
	specs[2].take()
	v.core.GameEnded(v.now, g, 1)
	v.collect()
	if got := specs[2].pushes(lobby.PushMembers); len(got) != 1 || got[0] != code+",owner,s2,s3,s4" {
		t.Fatalf("MEMBERS at END: %q, want the spectators still watching promoted, in join order", got)
	}
}

// TestCoreChatSanitized: chat is relayed without direction overrides, invisible characters
// and stacks of combining marks, which would let a line pass for another player's or paint
// over the chat; a line made of nothing else is refused.
func TestCoreChatSanitized(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	a, b := v.player("192.0.2.1", "alice"), v.player("192.0.2.2", "bob")
	code := a.ok(lobby.CmdJoinLobby)
	b.ok(lobby.CmdJoinLobby, code)
	for _, tc := range []struct{ in, want string }{
		{"gg \u202Eevil\u202C ok", "gg evil ok"},
		{"a\u200Bb\u2060c\uFEFFd\u200Ee\u2066f\u2069", "abcdef"},
		{"Z" + strings.Repeat("\u0301", 40) + "!", "Z\u0301\u0301!"},
		{"caf\u00e9 na\u0308ive \u0928\u093F", "caf\u00e9 na\u0308ive \u0928\u093F"}, // real accents and scripts stay
		{"line\u2028break\u3164", "linebreak"},
	} {
		b.take()
		v.advance(2 * time.Second) // the chat budget
		a.ok(lobby.CmdChat, lobby.EncodeText(tc.in))
		if got := b.pushes(lobby.PushChat); len(got) != 1 || got[0] != "alice,"+lobby.EncodeText(tc.want) {
			t.Errorf("CHAT %q relayed as %q, want %q", tc.in, got, "alice,"+lobby.EncodeText(tc.want))
		}
	}
	if got := a.fail(lobby.CmdChat, lobby.EncodeText("\u202E\u200B")); got != "chat text: empty text" {
		t.Fatalf("invisible-only chat: %q", got)
	}
}

// The owner chooses the difficulty beside the stage: members hear of each change (a joiner of
// a lobby that is not Normal too), GET_LOBBIES lists it, START hands it to the game, and
// nobody else (nor a running lobby) can change it.
func TestCoreDifficulty(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	a := v.player("192.0.2.1", "alice")
	code := a.ok(lobby.CmdJoinLobby, "")
	if got := a.pushes(lobby.PushDifficulty); len(got) != 0 {
		t.Fatalf("a new (normal) lobby pushed DIFFICULTY %q", got)
	}
	if got := a.fail(lobby.CmdSetDifficulty, "insane"); got != `unknown difficulty "insane" (easy, normal or hard)` {
		t.Fatalf("unknown level: %q", got)
	}
	a.ok(lobby.CmdSetDifficulty, "hard")
	if got := a.pushes(lobby.PushDifficulty); len(got) != 1 || got[0] != code+",hard" {
		t.Fatalf("DIFFICULTY after SET_DIFFICULTY hard: %q", got)
	}
	a.ok(lobby.CmdSetDifficulty, "hard") // unchanged: no push
	if got := a.pushes(lobby.PushDifficulty); len(got) != 0 {
		t.Fatalf("an unchanged level pushed %q", got)
	}
	b := v.player("192.0.2.2", "bob")
	b.ok(lobby.CmdJoinLobby, code)
	if got := b.pushes(lobby.PushDifficulty); len(got) != 1 || got[0] != code+",hard" {
		t.Fatalf("bob joining a hard lobby got DIFFICULTY %q", got)
	}
	if got := b.fail(lobby.CmdSetDifficulty, "easy"); got != "only the lobby owner (alice) may change the difficulty" {
		t.Fatalf("bob's SET_DIFFICULTY: %q", got)
	}
	if got := b.ok(lobby.CmdGetLobbies); !strings.Contains(got, "("+code+",2,false,stage1,hard);") {
		t.Fatalf("GET_LOBBIES %q does not list the level", got)
	}
	a.ok(lobby.CmdStart)
	if len(v.st.specs) != 1 || v.st.specs[0].Difficulty != rules.DifficultyHard {
		t.Fatalf("StartGame specs %+v, want the hard level", v.st.specs)
	}
	if got := a.fail(lobby.CmdSetDifficulty, "easy"); got != "lobby "+code+" is running a game" {
		t.Fatalf("SET_DIFFICULTY while running: %q", got)
	}
}

// Names are unique within a lobby, look-alikes included: a second "alice" (or "ALICE", "aIice",
// "a1ice") is refused with a clear reason, as a player or as a spectator; the same name in
// another lobby is fine.
func TestCoreNamesUniqueInLobby(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	a := v.player("192.0.2.1", "alice")
	code := a.ok(lobby.CmdJoinLobby, "")
	for i, name := range []string{"alice", "ALICE", "aIice", "a1ice"} {
		c := v.player("192.0.2."+strconv.Itoa(10+i), name)
		if got := c.fail(lobby.CmdJoinLobby, code); got != "the name "+name+" is taken in lobby "+code+": choose another name" {
			t.Errorf("%s joining alice's lobby: %q", name, got)
		}
		if i == 0 {
			c.ok(lobby.CmdJoinLobby, "") // its own lobby: fine
		}
	}
	b := v.player("192.0.2.30", "bob")
	b.ok(lobby.CmdJoinLobby, code)
	a.ok(lobby.CmdStart)
	if got := v.player("192.0.2.31", "B0B").fail(lobby.CmdJoinLobby, code); !strings.Contains(got, "is taken") {
		t.Errorf("a look-alike spectator: %q", got)
	}
	if got := v.player("192.0.2.32", "carol").ok(lobby.CmdJoinLobby, code); got != code {
		t.Errorf("carol spectating: %q", got)
	}
}

// TestLobbyOrderFollowsRemovals: GET_LOBBIES lists the lobbies oldest first after lobbies
// in the middle of the list went away (the Core keeps them in creation order, not by sorting).
func TestLobbyOrderFollowsRemovals(t *testing.T) {
	v := newVLobby(t, ServerConfig{})
	var codes []string
	var players []*vconn
	for i := range 5 {
		p := v.player(fmt.Sprintf("192.0.2.%d", i+1), fmt.Sprintf("p%d", i))
		codes = append(codes, p.ok(lobby.CmdJoinLobby))
		players = append(players, p)
	}
	players[1].ok(lobby.CmdLeave)
	players[3].ok(lobby.CmdLeave)
	players[1].ok(lobby.CmdJoinLobby) // the newest now
	var got []string
	for _, l := range v.core.Lobbies() {
		got = append(got, l.Code)
	}
	if want := []string{codes[0], codes[2], codes[4]}; len(got) != 4 || !slices.Equal(got[:3], want) {
		t.Fatalf("lobbies after two left and one was created: %v, want %v then the new one", got, want)
	}
	if body := players[0].ok(lobby.CmdGetLobbies, "2"); !strings.HasPrefix(body, "("+codes[4]+",") {
		t.Fatalf("GET_LOBBIES skipping 2: %q, want %s first", body, codes[4])
	}
}
