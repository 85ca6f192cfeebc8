package fleet

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/handoff"
)

var testSecret = []byte("0123456789abcdef-test-secret")

// fakeStarter is the game runtime of a test host: it records the games it starts.
type fakeStarter struct {
	port int
	mu   sync.Mutex
	gs   []*fakeGame
	err  error
	// gate, when set, makes each start wait until it is closed, after telling entered: a
	// host slow to start its games.
	gate    chan struct{}
	entered chan string
}

func (s *fakeStarter) StartGame(spec handoff.GameSpec) (handoff.Game, error) {
	if s.gate != nil {
		s.entered <- spec.Code
		<-s.gate
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	g := &fakeGame{spec: spec, port: s.port, done: make(chan struct{}), gone: make(chan struct{}, 1)}
	s.gs = append(s.gs, g)
	return g, nil
}

func (s *fakeStarter) games() []*fakeGame {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*fakeGame(nil), s.gs...)
}

type fakeGame struct {
	spec handoff.GameSpec
	port int
	done chan struct{}
	gone chan struct{}

	mu        sync.Mutex
	result    uint8
	ended     bool
	drops     []string
	rejoins   []handoff.Member
	specs     []handoff.Member
	goneList  []handoff.Member
	aborted   bool
	rejoinErr error
}

func (g *fakeGame) Port() int             { return g.port }
func (g *fakeGame) Done() <-chan struct{} { return g.done }
func (g *fakeGame) Result() uint8 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.result
}
func (g *fakeGame) Drop(id uuid.UUID, left bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.drops = append(g.drops, id.String())
}
func (g *fakeGame) Rejoin(m handoff.Member) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.rejoinErr != nil {
		return g.rejoinErr
	}
	g.rejoins = append(g.rejoins, m)
	return nil
}
func (g *fakeGame) Spectate(m handoff.Member) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.specs = append(g.specs, m)
	return nil
}
func (g *fakeGame) SpectatorsGone() <-chan struct{} { return g.gone }
func (g *fakeGame) TakeSpectatorsGone() []handoff.Member {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.goneList
	g.goneList = nil
	return out
}
func (g *fakeGame) Abort() {
	g.mu.Lock()
	g.aborted = true
	g.mu.Unlock()
	g.end(2)
}
func (g *fakeGame) end(r uint8) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.ended {
		g.ended, g.result = true, r
		close(g.done)
	}
}

// testHost is a Host on a loopback port with a fake runtime.
type testHost struct {
	*Host
	st     *fakeStarter
	addr   string
	cancel context.CancelFunc
	done   chan struct{}
}

func startHost(t *testing.T, capacity, udpPort int, public string) *testHost {
	t.Helper()
	return startHostWith(t, &fakeStarter{port: udpPort}, capacity, public)
}

// startHostWith is startHost with the game runtime st (and opts applied to its config).
func startHostWith(t *testing.T, st *fakeStarter, capacity int, public string, opts ...func(*HostConfig)) *testHost {
	t.Helper()
	ln := netOf(t).listen()
	hc := HostConfig{Secret: testSecret, Starter: st, Capacity: capacity, PublicHost: public, Logger: quiet(), Ping: 20 * time.Millisecond}
	for _, o := range opts {
		o(&hc)
	}
	h := NewHost(hc)
	ctx, cancel := context.WithCancel(context.Background())
	th := &testHost{Host: h, st: st, addr: ln.Addr().String(), cancel: cancel, done: make(chan struct{})}
	go func() { defer close(th.done); h.Serve(ctx, ln) }()
	t.Cleanup(th.stop)
	return th
}

func (th *testHost) stop() { th.cancel(); <-th.done }

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func startRemote(t *testing.T, hosts ...string) *Remote {
	t.Helper()
	return startRemoteWith(t, RemoteConfig{Hosts: hosts})
}

// startRemoteWith is startRemote with cfg (the test's secret, logger and heartbeats added).
func startRemoteWith(t *testing.T, cfg RemoteConfig) *Remote {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quiet()
	}
	cfg.Secret, cfg.Ping, cfg.Redial, cfg.Dial = testSecret, 20*time.Millisecond, 10*time.Millisecond, netOf(t).dial
	r := NewRemote(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return r
}

