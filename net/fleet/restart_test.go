package fleet

import (
	"bytes"
	"context"
	"log/slog"
	"reflect"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/lobby/handoff"
)

// restartHost is a host whose games report a record and a 50 KB replay (2 parts).
func restartHost(t *testing.T) (*testHost, *Record, []byte) {
	rec := &Record{Ticks: 900, Slots: []SlotRecord{{Score: 700, Kills: 7, Deaths: 1}, {Score: 50, Kills: 1, Deaths: 3}}}
	file := randBytes(50_000, 7)
	th := startHostWith(t, &fakeStarter{port: 6000}, 8, "", func(hc *HostConfig) {
		hc.Report = func(handoff.GameSpec, handoff.Game) (*Record, []byte) { return rec, file }
	})
	return th, rec, file
}

// lobbyRun is one run of a lobby process: a Remote named id over the test's network, its
// ends recorded; crash ends it as kill -9 would (its connections close, no bye).
type lobbyRun struct {
	r      *Remote
	ends   *endRecorder
	adopts chan handoff.GameSpec // OnAdopt's specs
	cancel context.CancelFunc
	done   chan struct{}
}

func runLobby(t *testing.T, id string, hosts ...string) *lobbyRun {
	return runLobbyWith(t, id, nil, hosts...)
}

// runLobbyWith is runLobby with opt applied to the Remote's config.
func runLobbyWith(t *testing.T, id string, opt func(*RemoteConfig), hosts ...string) *lobbyRun {
	e := &endRecorder{gs: map[string]handoff.Game{}}
	adopts := make(chan handoff.GameSpec, 16)
	rc := RemoteConfig{Hosts: hosts, ID: id, Secret: testSecret, Logger: quiet(), Ping: 20 * time.Millisecond,
		Redial: 10 * time.Millisecond, Dial: netOf(t).dial, OnGameEnd: e.onGameEnd,
		OnAdopt: func(spec handoff.GameSpec, _ handoff.Game) { adopts <- spec }}
	if opt != nil {
		opt(&rc)
	}
	r := NewRemote(rc)
	ctx, cancel := context.WithCancel(context.Background())
	lr := &lobbyRun{r: r, ends: e, adopts: adopts, cancel: cancel, done: make(chan struct{})}
	go func() { defer close(lr.done); r.Run(ctx) }()
	t.Cleanup(lr.stop)
	if len(hosts) > 0 { // -hosts; an allocating lobby's own (runAllocLobby) may be up or not
		eventually(t, "the lobby's host up", func() bool { return r.Up() == len(hosts) })
	}
	return lr
}

func (lr *lobbyRun) crash() { lr.r.crashed.Store(true); lr.stop() }
func (lr *lobbyRun) stop()  { lr.cancel(); <-lr.done }

func restartSpec(code string) handoff.GameSpec {
	s := spec(code, 2)
	s.ID = uuid.New()
	return s
}

// TestLobbyRestartKeepsGames is issue 32's "kill -9 of the lobby loses no game", in virtual
// time: a lobby (named, as runLobby names it from its data directory) runs two games on a
// host and crashes. The host aborts neither; one ends while no lobby is there. A new lobby
// of the same name connects: the host hands back the running game (running) and the end it
// held; the new lobby's OnGameEnd (its hall of fame) gets that end with the first run's game
// id, names, the host's record and the replay byte for byte, then the second game's when it
// ends. A new start on the new run gets a request id the host does not confuse with the
// first run's.
func TestLobbyRestartKeepsGames(t *testing.T) { synctest.Test(t, testLobbyRestartKeepsGames) }

