package fleet

import (
	"bytes"
	"context"
	"log/slog"
	"reflect"
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
	cancel context.CancelFunc
	done   chan struct{}
}

func runLobby(t *testing.T, id string, hosts ...string) *lobbyRun {
	e := &endRecorder{gs: map[string]handoff.Game{}}
	r := NewRemote(RemoteConfig{Hosts: hosts, ID: id, Secret: testSecret, Logger: quiet(), Ping: 20 * time.Millisecond,
		Redial: 10 * time.Millisecond, Dial: netOf(t).dial, OnGameEnd: e.onGameEnd})
	ctx, cancel := context.WithCancel(context.Background())
	lr := &lobbyRun{r: r, ends: e, cancel: cancel, done: make(chan struct{})}
	go func() { defer close(lr.done); r.Run(ctx) }()
	t.Cleanup(lr.stop)
	eventually(t, "the lobby's host up", func() bool { return r.Up() == len(hosts) })
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

// TestLostGameNotKeptTwice: when a named lobby's connection to a host breaks, the lobby ends
// the host's games as lost at once (its players get END; the hall keeps them as aborted) while
// the host keeps them; when the connection is back and such a game ends, the lobby does not
// keep it a second time.
func TestLostGameNotKeptTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, _, _ := restartHost(t)
		lr := runLobby(t, "lobby-d", h.addr)
		g, err := lr.r.StartGame(restartSpec("ABCDE"))
		if err != nil {
			t.Fatal(err)
		}
		h.mu.Lock()
		for s := range h.sessions {
			s.c.Close() // the connection breaks (the host's side)
		}
		h.mu.Unlock()
		waitDone(t, g)
		if e := lr.ends.get(); len(e) != 1 || !e[0].end.Lost {
			t.Fatalf("ends after the break: %+v, want the game once, lost", e)
		}
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