// eventually polls cond (the other side's goroutines run on their own) in the test's virtual
// time.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func spec(code string, players int) handoff.GameSpec {
	s := handoff.GameSpec{Code: code, Stage: "stage1", Difficulty: rules.DifficultyHard}
	for i := range players {
		m := handoff.Member{UUID: uuid.New(), Name: "p" + string(rune('a'+i)), Slot: i, Token: uint32(100 + i)}
		m.Key[0] = byte(i + 1)
		s.Members = append(s.Members, m)
	}
	return s
}

func waitDone(t *testing.T, g handoff.Game) {
	t.Helper()
	select {
	case <-g.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("game not done")
	}
}

// TestHandOver: the lobby's Remote hands games to the least loaded host, which gets the spec
// exactly (members with tokens and keys); START names the host; drop, rejoin and spectate
// reach the game; the end comes back with its result and the host's load follows.
func TestHandOver(t *testing.T) { synctest.Test(t, testHandOver) }

func testHandOver(t *testing.T) {
	a := startHost(t, 2, 5001, "")
	b := startHost(t, 1, 5002, "games.example.org")
	r := startRemote(t, a.addr, b.addr)
	eventually(t, "both hosts up, their capacity known", func() bool { return r.Up() == 2 && freeOf(r) == 3 })

	want := spec("ABCDE", 3)
	g1, err := r.StartGame(want)
	if err != nil {
		t.Fatal(err)
	}
	rg := g1.(*RemoteGame)
	if rg.Port() != 5001 || rg.Host() != "127.0.0.1" {
		t.Fatalf("first game on %s:%d, want 127.0.0.1:5001 (the first of equally free hosts, its control host)", rg.Host(), rg.Port())
	}
	got := a.st.games()[0].spec
	if got.Code != want.Code || got.Stage != want.Stage || got.Difficulty != want.Difficulty || len(got.Members) != 3 {
		t.Fatalf("host got spec %+v, want %+v", got, want)
	}
	for i := range want.Members {
		if got.Members[i] != want.Members[i] {
			t.Fatalf("member %d: host got %+v, want %+v", i, got.Members[i], want.Members[i])
		}
	}
	// a: 1/2 loaded, b: 0/1: b is less loaded.
	g2, err := r.StartGame(spec("FGHJK", 1))
	if err != nil {
		t.Fatal(err)
	}
	if h := g2.(*RemoteGame).Host(); h != "games.example.org" || g2.Port() != 5002 {
		t.Fatalf("second game on %s:%d, want games.example.org:5002 (the host's public name)", h, g2.Port())
	}
	// a 1/2, b full.
	g3, err := r.StartGame(spec("KLMNP", 1))
	if err != nil || g3.Port() != 5001 {
		t.Fatalf("third game: %v on port %v, want host a", err, g3)
	}
	if _, err := r.StartGame(spec("QRSTU", 1)); err == nil {
		t.Fatal("a fourth game started on hosts of capacity 2+1")
	}

	// Drop, rejoin, spectate reach the host's game.
	fg := a.st.games()[0]
	g1.Drop(want.Members[1].UUID, true)
	eventually(t, "drop", func() bool { fg.mu.Lock(); defer fg.mu.Unlock(); return len(fg.drops) == 1 })
	rm := want.Members[1]
	rm.Token, rm.Key[5] = 777, 9
	if err := rg.Rejoin(rm); err != nil {
		t.Fatal(err)
	}
	fg.mu.Lock()
	if len(fg.rejoins) != 1 || fg.rejoins[0] != rm {
		t.Fatalf("host got rejoins %+v, want %+v", fg.rejoins, rm)
	}
	fg.rejoinErr = errors.New("slot not away")
	fg.mu.Unlock()
	if err := rg.Rejoin(rm); err == nil || err.Error() != "slot not away" {
		t.Fatalf("refused rejoin: %v, want the host's reason", err)
	}
	sm := handoff.Member{UUID: uuid.New(), Name: "watcher", Slot: -1, Token: 888}
	if err := rg.Spectate(sm); err != nil {
		t.Fatal(err)
	}
	fg.mu.Lock()
	fg.goneList = []handoff.Member{fg.specs[0]}
	fg.mu.Unlock()
	fg.gone <- struct{}{}
	select {
	case <-rg.SpectatorsGone():
	case <-time.After(5 * time.Second):
		t.Fatal("spectators gone not reported")
	}
	if gone := rg.TakeSpectatorsGone(); len(gone) != 1 || gone[0] != sm {
		t.Fatalf("spectators gone %+v, want %+v", gone, sm)
	}

	// The end comes back; the host's place is free again.
	fg.end(1)
	waitDone(t, g1)
	if g1.Result() != 1 || rg.Lost() {
		t.Fatalf("result %d lost %v, want 1 and not lost", g1.Result(), rg.Lost())
	}
	eventually(t, "load after the end", func() bool { return r.Hosts()[0].Load.Games == 1 })
	if _, err := r.StartGame(spec("QRSTU", 1)); err != nil {
		t.Fatalf("a game after one ended: %v", err)
	}
}