func testLobbyRestartKeepsGames(t *testing.T) {
	h, rec, file := restartHost(t)
	first := runLobby(t, "lobby-a", h.addr)
	s1, s2 := restartSpec("AAAAA"), restartSpec("BBBBB")
	for _, sp := range []handoff.GameSpec{s1, s2} {
		if _, err := first.r.StartGame(sp); err != nil {
			t.Fatal(err)
		}
	}
	first.crash()
	time.Sleep(time.Second) // the host has seen the connection close
	gs := h.st.games()
	for _, g := range gs {
		g.mu.Lock()
		aborted := g.aborted
		g.mu.Unlock()
		if aborted {
			t.Fatalf("game %s aborted when its lobby crashed", g.spec.Code)
		}
	}
	if l := h.Load(); l.Games != 2 {
		t.Fatalf("host load %+v after the lobby crashed, want its 2 games", l)
	}
	gs[0].end(1) // ends while no lobby is there: held
	eventually(t, "the host counts the end", func() bool { return h.Load().Games == 1 })

	second := runLobby(t, "lobby-a", h.addr)
	select {
	case <-second.r.Attached(): // the host handed back what it has: OnAdopt was called
	case <-time.After(5 * time.Second):
		t.Fatal("Attached not closed")
	}
	if len(second.adopts) != 1 {
		t.Fatalf("%d games adopted when Attached closed, want the running one", len(second.adopts))
	}
	eventually(t, "the held end kept by the new lobby", func() bool { return len(second.ends.get()) == 1 })
	got := second.ends.get()[0]
	if got.spec.ID != s1.ID || got.spec.Code != s1.Code || got.spec.Members[1].Name != s1.Members[1].Name || got.end.Lost || got.end.Result != 1 ||
		!reflect.DeepEqual(got.end.Record, rec) || !bytes.Equal(got.end.Replay, file) {
		t.Fatalf("held end: spec %+v end %+v (replay %d bytes), want game %v with its record and replay", got.spec, got.end, len(got.end.Replay), s1.ID)
	}
	eventually(t, "the running game taken back", func() bool {
		second.r.mu.Lock()
		defer second.r.mu.Unlock()
		l := second.r.links[0]
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.games) == 1
	})
	// The lobby recreates the running game's room from its spec (OnAdopt): its code, game id,
	// and members with their session keys (RESUME's proofs).
	select {
	case got := <-second.adopts:
		if got.ID != s2.ID || got.Code != s2.Code || !reflect.DeepEqual(got.Members, s2.Members) {
			t.Fatalf("OnAdopt %+v, want the running game %+v", got, s2)
		}
	default:
		t.Fatal("OnAdopt not called for the running game")
	}
	if len(second.adopts) != 0 {
		t.Fatal("OnAdopt called for more than the running game")
	}
	// A start of the new run: its id is not one of the first run's.
	g3, err := second.r.StartGame(restartSpec("CCCCC"))
	if err != nil {
		t.Fatalf("a start after the restart: %v", err)
	}
	gs[1].end(0)
	eventually(t, "the running game's end kept by the new lobby", func() bool { return len(second.ends.get()) == 2 })
	got = second.ends.get()[1]
	if got.spec.ID != s2.ID || got.end.Result != 0 || got.end.Lost || !reflect.DeepEqual(got.end.Record, rec) || !bytes.Equal(got.end.Replay, file) {
		t.Fatalf("second end: spec %+v end %+v", got.spec, got.end)
	}
	h.st.games()[2].end(1)
	waitDone(t, g3)
	if n := len(second.ends.get()); n != 3 {
		t.Fatalf("%d ends after the new run's own game, want 3", n)
	}
	for _, e := range first.ends.get() {
		if !e.end.Lost {
			t.Fatalf("the crashed run kept an end it could not have: %+v", e)
		}
	}
}

// TestLobbyGoneAbortsGames: the games of an anonymous lobby (no hello: an older lobby), and
// those of a named lobby that stops (bye: its drain is over), are aborted with its
// connection, as before; a named lobby's other games are untouched by another's bye.
func TestLobbyGoneAbortsGames(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, _, _ := restartHost(t)
		anon := runLobby(t, "", h.addr)
		named := runLobby(t, "lobby-b", h.addr)
		other := runLobby(t, "lobby-c", h.addr)
		for _, lr := range []*lobbyRun{anon, named, other} {
			if _, err := lr.r.StartGame(restartSpec("ABCDE")); err != nil {
				t.Fatal(err)
			}
		}
		anon.crash() // no hello was sent: aborted
		named.stop() // bye: aborted
		aborted := func(i int) bool {
			g := h.st.games()[i]
			g.mu.Lock()
			defer g.mu.Unlock()
			return g.aborted
		}
		eventually(t, "both games aborted", func() bool { return aborted(0) && aborted(1) })
		time.Sleep(time.Second)
		if aborted(2) || h.Load().Games != 1 {
			t.Fatalf("the third lobby's game aborted (%v) or the host's games %d, want 1 running", aborted(2), h.Load().Games)
		}
	})
}

