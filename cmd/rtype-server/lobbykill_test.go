package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/agones"
	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/fleet"
	"github.com/rtype/rtype/net/server"
	"github.com/rtype/rtype/net/session"
)

// TestLobbyKill9KeepsGames is issue 32's "kill -9 of the lobby loses no game", with real
// processes: a lobby (-role lobby, -data) and a host; two bots play the short stage; the
// lobby is killed with SIGKILL mid-game and started again on the same address and data
// directory. The game goes on on the host and ends normally (GAME_END: victory or defeat,
// for both bots), each bot got back into the lobby by itself meanwhile and took its slot back
// with RESUME (the new lobby recreated the room from the host's running game), so that the
// game's END and GAME_ID reached it on its new connection; the new lobby's hall of fame has
// that game (GET_GAMES and GET_SCORES) with both names, its figures and its replay.
func TestLobbyKill9KeepsGames(t *testing.T) {
	t.Parallel()
	testLobbyRestartKeepsGames(t, syscall.SIGKILL, false)
}

// TestLobbyKill9KeepsAllocatedGames: the same on Agones: the host is a GameServer (fake
// sidecar) and the lobby has no -hosts, it allocates through a fake allocator (-allocator) and
// keeps the host it allocated in <data>/allocated-hosts.json; the new lobby attaches to it from
// there (no allocation: the fake allocator counts one, the first lobby's) and keeps the game.
func TestLobbyKill9KeepsAllocatedGames(t *testing.T) {
	t.Parallel()
	testLobbyRestartKeepsGames(t, syscall.SIGKILL, true)
}

// TestLobbyUpgradeLeavesGames: the same with SIGTERM to a lobby started with -leave-games
// (an upgrade, docs/DEPLOY.md "Upgrading"): it exits at once with status 0, leaving the game to
// its host, and the next lobby on the same data directory keeps its end.
func TestLobbyUpgradeLeavesGames(t *testing.T) {
	t.Parallel()
	testLobbyRestartKeepsGames(t, syscall.SIGTERM, false)
}