// TestHostLost: a host that dies (here: its control endpoint stops) ends its games as aborted
// on the lobby's side, is marked down, and new games go to the others.
func TestHostLost(t *testing.T) { synctest.Test(t, testHostLost) }

func testHostLost(t *testing.T) {
	a := startHost(t, 4, 5001, "")
	b := startHost(t, 4, 5002, "")
	r := startRemote(t, a.addr, b.addr)
	eventually(t, "both hosts up, their capacity known", func() bool { return r.Up() == 2 && freeOf(r) == 8 })
	g, err := r.StartGame(spec("ABCDE", 2))
	if err != nil || g.Port() != 5001 {
		t.Fatalf("start: %v %v", err, g)
	}
	a.stop()
	waitDone(t, g)
	if g.Result() != 2 || !g.(*RemoteGame).Lost() {
		t.Fatalf("result %d lost %v, want 2 (aborted), lost", g.Result(), g.(*RemoteGame).Lost())
	}
	if !a.st.games()[0].aborted {
		t.Fatal("the host did not abort the game of its lost lobby")
	}
	eventually(t, "host a down", func() bool { return !r.Hosts()[0].Up })
	g2, err := r.StartGame(spec("FGHJK", 2))
	if err != nil || g2.Port() != 5002 {
		t.Fatalf("after host a died: %v on %v, want host b", err, g2)
	}
}

// TestDrain: a draining host takes no new game; its running games go on and end normally.
func TestDrain(t *testing.T) { synctest.Test(t, testDrain) }

func testDrain(t *testing.T) {
	a := startHost(t, 4, 5001, "")
	b := startHost(t, 4, 5002, "")
	r := startRemote(t, a.addr, b.addr)
	eventually(t, "both hosts up, their capacity known", func() bool { return r.Up() == 2 && freeOf(r) == 8 })
	g, err := r.StartGame(spec("ABCDE", 1))
	if err != nil || g.Port() != 5001 {
		t.Fatalf("start: %v", err)
	}
	a.Drain()
	eventually(t, "drain reported", func() bool { return r.Hosts()[0].Load.Draining })
	for i := range 3 {
		g2, err := r.StartGame(spec("FGHK"+string(rune('L'+i)), 1))
		if err != nil || g2.Port() != 5002 {
			t.Fatalf("game %d while a drains: %v", i, err)
		}
	}
	a.st.games()[0].end(0)
	waitDone(t, g)
	if g.Result() != 0 || g.(*RemoteGame).Lost() {
		t.Fatalf("drained game: result %d, lost %v", g.Result(), g.(*RemoteGame).Lost())
	}
	if l := a.Load(); l.Games != 0 || !l.Draining {
		t.Fatalf("drained host load %+v", l)
	}
}

// TestStrangerRefused: whoever reaches the control port without the secret can neither start,
// end nor inspect games: a wrong secret fails the handshake (both ways), plaintext requests
// and tampered frames close the connection, and the runtime never sees a game.
func TestStrangerRefused(t *testing.T) { synctest.Test(t, testStrangerRefused) }