// TestHeldEndsBounded: the ends held for an away lobby are at most MaxHeldEnds and about
// MaxHeldBytes of replays: past them the oldest go.
func TestHeldEndsBounded(t *testing.T) {
	lg := &lobbyGames{name: "x"}
	log := slog.New(slog.DiscardHandler)
	for i := range MaxHeldEnds + 10 {
		lg.hold(heldEnd{msgs: []*Msg{{Type: TypeEnded, Game: uint64(i)}}}, log)
	}
	if len(lg.held) != MaxHeldEnds || lg.held[0].msgs[0].Game != 10 {
		t.Fatalf("%d held, first %d; want %d from 10", len(lg.held), lg.held[0].msgs[0].Game, MaxHeldEnds)
	}
	for range 5 {
		lg.hold(heldEnd{bytes: MaxHeldBytes / 4}, log)
	}
	if lg.bytes > MaxHeldBytes {
		t.Fatalf("%d bytes held, want at most %d", lg.bytes, MaxHeldBytes)
	}
}

// TestHeldEndsCountAsBusy: the ends a host holds for an away lobby are its Held, and OnLoad
// is called when they change (net/server's Agones host stays Allocated while it holds any): a
// game of a named lobby that crashed ends (no game running, one end held), and the lobby's
// next run takes it (nothing held).
func TestHeldEndsCountAsBusy(t *testing.T) { synctest.Test(t, testHeldEndsCountAsBusy) }

func testHeldEndsCountAsBusy(t *testing.T) {
	type seen struct{ games, held int }
	var (
		mu    sync.Mutex
		calls []seen
		host  *Host
	)
	th := startHostWith(t, &fakeStarter{port: 6000}, 8, "", func(hc *HostConfig) {
		hc.Report = func(handoff.GameSpec, handoff.Game) (*Record, []byte) {
			return &Record{Ticks: 60}, randBytes(50_000, 3)
		}
		hc.OnLoad = func(l Load) { // as net/server's: outside the host's lock, Held may be read
			held := host.Held()
			mu.Lock()
			calls = append(calls, seen{l.Games, held})
			mu.Unlock()
		}
	})
	host = th.Host
	got := func() []seen {
		synctest.Wait() // every goroutine of the test's bubble is blocked: the calls are all made
		mu.Lock()
		defer mu.Unlock()
		return append([]seen(nil), calls...)
	}
	first := runLobby(t, "lobby-h", th.addr)
	if _, err := first.r.StartGame(restartSpec("AAAAA")); err != nil {
		t.Fatal(err)
	}
	first.crash()
	time.Sleep(time.Second) // the host has seen the connection close
	if c := got(); !reflect.DeepEqual(c, []seen{{1, 0}}) || th.Held() != 0 {
		t.Fatalf("OnLoad calls %v, Held %d after a start; want [{1 0}], 0", c, th.Held())
	}
	th.st.games()[0].end(1) // ends while its lobby is away: held
	if c := got(); !reflect.DeepEqual(c, []seen{{1, 0}, {0, 1}}) || th.Held() != 1 || th.Load().Games != 0 {
		t.Fatalf("OnLoad calls %v, Held %d, games %d after the end; want [{1 0} {0 1}], 1 held, 0 games", c, th.Held(), th.Load().Games)
	}
	second := runLobby(t, "lobby-h", th.addr)
	<-second.r.Attached()
	eventually(t, "the held end kept by the new lobby", func() bool { return len(second.ends.get()) == 1 })
	if c := got(); !reflect.DeepEqual(c, []seen{{1, 0}, {0, 1}, {0, 0}}) || th.Held() != 0 {
		t.Fatalf("OnLoad calls %v, Held %d after the lobby took the end; want [{1 0} {0 1} {0 0}], 0", c, th.Held())
	}
}