func testLobbyRestartKeepsGames(t *testing.T, sig syscall.Signal, allocated bool) {
	const secret = "RTYPE_CONTROL_SECRET=lobby-kill9-test-secret-0123"
	controlPort, udpPort := freePort(t), freePort(t)
	control := "127.0.0.1:" + strconv.Itoa(controlPort)
	hostArgs := []string{"-role", "host", "-control", control, "-udp-port", strconv.Itoa(udpPort), "-stage", "short", "-log-format", "json"}
	hostEnv := []string{secret, "RTYPE_UDP_ADDR=127.0.0.1"}
	var allocations func() int
	var fakeSDK *agones.FakeSDK
	if allocated {
		fakeSDK = agones.NewFakeSDK("rtype-hosts-k9", "rtype-hosts", "127.0.0.1",
			[]agones.Port{{Name: server.AgonesGamePort, Port: udpPort}, {Name: server.AgonesControlPort, Port: controlPort}},
			map[string]agones.CounterStatus{agones.CounterGames: {Capacity: 1000}})
		sdkSrv := httptest.NewServer(fakeSDK)
		t.Cleanup(sdkSrv.Close)
		hostEnv = append(hostEnv, "AGONES_SDK_HTTP_PORT="+strconv.Itoa(sdkSrv.Listener.Addr().(*net.TCPAddr).Port))
		hostArgs = append(hostArgs, "-agones")
	}
	startProc(t, hostEnv, hostArgs...)
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	data := t.TempDir()
	metrics := "127.0.0.1:" + strconv.Itoa(freePort(t))
	lobbyArgs := []string{"-role", "lobby", "-addr", addr, "-stage", "short", "-data", data, "-metrics", metrics, "-log-format", "json"}
	if allocated {
		until(t, "the host Ready", 30*time.Second, func() bool { return fakeSDK.GameServer().Status.State == "Ready" })
		var mu sync.Mutex
		n := 0
		fa := agones.NewFakeAllocator(fakeSDK)
		alloc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			n++
			mu.Unlock()
			fa.ServeHTTP(w, r)
		}))
		t.Cleanup(alloc.Close)
		allocations = func() int { mu.Lock(); defer mu.Unlock(); return n }
		lobbyArgs = append(lobbyArgs, "-allocator", alloc.URL)
	} else {
		lobbyArgs = append(lobbyArgs, "-hosts", control)
	}
	if sig == syscall.SIGTERM {
		lobbyArgs = append(lobbyArgs, "-leave-games")
	}
	waitLobby := func() { // ready: serving, with its host up
		until(t, "the lobby ready", 30*time.Second, func() bool {
			resp, err := http.Get("http://" + metrics + "/readyz")
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		})
	}
	lob := startProc(t, []string{secret}, lobbyArgs...)
	waitLobby()

	// A stuck bound: the short stage's game lasts about 20 s.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var sessions []*session.Session
	type outcome struct {
		res []bot.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		o.res, o.err = bot.Run(ctx, bot.Config{Server: addr, Players: 2, Name: "k9-", Logger: slog.New(slog.DiscardHandler),
			OnSession: func(_ int, s *session.Session) { mu.Lock(); sessions = append(sessions, s); mu.Unlock() }}, nil)
		done <- o
	}()
	ticks := func() uint32 {
		mu.Lock()
		defer mu.Unlock()
		if len(sessions) < 2 {
			return 0
		}
		return sessions[0].Stats().ServerTick
	}
	until(t, "the game a second in", 60*time.Second, func() bool { return ticks() >= 60 })
	if err := lob.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	<-lob.done
	if sig == syscall.SIGTERM && lob.err != nil {
		t.Fatalf("the lobby stopped with -leave-games: %v, want exit 0\n%s", lob.err, lob.stderr.String())
	}
	killedAt := ticks()
	if allocated {
		if b, err := os.ReadFile(filepath.Join(data, fleet.AllocatedHostsFile)); err != nil || !strings.Contains(string(b), control) {
			t.Fatalf("%s after the kill: %q %v, want the allocated host %s", fleet.AllocatedHostsFile, b, err, control)
		}
	}
	lob2 := startProc(t, []string{secret}, lobbyArgs...)
	waitLobby()

	o := <-done
	if o.err != nil || len(o.res) != 2 {
		t.Fatalf("bots: %v %+v\nfirst lobby:\n%s\nsecond lobby:\n%s", o.err, o.res, lob.stderr.String(), lob2.stderr.String())
	}
	for _, r := range o.res {
		if r.Result != "victory" && r.Result != "defeat" {
			t.Errorf("bot %s: %s (%s), want the game played to its end", r.Bot, r.Result, r.Error)
		}
		if !r.Relobbied || !r.Resumed {
			t.Errorf("bot %s: relobbied %v, resumed %v: want it back in its lobby (RESUME) during its game", r.Bot, r.Relobbied, r.Resumed)
		}
		if r.Ticks <= killedAt {
			t.Errorf("bot %s: game ended at tick %d, the lobby was killed at %d: it did not go on", r.Bot, r.Ticks, killedAt)
		}
	}
	lc, err := lobby.Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	if _, err := lc.Authenticate("judge"); err != nil {
		t.Fatal(err)
	}
	var games []lobby.GameEntry
	until(t, "the game in the hall of fame", 30*time.Second, func() bool {
		games, err = lc.RecentGames(0, "")
		return err == nil && len(games) == 1
	})
	g := games[0].Game
	if g.Players() != 2 || g.Stage != "short" || g.Ticks == 0 || g.ReplayBytes == 0 {
		t.Fatalf("the kept game: %+v", g)
	}
	for _, r := range o.res {
		if s := g.Slots[r.Slot]; s.Name != r.Bot || s.Score != r.Score {
			t.Errorf("slot %d kept as %+v; bot %s scored %d", r.Slot, s, r.Bot, r.Score)
		}
	}
	if _, err := lc.FetchReplay(g.ID); err != nil {
		t.Errorf("GET_REPLAY of the kept game: %v", err)
	}
	for _, r := range o.res {
		if r.ResumedGameID != g.ID.String() {
			t.Errorf("bot %s: GAME_ID %q on its resumed connection, the hall kept %v", r.Bot, r.ResumedGameID, g.ID)
		}
	}
	if allocated {
		if n := allocations(); n != 1 {
			t.Errorf("%d allocations, want 1 (the new lobby attaches to the host it had allocated)", n)
		}
	}
	ranked, err := lc.Scores(lobby.ScoresQuery{Stage: "short"})
	if err != nil || len(ranked) != 1 || ranked[0].Game.ID != g.ID {
		t.Fatalf("GET_SCORES short: %+v %v, want the kept game", ranked, err)
	}
}