func testStrangerRefused(t *testing.T) {
	h := startHost(t, 4, 5001, "")
	dial := func() net.Conn {
		nc, err := netOf(t).dial(context.Background(), h.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		return nc
	}
	// A wrong secret: refused; the host sends nothing after its hello.
	if _, err := ClientHandshake(dial(), []byte("not the secret at all!"), nil); !errors.Is(err, ErrAuth) {
		t.Fatalf("wrong secret: %v, want ErrAuth", err)
	}
	// A plaintext start request instead of the handshake: no game, connection closed.
	nc := dial()
	hello := make([]byte, HostHelloSize)
	if _, err := io.ReadFull(nc, hello); err != nil {
		t.Fatal(err)
	}
	// (the host closes once it has read a hello's worth: an in-memory pipe, unbuffered, may
	// refuse the rest)
	if _, err := nc.Write(append(encode(&Msg{Type: TypeStart, ID: 1, Spec: specOf(spec("ABCDE", 1))}), make([]byte, LobbyHelloSize)...)); err != nil && !errors.Is(err, io.ErrClosedPipe) {
		t.Fatal(err)
	}
	if n, _ := io.ReadAll(nc); len(n) != 0 { // closed (or reset: unread bytes) without a word
		t.Fatalf("plaintext request answered %q, want the connection closed", n)
	}
	// A replayed handshake (the right proof for another nonce): refused.
	nc = dial()
	if _, err := io.ReadFull(nc, hello); err != nil {
		t.Fatal(err)
	}
	nl := make([]byte, NonceSize)
	other := make([]byte, NonceSize)
	if _, err := nc.Write(AppendLobbyHello(nil, testSecret, other, nl)); err != nil {
		t.Fatal(err)
	}
	if n, _ := io.ReadAll(nc); len(n) != 0 {
		t.Fatalf("replayed proof answered %q", n)
	}
	// An authenticated peer whose frame is tampered with: closed, no game.
	c, err := ClientHandshake(dial(), testSecret, nil)
	if err != nil {
		t.Fatal(err)
	}
	frame := SealFrame(nil, c.wr, 0, encode(&Msg{Type: TypeStart, ID: 1, Spec: specOf(spec("ABCDE", 1))}))
	frame[len(frame)-1] ^= 1
	if _, err := c.nc.Write(frame); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := c.Read(time.Now().Add(5 * time.Second)); err != nil {
			break // loads until the host closes
		}
	}
	if n := len(h.st.games()); n != 0 {
		t.Fatalf("strangers started %d games", n)
	}
	// A lobby that proves the secret is served (the same port, the same host).
	r := startRemote(t, h.addr)
	eventually(t, "host up", func() bool { return r.Up() == 1 })
	if _, err := r.StartGame(spec("ABCDE", 1)); err != nil {
		t.Fatal(err)
	}
}

// TestHostRefusesBadSpec: a start whose members are malformed (from a buggy or newer lobby)
// is refused with the reason; the runtime never sees it.
func TestHostRefusesBadSpec(t *testing.T) { synctest.Test(t, testHostRefusesBadSpec) }