// TestLostGameNotKeptTwice: when a named lobby's connection to a host breaks and the host
// stays out of reach past the lobby's HostGrace, the lobby ends the host's games as lost (its
// players get END; the hall keeps them as aborted) while the host keeps them; when the host is
// reached again and such a game ends, the lobby does not keep it a second time.
func TestLostGameNotKeptTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, _, _ := restartHost(t)
		lr := runLobbyWith(t, "lobby-d", func(rc *RemoteConfig) { rc.HostGrace = 2 * time.Second }, h.addr)
		g, err := lr.r.StartGame(restartSpec("ABCDE"))
		if err != nil {
			t.Fatal(err)
		}
		breakLinks(t, h)
		time.Sleep(2500 * time.Millisecond)
		waitDone(t, g)
		if e := lr.ends.get(); len(e) != 1 || !e[0].end.Lost {
			t.Fatalf("ends after the break: %+v, want the game once, lost", e)
		}
		netOf(t).heal(h.addr)
		eventually(t, "the host up again", func() bool { return lr.r.Up() == 1 && h.Load().Games == 1 })
		time.Sleep(time.Second) // the hello and running have come and gone
		h.st.games()[0].end(1)
		eventually(t, "the host counts the end", func() bool { return h.Load().Games == 0 })
		time.Sleep(time.Second)
		if e := lr.ends.get(); len(e) != 1 {
			t.Fatalf("%d ends, want the lost game once: %+v", len(e), e)
		}
	})
}

// breakLinks partitions h: its lobbies' connections close (the host's side) and dials to it
// time out until netOf(t).heal(h.addr).
func breakLinks(t *testing.T, h *testHost) {
	netOf(t).partition(h.addr)
	h.mu.Lock()
	for s := range h.sessions {
		s.c.Close()
	}
	h.mu.Unlock()
}

// TestHostLinkDropKeepsGames: a named lobby's link to a host breaks (a partition) for less
// than its HostGrace. Neither side ends the two games: the host plays on and holds the end of
// the one that ends meanwhile; the lobby keeps both (not Done). When the link is back, the
// lobby keeps that end as a normal one (the host's result, record and replay, not lost), the
// other game is the same RemoteGame again (a rejoin reaches the host) and ends normally.
func TestHostLinkDropKeepsGames(t *testing.T) { synctest.Test(t, testHostLinkDropKeepsGames) }

func testHostLinkDropKeepsGames(t *testing.T) {
	h, rec, file := restartHost(t)
	lr := runLobbyWith(t, "lobby-e", func(rc *RemoteConfig) { rc.HostGrace = 10 * time.Second }, h.addr)
	s1, s2 := restartSpec("AAAAA"), restartSpec("BBBBB")
	g1, err := lr.r.StartGame(s1)
	if err != nil {
		t.Fatal(err)
	}
	g2, err := lr.r.StartGame(s2)
	if err != nil {
		t.Fatal(err)
	}
	breakLinks(t, h)
	eventually(t, "the lobby sees its host down", func() bool { return lr.r.Up() == 0 })
	h.st.games()[0].end(1) // ends while the link is away: held on the host
	eventually(t, "the host counts the end", func() bool { return h.Load().Games == 1 })
	time.Sleep(5 * time.Second) // within the grace
	for _, g := range []handoff.Game{g1, g2} {
		select {
		case <-g.Done():
			t.Fatalf("game ended on the lobby during the grace (result %d)", g.Result())
		default:
		}
	}
	for _, g := range h.st.games() {
		g.mu.Lock()
		aborted := g.aborted
		g.mu.Unlock()
		if aborted {
			t.Fatal("the host aborted a game while its lobby's link was away")
		}
	}
	if n := len(lr.ends.get()); n != 0 {
		t.Fatalf("%d ends kept during the grace, want none", n)
	}
	netOf(t).heal(h.addr)
	waitDone(t, g1)
	if g1.Result() != 1 || g1.(*RemoteGame).Lost() {
		t.Fatalf("game 1: result %d lost %v, want 1, not lost", g1.Result(), g1.(*RemoteGame).Lost())
	}
	e := lr.ends.get()
	if len(e) != 1 || e[0].spec.ID != s1.ID || e[0].end.Lost || !reflect.DeepEqual(e[0].end.Record, rec) || !bytes.Equal(e[0].end.Replay, file) {
		t.Fatalf("ends after the link came back: %+v", e)
	}
	if len(lr.adopts) != 0 {
		t.Fatal("a game kept through the grace was adopted as a new one (OnAdopt)")
	}
	// The other game is played through the lobby again: a rejoin reaches the host.
	if err := g2.(*RemoteGame).Rejoin(s2.Members[1]); err != nil {
		t.Fatalf("rejoin after the link came back: %v", err)
	}
	h.st.games()[1].end(0)
	waitDone(t, g2)
	if g2.Result() != 0 || g2.(*RemoteGame).Lost() || len(lr.ends.get()) != 2 {
		t.Fatalf("game 2: result %d lost %v, ends %d", g2.Result(), g2.(*RemoteGame).Lost(), len(lr.ends.get()))
	}
}

