package lobbyserver

import (
	"errors"
	"fmt"
	"net"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby"
)

// TestFullFlow: create, join, list, start (tokens, slots, pushes), running
// lobby refuses joins, END, lobby waiting again, leave, removal.
func TestFullFlow(t *testing.T) {
	st := newFakeStarter()
	srv, addr := startServer(t, ServerConfig{Starter: st})

	alice, aliceID := dialClient(t, addr, "alice")
	bob, bobID := dialClient(t, addr, "bob")
	carol, _ := dialClient(t, addr, "carol")
	if aliceID == bobID || aliceID.Version() != 4 || bobID.Version() != 4 {
		t.Fatalf("uuids %v %v: want two distinct v4 uuids", aliceID, bobID)
	}

	code, err := alice.Join("")
	if err != nil {
		t.Fatal(err)
	}
	if !lobby.ValidCode(code) {
		t.Fatalf("created code %q is not a valid join code", code)
	}
	waitMembers(t, alice, code, "alice")
	// Codes are accepted in lower case too.
	if got, err := bob.Join(strings.ToLower(code)); err != nil || got != code {
		t.Fatalf("bob Join(%q) = %q, %v", code, got, err)
	}
	waitMembers(t, alice, code, "alice", "bob")
	waitMembers(t, bob, code, "alice", "bob")

	ls, err := carol.Lobbies()
	if err != nil {
		t.Fatal(err)
	}
	if want := []lobby.LobbyInfo{{Code: code, Players: 2, Running: false, Stage: "stage1", Difficulty: 0}}; !reflect.DeepEqual(ls, want) {
		t.Fatalf("Lobbies = %v, want %v", ls, want)
	}

	// Only the owner (the first member) starts the game.
	if re := respErr(t, bob.Start(), 500); re.Reason != "only the lobby owner (alice) may start the game" {
		t.Fatalf("bob's START: %q", re.Reason)
	}
	if err := alice.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	var call startCall
	select {
	case call = <-st.ch:
	case <-time.After(waitTime):
		t.Fatal("StartGame not called")
	}
	if call.code != code || call.stage != "stage1" || len(call.members) != 2 {
		t.Fatalf("StartGame(%q, %q, %v), want the default stage stage1", call.code, call.stage, call.members)
	}
	for i, m := range call.members {
		wantID, wantName := aliceID, "alice"
		if i == 1 {
			wantID, wantName = bobID, "bob"
		}
		if m.UUID != wantID || m.Name != wantName || m.Slot != i || m.Token == 0 {
			t.Fatalf("member %d = %+v, want %v %s slot %d, token != 0", i, m, wantID, wantName, i)
		}
	}
	if call.members[0].Token == call.members[1].Token {
		t.Fatal("two members got the same token")
	}
	if call.members[0].Key == call.members[1].Key || call.members[0].Key == ([16]byte{}) {
		t.Fatal("the members' session keys are zero or equal")
	}
	as, err := alice.WaitStart(waitCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	bs, err := bob.WaitStart(waitCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	def := lobby.StageInfo{Name: "stage1", Hash: defaultHash(t)}
	m0, m1 := call.members[0], call.members[1]
	if as != (lobby.StartInfo{Port: fakePort, Token: m0.Token, Stage: def, Key: m0.Key, Code: code}) || bs != (lobby.StartInfo{Port: fakePort, Token: m1.Token, Stage: def, Key: m1.Key, Code: code}) {
		t.Fatalf("START pushes alice=%+v bob=%+v, want port %d and own tokens %d/%d and keys",
			as, bs, fakePort, m0.Token, m1.Token)
	}

	// Running: listed as running, joins refused, START refused.
	if ls, _ := carol.Lobbies(); !reflect.DeepEqual(ls, []lobby.LobbyInfo{{Code: code, Players: 2, Running: true, Stage: "stage1", Difficulty: 0}}) {
		t.Fatalf("Lobbies while running = %v", ls)
	}
	_, err = carol.Join(code)
	respErr(t, err, 500)
	respErr(t, alice.Start(), 500)

	call.game.end(1)
	for _, c := range []*lobby.Client{alice, bob} {
		res, err := c.WaitEnd(waitCtx(t))
		if err != nil || res != 1 {
			t.Fatalf("WaitEnd = %d, %v; want 1", res, err)
		}
	}
	if ls, _ := carol.Lobbies(); !reflect.DeepEqual(ls, []lobby.LobbyInfo{{Code: code, Players: 2, Running: false, Stage: "stage1", Difficulty: 0}}) {
		t.Fatalf("Lobbies after END = %v, want waiting", ls)
	}
	// Waiting again: carol can join now.
	if _, err := carol.Join(code); err != nil {
		t.Fatalf("join after END: %v", err)
	}
	waitMembers(t, alice, code, "alice", "bob", "carol")

	if err := alice.Leave(); err != nil {
		t.Fatal(err)
	}
	if c, names := alice.Members(); c != "" || len(names) != 0 {
		t.Fatalf("Members after Leave = %q %v, want empty", c, names)
	}
	waitMembers(t, bob, code, "bob", "carol") // bob is the new owner
	respErr(t, alice.Leave(), 500)            // not in a lobby any more
	if err := bob.Leave(); err != nil {
		t.Fatal(err)
	}
	if err := carol.Leave(); err != nil {
		t.Fatal(err)
	}
	if ls, err := alice.Lobbies(); err != nil || len(ls) != 0 {
		t.Fatalf("Lobbies after everyone left = %v, %v; want none", ls, err)
	}
	if got := srv.Lobbies(); len(got) != 0 {
		t.Fatalf("Server.Lobbies = %v, want none", got)
	}
	if len(call.game.dropped) != 0 {
		t.Fatalf("Drop called for %v although nobody left mid-game", call.game.dropped)
	}
}

func TestFifthPlayerRefused(t *testing.T) {
	_, addr := startServer(t, ServerConfig{Starter: newFakeStarter()})
	owner, _ := dialClient(t, addr, "p0")
	code, err := owner.Join("")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < rules.MaxPlayers; i++ {
		c, _ := dialClient(t, addr, fmt.Sprintf("p%d", i))
		if _, err := c.Join(code); err != nil {
			t.Fatalf("player %d: %v", i, err)
		}
	}
	waitMembers(t, owner, code, "p0", "p1", "p2", "p3")
	fifth, _ := dialClient(t, addr, "p4")
	_, err = fifth.Join(code)
	if re := respErr(t, err, 500); !strings.Contains(re.Reason, "full") {
		t.Fatalf("reason %q does not say the lobby is full", re.Reason)
	}
	if ls, _ := fifth.Lobbies(); len(ls) != 1 || ls[0].Players != rules.MaxPlayers {
		t.Fatalf("Lobbies = %v, want one lobby with 4 players", ls)
	}
	// The refused player can still create its own lobby.
	if _, err := fifth.Join(""); err != nil {
		t.Fatal(err)
	}
}

func TestJoinErrors(t *testing.T) {
	_, addr := startServer(t, ServerConfig{MaxLobbies: 1, Starter: newFakeStarter()})
	a, _ := dialClient(t, addr, "a")
	b, _ := dialClient(t, addr, "b")
	_, err := a.Join("ZZZZZ")
	respErr(t, err, 500) // no such lobby
	_, err = a.Join("0OOO1")
	respErr(t, err, 500) // not a code
	code, err := a.Join("")
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Join("")
	if re := respErr(t, err, 500); !strings.Contains(re.Reason, "too many lobbies") {
		t.Fatalf("reason %q, want too many lobbies", re.Reason)
	}
	// The sole member of the only lobby may re-create: its old lobby goes.
	code2, err := a.Join("")
	if err != nil {
		t.Fatalf("re-create with max 1 lobby: %v", err)
	}
	if ls, _ := b.Lobbies(); len(ls) != 1 || ls[0].Code != code2 || code2 == code {
		t.Fatalf("Lobbies = %v, want only the new lobby %s (old %s)", ls, code2, code)
	}
	// Joining the lobby one is in changes nothing.
	if got, err := a.Join(code2); err != nil || got != code2 {
		t.Fatalf("re-join own lobby = %q, %v", got, err)
	}
	respErr(t, b.Start(), 500) // not in a lobby
}

// A member that joins another lobby leaves the first one, which is removed
// when emptied, and the remaining members are told.
func TestSwitchLobby(t *testing.T) {
	_, addr := startServer(t, ServerConfig{Starter: newFakeStarter()})
	a, _ := dialClient(t, addr, "a")
	b, _ := dialClient(t, addr, "b")
	c, _ := dialClient(t, addr, "c")
	la, _ := a.Join("")
	lb, _ := b.Join("")
	if _, err := c.Join(la); err != nil {
		t.Fatal(err)
	}
	waitMembers(t, a, la, "a", "c")
	if _, err := a.Join(lb); err != nil {
		t.Fatal(err)
	}
	waitMembers(t, c, la, "c")
	waitMembers(t, b, lb, "b", "a")
	if _, err := c.Join(lb); err != nil {
		t.Fatal(err)
	}
	ls, _ := c.Lobbies()
	if !reflect.DeepEqual(ls, []lobby.LobbyInfo{{Code: lb, Players: 3, Running: false, Stage: "stage1", Difficulty: 0}}) {
		t.Fatalf("Lobbies = %v, want only %s with 3 players", ls, lb)
	}
}

func TestMalformedLineKeepsConnection(t *testing.T) {
	_, addr := startServer(t, ServerConfig{})
	r := dialRaw(t, addr)
	id := r.auth("alice")
	for _, bad := range []string{
		"HELLO " + id + ";\r\n",        // unknown command
		"get_lobbies " + id + ";\r\n",  // not capitalized
		"GET_LOBBIES " + id + "\r\n",   // no ';'
		"GET_LOBBIES " + id + ";\n",    // bare LF
		"\r\n",                         // empty
		"GET_LOBBIES " + id + ";x\r\n", // unexpected argument
		"AUTHENTICATE " + id + ";bob\r\n",
		"AUTHENTICATE ;bob\r\n", // already authenticated
		"AUTHENTICATE ;a,b\r\n",
		"JOIN_LOBBY " + id + ";K7QF2,ABCDE\r\n",
		"LEAVE " + id + ";\r\n", // not in a lobby
		"GET_LOBBIES " + id + ";\xff\r\n",
	} {
		resp, err := lobby.ParseResponse([]byte(r.roundTrip(bad)))
		if err != nil || resp.Code != 500 || resp.Body == "" {
			t.Fatalf("%q -> %#v, %v; want 500 with a reason", bad, resp, err)
		}
	}
	// The same connection still works.
	if got := r.roundTrip("JOIN_LOBBY " + id + ";\r\n"); !strings.HasPrefix(got, "200 ") {
		t.Fatalf("JOIN_LOBBY after errors = %q", got)
	}
}

func TestBadNameRefused(t *testing.T) {
	_, addr := startServer(t, ServerConfig{})
	r := dialRaw(t, addr)
	for _, name := range []string{"this_name_is_far_too_long", "sp ace", "caf\xc3\xa9"} {
		if got := r.roundTrip("AUTHENTICATE ;" + name + "\r\n"); !strings.HasPrefix(got, "500 ") {
			t.Errorf("AUTHENTICATE %q -> %q, want 500", name, got)
		}
	}
	// Empty name: the default.
	id := r.auth("")
	r.send("JOIN_LOBBY " + id + ";\r\n")
	r.line()
	if m := r.line(); !regexp.MustCompile(`^MEMBERS [0-9a-f-]{36};[A-Z0-9]{5},Pilot-[0-9A-F]{4}\r\n$`).MatchString(m) {
		t.Fatalf("MEMBERS = %q, want a default name Pilot-XXXX", m)
	}
}

func TestUnknownUUID(t *testing.T) {
	srvID := uuid.New()
	_, addr := startServer(t, ServerConfig{ServerUUID: srvID})
	r := dialRaw(t, addr)
	other := dialRaw(t, addr)
	otherID := other.auth("other")

	// Before AUTHENTICATE, and with uuids that are not this connection's.
	for _, hdr := range []string{uuid.NewString(), "", otherID, "not-a-uuid", strings.ToUpper(uuid.NewString()), "{" + otherID + "}"} {
		got := r.roundTrip("GET_LOBBIES " + hdr + ";\r\n")
		resp, err := lobby.ParseResponse([]byte(got))
		if err != nil || resp.Code != 401 || resp.Header != srvID.String() || resp.Body == "" {
			t.Fatalf("header %q -> %q, want 401 %s <reason>", hdr, got, srvID)
		}
	}
	id := r.auth("me")
	if got := r.roundTrip("GET_LOBBIES " + uuid.NewString() + ";\r\n"); !strings.HasPrefix(got, "401 ") {
		t.Fatalf("unknown uuid after AUTHENTICATE -> %q", got)
	}
	if got := r.roundTrip("GET_LOBBIES " + otherID + ";\r\n"); !strings.HasPrefix(got, "401 ") {
		t.Fatalf("another connection's uuid -> %q, want 401", got)
	}
	if got := r.roundTrip("GET_LOBBIES " + id + ";\r\n"); got != "200 "+srvID.String()+" \r\n" {
		t.Fatalf("GET_LOBBIES after 401s = %q", got)
	}
}

func TestLongLineClosesConnection(t *testing.T) {
	srv, addr := startServer(t, ServerConfig{})
	r := dialRaw(t, addr)
	id := r.auth("alice")
	r.send("JOIN_LOBBY " + id + ";\r\n")
	r.line()
	r.line() // MEMBERS
	r.line() // STAGE
	// A line of exactly MaxLine bytes is still a line (here: wrong arguments).
	exact := "GET_LOBBIES " + id + ";"
	exact += strings.Repeat("x", lobby.MaxLine-len(exact)-2) + "\r\n"
	if got := r.roundTrip(exact); !strings.HasPrefix(got, "500 ") {
		t.Fatalf("%d-byte line -> %q, want 500", len(exact), got)
	}
	r.send("GET_LOBBIES " + id + ";" + strings.Repeat("x", lobby.MaxLine) + "\r\n")
	r.expectClosed(waitTime)
	// Closing removed the member and its lobby.
	eventually(t, "lobby removal", func() bool { return len(srv.Lobbies()) == 0 })

	// No LF at all within the limit.
	r2 := dialRaw(t, addr)
	r2.send(strings.Repeat("A", lobby.MaxLine+10))
	r2.expectClosed(waitTime)
}

func TestVanishedClientRemoved(t *testing.T) {
	srv, addr := startServer(t, ServerConfig{Starter: newFakeStarter()})
	a, _ := dialClient(t, addr, "a")
	b, _ := dialClient(t, addr, "b")
	code, _ := a.Join("")
	if _, err := b.Join(code); err != nil {
		t.Fatal(err)
	}
	waitMembers(t, a, code, "a", "b")
	b.Close()
	waitMembers(t, a, code, "a")
	if ls := srv.Lobbies(); !reflect.DeepEqual(ls, []lobby.LobbyInfo{{Code: code, Players: 1, Running: false, Stage: "stage1", Difficulty: 0}}) {
		t.Fatalf("Lobbies = %v", ls)
	}
	a.Close()
	observer, _ := dialClient(t, addr, "o")
	eventually(t, "emptied lobby removal", func() bool {
		ls, err := observer.Lobbies()
		return err == nil && len(ls) == 0
	})
}

func TestLeaveMidGameDrops(t *testing.T) {
	st := newFakeStarter()
	_, addr := startServer(t, ServerConfig{Starter: st})
	a, _ := dialClient(t, addr, "a")
	b, bID := dialClient(t, addr, "b")
	c, cID := dialClient(t, addr, "c")
	code, _ := a.Join("")
	b.Join(code)
	c.Join(code)
	waitMembers(t, a, code, "a", "b", "c")
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	g := st.lastGame(t)

	if err := b.Leave(); err != nil {
		t.Fatal(err)
	}
	expectDrop(t, g, bID)
	waitMembers(t, a, code, "a", "c")

	c.Close() // vanishing mid-game drops too
	expectDrop(t, g, cID)
	waitMembers(t, a, code, "a")

	// b cannot come back while the game runs.
	_, err := b.Join(code)
	respErr(t, err, 500)
	g.end(2)
	if res, err := a.WaitEnd(waitCtx(t)); err != nil || res != 2 {
		t.Fatalf("WaitEnd = %d, %v", res, err)
	}
	if _, err := b.Join(code); err != nil {
		t.Fatalf("join after END: %v", err)
	}
}

func expectDrop(t *testing.T, g *fakeGame, want uuid.UUID) {
	t.Helper()
	select {
	case id := <-g.dropCh:
		if id != want {
			t.Fatalf("Drop(%v), want Drop(%v)", id, want)
		}
	case <-time.After(waitTime):
		t.Fatalf("Drop(%v) not called", want)
	}
}

func TestStartFailure(t *testing.T) {
	st := newFakeStarter()
	st.err = errors.New("no free udp port")
	srv, addr := startServer(t, ServerConfig{Starter: st})
	a, _ := dialClient(t, addr, "a")
	code, _ := a.Join("")
	if re := respErr(t, a.Start(), 500); !strings.Contains(re.Reason, "no free udp port") {
		t.Fatalf("reason %q does not carry the starter's error", re.Reason)
	}
	if ls := srv.Lobbies(); !reflect.DeepEqual(ls, []lobby.LobbyInfo{{Code: code, Players: 1, Running: false, Stage: "stage1", Difficulty: 0}}) {
		t.Fatalf("Lobbies after failed start = %v, want waiting", ls)
	}
	st.mu.Lock()
	st.err = nil
	st.mu.Unlock()
	if err := a.Start(); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if _, err := a.WaitStart(waitCtx(t)); err != nil {
		t.Fatal(err)
	}
}

func TestNoStarter(t *testing.T) {
	_, addr := startServer(t, ServerConfig{})
	a, _ := dialClient(t, addr, "a")
	a.Join("")
	respErr(t, a.Start(), 500)
}

// Serve returns (and every goroutine ends: goleak in TestMain) while clients
// are connected, in lobbies and in a running game.
func TestServeShutdown(t *testing.T) {
	st := newFakeStarter()
	ln := mustListen(t)
	s := NewServer(withStages(ServerConfig{Starter: st, Logger: testLogger(t)}))
	ctx, cancel := contextWithCancel()
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ctx, ln) }()
	addr := ln.Addr().String()
	a, _ := dialClient(t, addr, "a")
	b, _ := dialClient(t, addr, "b")
	code, _ := a.Join("")
	b.Join(code)
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	idle := dialRaw(t, addr)
	idle.send("GET_LOB") // half a line
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Serve = %v", err)
		}
	case <-time.After(waitTime):
		t.Fatal("Serve did not return")
	}
	if _, err := a.WaitEnd(waitCtx(t)); err == nil {
		t.Fatal("WaitEnd succeeded on a closed server")
	}
	idle.expectClosed(waitTime)
	if err := s.Serve(ctx, mustListen(t)); err == nil {
		t.Fatal("second Serve call did not fail")
	}
}