func testHostRefusesBadSpec(t *testing.T) {
	h := startHost(t, 4, 5001, "")
	nc, err := netOf(t).dial(context.Background(), h.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c, err := ClientHandshake(nc, testSecret, nil)
	if err != nil {
		t.Fatal(err)
	}
	bad := specOf(spec("ABCDE", 1))
	bad.Members[0].Key = "nothex"
	if err := c.Write(encode(&Msg{Type: TypeStart, ID: 7, Spec: bad})); err != nil {
		t.Fatal(err)
	}
	for {
		b, err := c.Read(time.Now().Add(5 * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		m, err := decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if m.Type == TypeReply {
			if m.ID != 7 || m.Error == "" {
				t.Fatalf("reply %+v, want a refusal of request 7", m)
			}
			break
		}
	}
	if len(h.st.games()) != 0 {
		t.Fatal("a malformed spec reached the runtime")
	}
}

// TestAllocatedHosts: with an allocator (Agones) the lobby lists no host: each START asks the
// allocator, connects to a host it has not seen and hands the game over there; an allocation
// error is START's error.
func TestAllocatedHosts(t *testing.T) { synctest.Test(t, testAllocatedHosts) }

func testAllocatedHosts(t *testing.T) {
	a := startHost(t, 4, 5001, "")
	b := startHost(t, 4, 5002, "")
	var mu sync.Mutex
	queue := []string{a.addr, b.addr, a.addr}
	r := NewRemote(RemoteConfig{Secret: testSecret, Logger: quiet(), Ping: 20 * time.Millisecond, Dial: netOf(t).dial, Redial: 10 * time.Millisecond,
		Allocate: func(ctx context.Context) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			if len(queue) == 0 {
				return "", errors.New("no GameServer")
			}
			addr := queue[0]
			queue = queue[1:]
			return addr, nil
		}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	defer func() { cancel(); <-done }()
	eventually(t, "Run started", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.ctx != nil })
	for i, want := range []int{5001, 5002, 5001} {
		g, err := r.StartGame(spec("ABCD"+string(rune('E'+i)), 1))
		if err != nil || g.Port() != want {
			t.Fatalf("game %d: %v on %v, want port %d", i, err, g, want)
		}
	}
	if n := len(r.Hosts()); n != 2 {
		t.Fatalf("%d links, want 2 (one per allocated host)", n)
	}
	if _, err := r.StartGame(spec("QRSTU", 1)); err == nil || !strings.Contains(err.Error(), "no GameServer") {
		t.Fatalf("allocation failure: %v", err)
	}
	if len(a.st.games()) != 2 || len(b.st.games()) != 1 {
		t.Fatalf("games on a: %d, b: %d", len(a.st.games()), len(b.st.games()))
	}
}

// TestWedgedHostIsDown: a host whose connection stays open but who sends nothing (a wedged
// process) is down once it has been silent for 5 heartbeat intervals (DeadAfter), not a moment
// before: its games end as lost, and the lobby dials it again a Redial later. In virtual time,
// so to the instant.
func TestWedgedHostIsDown(t *testing.T) { synctest.Test(t, testWedgedHostIsDown) }

func testWedgedHostIsDown(t *testing.T) {
	const ping, redial = 20 * time.Millisecond, 10 * time.Millisecond
	ln := netOf(t).listen()
	var host sync.WaitGroup // the fake host's goroutines (cleanups: after the lobby stops)
	t.Cleanup(host.Wait)
	t.Cleanup(func() { ln.Close() })
	accepted := make(chan time.Time, 4)
	host.Add(1)
	go func() {
		defer host.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- time.Now()
			host.Add(1)
			go func() {
				defer host.Done()
				defer nc.Close()
				c, err := ServerHandshake(nc, testSecret, nil)
				if err != nil {
					return
				}
				c.Write(encode(&Msg{Type: TypeLoad, Load: &Load{Capacity: 4}}))
				for { // answers a start, then falls silent: reads on, sends nothing
					b, err := c.Read(time.Now().Add(time.Hour))
					if err != nil {
						return
					}
					if m, err := decode(b); err == nil && m.Type == TypeStart {
						c.Write(encode(&Msg{Type: TypeReply, ID: m.ID, Port: 6000, Load: &Load{Games: 1, Capacity: 4}}))
					}
				}
			}()
		}
	}()
	r := startRemoteWith(t, RemoteConfig{Hosts: []string{ln.Addr().String()}}) // Ping 20 ms, Redial 10 ms
	eventually(t, "host up", func() bool { return r.Up() == 1 })
	<-accepted
	g, err := r.StartGame(spec("ABCDE", 1))
	if err != nil {
		t.Fatal(err)
	}
	last := time.Now() // the host's last word: its reply
	time.Sleep(5*ping - time.Nanosecond)
	synctest.Wait()
	select {
	case <-g.Done():
		t.Fatalf("the game ended after %v of silence, before DeadAfter (5 pings, %v)", time.Since(last), 5*ping)
	default:
	}
	if r.Up() != 1 {
		t.Fatal("the host is down before 5 pings of silence")
	}
	time.Sleep(time.Nanosecond)
	synctest.Wait()
	select {
	case <-g.Done():
	default:
		t.Fatalf("the game still runs after %v of silence", time.Since(last))
	}
	if !g.(*RemoteGame).Lost() || g.Result() != 2 || r.Up() != 0 {
		t.Fatalf("after 5 pings of silence: lost %v, result %d, %d hosts up; want lost, aborted, none", g.(*RemoteGame).Lost(), g.Result(), r.Up())
	}
	if again := <-accepted; again.Sub(last) != 5*ping+redial {
		t.Fatalf("the lobby dialled again %v after the host's last word, want DeadAfter + Redial (%v)", again.Sub(last), 5*ping+redial)
	}
}

// TestSilentHostTimesOut: a host that is alive (heartbeats) but does not answer a start makes
// START fail after StartTimeout; its connection stays up.
func TestSilentHostTimesOut(t *testing.T) { synctest.Test(t, testSilentHostTimesOut) }

func testSilentHostTimesOut(t *testing.T) {
	ln := netOf(t).listen()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		c, err := ServerHandshake(nc, testSecret, nil)
		if err != nil {
			return
		}
		go func() {
			for {
				if _, err := c.Read(time.Now().Add(time.Minute)); err != nil {
					return // reads (and ignores) the lobby's requests
				}
			}
		}()
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		for {
			if c.Write(encode(&Msg{Type: TypeLoad, Load: &Load{Capacity: 4}})) != nil {
				return
			}
			select {
			case <-stop:
				return
			case <-tk.C:
			}
		}
	}()
	r := NewRemote(RemoteConfig{Hosts: []string{ln.Addr().String()}, Secret: testSecret, Logger: quiet(), Ping: 20 * time.Millisecond, Dial: netOf(t).dial,
		Redial: 10 * time.Millisecond, StartTimeout: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx) }()
	defer func() { cancel(); <-done; close(stop); ln.Close(); wg.Wait() }()
	eventually(t, "host up", func() bool { return r.Up() == 1 })
	t0 := time.Now() // virtual: exact
	if _, err := r.StartGame(spec("ABCDE", 1)); err == nil || !strings.Contains(err.Error(), "no answer in time") {
		t.Fatalf("start on a silent host: %v", err)
	}
	if d := time.Since(t0); d != 100*time.Millisecond {
		t.Fatalf("START failed after %v with a 100 ms timeout", d)
	}
	if r.Up() != 1 {
		t.Fatal("a slow answer dropped the host's connection")
	}
}

// freeOf is the games r's hosts can still take, as r knows it (a host's capacity is known once
// its first load report came: until then a host that is up takes no game).
func freeOf(r *Remote) int {
	n := 0
	for _, h := range r.Hosts() {
		n += h.Free()
	}
	return n
}

// TestSlowHostDelaysOnlyItsStart: starts run at once (the lobby's AsyncStart): while one waits
// for a host slow to start its game, the next goes to the other host at once — the slow host's
// start in flight counts as a game, so it is not chosen (its session would answer only after
// the first) — and completes; then the slow one completes on its host.
func TestSlowHostDelaysOnlyItsStart(t *testing.T) { synctest.Test(t, testSlowHostDelaysOnlyItsStart) }

func testSlowHostDelaysOnlyItsStart(t *testing.T) {
	gate := make(chan struct{})
	slow := startHostWith(t, &fakeStarter{port: 5001, gate: gate, entered: make(chan string, 4)}, 4, "")
	fast := startHost(t, 4, 5002, "")
	// No timeout to fall back on: a start sent to the slow host would wait for it.
	r := startRemoteWith(t, RemoteConfig{Hosts: []string{slow.addr, fast.addr}, StartTimeout: time.Hour})
	var once sync.Once
	open := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(open) // before the hosts stop (cleanups run last first)
	eventually(t, "both hosts up, their capacity known", func() bool { return r.Up() == 2 && freeOf(r) == 8 })
	type result struct {
		g   handoff.Game
		err error
	}
	first := make(chan result, 1)
	go func() {
		g, err := r.StartGame(spec("SLAB2", 1))
		first <- result{g, err}
	}()
	select {
	case code := <-slow.st.entered:
		if code != "SLAB2" {
			t.Fatalf("the slow host got %s first", code)
		}
	case res := <-first:
		t.Fatalf("the first start did not wait for the slow host: %v", res.err)
	}
	g, err := r.StartGame(spec("FAST2", 1))
	if err != nil || g.Port() != 5002 {
		t.Fatalf("the second start while the first waits: %v on port %d, want the other host (5002)", err, portOf(g))
	}
	open()
	res := <-first
	if res.err != nil || res.g.Port() != 5001 {
		t.Fatalf("the slow start: %v on port %d, want its host (5001)", res.err, portOf(res.g))
	}
}

func portOf(g handoff.Game) int {
	if g == nil {
		return 0
	}
	return g.Port()
}