// TestHostGraceEndsGamesLost: past HostGrace with the host out of reach, the lobby ends its
// games as lost (result 2, OnGameEnd with Lost: the hall keeps them as aborted); a host whose
// control port refuses the connection (its process is gone) has its games ended at once,
// without waiting for the grace; and a host reached again that no longer runs a game
// (attached without it: it restarted) has it ended at once too.
func TestHostGraceEndsGamesLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, _, _ := restartHost(t)
		lr := runLobbyWith(t, "lobby-f", func(rc *RemoteConfig) { rc.HostGrace = 10 * time.Second }, h.addr)
		g, err := lr.r.StartGame(restartSpec("AAAAA"))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		breakLinks(t, h)
		waitDoneWithin(t, g, 15*time.Second)
		if d := time.Since(start); d < 10*time.Second {
			t.Fatalf("lost after %v, before the grace", d)
		}
		if e := lr.ends.get(); g.Result() != 2 || !g.(*RemoteGame).Lost() || len(e) != 1 || !e[0].end.Lost {
			t.Fatalf("result %d lost %v ends %+v, want 2, lost, kept once as lost", g.Result(), g.(*RemoteGame).Lost(), e)
		}
		netOf(t).heal(h.addr)
		eventually(t, "the host up again", func() bool { return lr.r.Up() == 1 })

		// A host whose process is gone: nothing listens, the dial is refused.
		g2, err := lr.r.StartGame(restartSpec("BBBBB"))
		if err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		h.stop()
		waitDone(t, g2)
		if d := time.Since(start); d >= time.Second || !g2.(*RemoteGame).Lost() {
			t.Fatalf("game on a stopped host: lost %v after %v, want lost at once", g2.(*RemoteGame).Lost(), d)
		}
	})
}

// TestHostRestartedEndsGamesLost: a host that restarted (its games gone) is reached again
// within the grace: its attached names none of the lobby's games, which end as lost at once.
func TestHostRestartedEndsGamesLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, _, _ := restartHost(t)
		lr := runLobbyWith(t, "lobby-g", func(rc *RemoteConfig) { rc.HostGrace = time.Minute }, h.addr)
		g, err := lr.r.StartGame(restartSpec("AAAAA"))
		if err != nil {
			t.Fatal(err)
		}
		netOf(t).partition(h.addr)
		h.stop() // its games are aborted; the lobby cannot dial it meanwhile
		netOf(t).heal(h.addr)
		start := time.Now()
		h2 := NewHost(HostConfig{Secret: testSecret, Starter: &fakeStarter{port: 6001}, Logger: quiet(), Ping: 20 * time.Millisecond})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); h2.Serve(ctx, netOf(t).listenAt(h.addr)) }()
		t.Cleanup(func() { cancel(); <-done })
		waitDone(t, g)
		if d := time.Since(start); d >= 5*time.Second || !g.(*RemoteGame).Lost() {
			t.Fatalf("game of a restarted host: lost %v after %v, want lost at once", g.(*RemoteGame).Lost(), d)
		}
	})
}

func waitDoneWithin(t *testing.T, g handoff.Game, d time.Duration) {
	t.Helper()
	select {
	case <-g.Done():
	case <-time.After(d):
		t.Fatal("game not done")
	}
}