// Requests issued concurrently on one Client are serialized and each gets
// its own response.
func TestClientConcurrentRequests(t *testing.T) {
	_, addr := startServer(t, ServerConfig{CommandRate: 1000})
	a, _ := dialClient(t, addr, "a")
	code, _ := a.Join("")
	errc := make(chan error, 20)
	for i := range 20 {
		go func() {
			if i%2 == 0 {
				ls, err := a.Lobbies()
				if err == nil && (len(ls) != 1 || ls[0].Code != code) {
					err = fmt.Errorf("Lobbies = %v", ls)
				}
				errc <- err
			} else {
				got, err := a.Join(code)
				if err == nil && got != code {
					err = fmt.Errorf("Join = %q", got)
				}
				errc <- err
			}
		}()
	}
	for range 20 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
}

func TestClientErrors(t *testing.T) {
	_, addr := startServer(t, ServerConfig{})
	ctx := waitCtx(t)
	c, err := lobby.Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	// Before Authenticate the header is empty: the server says 401.
	_, err = c.Lobbies()
	respErr(t, err, 401)
	if _, err := c.Authenticate("bad name"); err == nil {
		t.Fatal("Authenticate accepted an invalid name")
	}
	if _, err := c.Authenticate(""); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := c.Lobbies(); !errors.Is(err, lobby.ErrClosed) {
		t.Fatalf("Lobbies after Close = %v, want ErrClosed", err)
	}
	if _, err := c.WaitStart(ctx); !errors.Is(err, lobby.ErrClosed) {
		t.Fatalf("WaitStart after Close = %v, want ErrClosed", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}

// The client rejects a server that breaks the protocol and closes.
func TestClientProtocolViolation(t *testing.T) {
	addr, wait := fakeServer(t, func(nc net.Conn, lr *lobby.LineReader) {
		nc.Write([]byte("START " + vSrv + ";0,0\r\n")) // port and token 0: invalid
		lr.ReadLine()                                  // until the client closes
	})
	c, err := lobby.Dial(waitCtx(t), addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Authenticate("a"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitStart(waitCtx(t)); !errors.Is(err, lobby.ErrProtocol) {
		t.Fatalf("WaitStart = %v, want ErrProtocol", err)
	}
	c.Close()
	wait()
}

// A client that lets more than maxOutbox bytes pile up is disconnected
// instead of making the server buffer without bound.
func TestSlowClientDisconnected(t *testing.T) {
	a, b := netPipe(t)
	c := &conn{nc: a, wake: make(chan struct{}, 1)} // no writer running: nothing drains
	line := []byte("MEMBERS " + vSrv + ";ABCDE," + strings.Repeat("n", 16) + "\r\n")
	for range maxOutbox / len(line) {
		c.send(line)
	}
	c.wmu.Lock()
	dead, queued := c.dead, len(c.out)
	c.wmu.Unlock()
	if dead || queued == 0 {
		t.Fatalf("dead=%v queued=%d before the limit", dead, queued)
	}
	c.send(line)
	c.send(line)
	c.wmu.Lock()
	dead = c.dead
	c.wmu.Unlock()
	if !dead {
		t.Fatal("connection not marked dead past maxOutbox")
	}
	b.SetReadDeadline(time.Now().Add(waitTime))
	if _, err := b.Read(make([]byte, 1)); err == nil {
		t.Fatal("peer can still read: connection not closed")
	}
}

// Many clients creating, joining, starting, leaving and disconnecting at
// once (run with -race): only 200/500 answers, games get ended, and in the
// end no lobby is left.
func TestConcurrentChurn(t *testing.T) {
	st := newFakeStarter()
	st.ch = make(chan startCall, 1000)
	srv, addr := startServer(t, ServerConfig{Starter: st, Logger: discardLogger()})
	stopEnder := make(chan struct{})
	enderDone := make(chan struct{})
	go func() { // ends every started game after a moment
		defer close(enderDone)
		for {
			select {
			case c := <-st.ch:
				time.Sleep(time.Millisecond)
				c.game.end(0)
			case <-stopEnder:
				return
			}
		}
	}()
	const n = 8
	errc := make(chan error, n)
	for i := range n {
		go func() {
			c, err := lobby.Dial(waitCtx(t), addr)
			if err != nil {
				errc <- err
				return
			}
			defer c.Close()
			if _, err := c.Authenticate(fmt.Sprintf("c%d", i)); err != nil {
				errc <- err
				return
			}
			for j := range 30 {
				var err error
				switch (i + j) % 5 {
				case 0:
					_, err = c.Join("")
				case 1:
					var ls []lobby.LobbyInfo
					if ls, err = c.Lobbies(); err == nil && len(ls) > 0 {
						_, err = c.Join(ls[j%len(ls)].Code)
					}
				case 2:
					err = c.Start()
				case 3:
					err = c.Leave()
				case 4:
					_, err = c.Lobbies()
				}
				var re *lobby.ResponseError
				if err != nil && !(errors.As(err, &re) && re.Code == 500) {
					errc <- fmt.Errorf("client %d step %d: %w", i, j, err)
					return
				}
			}
			errc <- nil
		}()
	}
	for range n {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
	close(stopEnder)
	<-enderDone
	eventually(t, "all lobbies removed", func() bool { return len(srv.Lobbies()) == 0 })
}

// The START push: a key of 32 lowercase hex digits is the session key; a push without one (an
// older server) gives a zero key; a malformed key is a protocol violation (docs/PROTOCOL.md §2.5.1).
func TestClientStartPushKey(t *testing.T) {
	for _, tc := range []struct {
		args string
		key  [16]byte
		ok   bool
	}{
		{"4243,77,000102030405060708090a0b0c0d0e0f", [16]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, true},
		{"4243,77", [16]byte{}, true},
		{"4243,77,000102030405060708090A0B0C0D0E0F", [16]byte{}, false},
		{"4243,77,0001020304", [16]byte{}, false},
		{"4243,77,000102030405060708090a0b0c0d0e0f,1", [16]byte{}, false},
	} {
		addr, wait := fakeServer(t, func(nc net.Conn, lr *lobby.LineReader) {
			nc.Write([]byte("START " + vSrv + ";" + tc.args + "\r\n"))
			lr.ReadLine() // until the client closes
		})
		c, err := lobby.Dial(waitCtx(t), addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Authenticate("a"); err != nil {
			t.Fatal(err)
		}
		st, err := c.WaitStart(waitCtx(t))
		if tc.ok && (err != nil || st.Key != tc.key || st.Port != 4243 || st.Token != 77) {
			t.Errorf("START %s: %+v, %v; want key % x", tc.args, st, err, tc.key)
		}
		if !tc.ok && !errors.Is(err, lobby.ErrProtocol) {
			t.Errorf("START %s: %v, want ErrProtocol", tc.args, err)
		}
		c.Close()
		wait()
	}
}
