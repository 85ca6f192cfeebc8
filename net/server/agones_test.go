package server

import (
	"context"
	"net"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/agones"
	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/fleet"
)

func freeTCPUDP(t *testing.T, ip string) int {
	t.Helper()
	for range 20 {
		ln, err := net.Listen("tcp", ip+":0")
		if err != nil {
			t.Fatal(err)
		}
		p := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if pc, err := net.ListenPacket("udp", net.JoinHostPort(ip, strconv.Itoa(p))); err == nil {
			pc.Close()
			return p
		}
	}
	t.Fatal("no free port")
	return 0
}

// TestAgonesFleet: a host as an Agones GameServer (fake sidecar) and a lobby allocating on the
// fleet (fake allocator, both written from the Agones swagger documents): the host advertises
// the status address and port, sets the games counter's capacity and labels, is Ready, pings
// health; a bot game is allocated (state Allocated, counter incremented), played on the host
// and ended (counter back to 0, and Ready again: Agones scales down and rolls over only Ready
// GameServers); SIGTERM's drain makes it refuse allocation, then Shutdown. With
// -agones-recycle-after 1 the emptied host shuts itself down instead.
func TestAgonesFleet(t *testing.T) {
	t.Parallel()
	t.Run("ready-again", func(t *testing.T) { t.Parallel(); testAgonesFleet(t, "127.0.0.4", 0) })
	t.Run("recycle", func(t *testing.T) { t.Parallel(); testAgonesFleet(t, "127.0.0.14", 1) })
}

func testAgonesFleet(t *testing.T, ip string, recycleAfter int) {
	udp, control := freeTCPUDP(t, ip), freeTCPUDP(t, ip)
	sdk := agones.NewFakeSDK("rtype-hosts-x1", "rtype-hosts", ip,
		[]agones.Port{{Name: AgonesGamePort, Port: udp}, {Name: AgonesControlPort, Port: control}},
		map[string]agones.CounterStatus{agones.CounterGames: {Count: 0, Capacity: 1000}})
	sdkSrv := httptest.NewServer(sdk)
	defer sdkSrv.Close()
	allocSrv := httptest.NewServer(agones.NewFakeAllocator(sdk))
	defer allocSrv.Close()

	var host *fleet.Host
	hcfg := Config{Addr: ip + ":0", UDPHost: ip, UDPPort: udp, Stage: "short", Logger: quietLog(),
		Fleet: FleetConfig{Role: RoleHost, Secret: testControlSecret, Control: net.JoinHostPort(ip, strconv.Itoa(control)), Capacity: 3,
			Agones: true, AgonesSDK: sdkSrv.URL, AgonesRecycleAfter: recycleAfter, DrainTimeout: -1, OnHost: func(h *fleet.Host) { host = h }}}
	_, _, stopHost := startServerTB(t, hcfg)
	defer stopHost()
	waitCond(t, "Ready", func() bool { return sdk.GameServer().Status.State == "Ready" })
	gs := sdk.GameServer()
	if c := gs.Status.Counters[agones.CounterGames]; c.Capacity != 3 || c.Count != 0 {
		t.Fatalf("games counter %+v, want capacity 3 (-capacity), count 0", c)
	}
	if gs.ObjectMeta.Labels["agones.dev/sdk-rtype-stages"] == "" || gs.ObjectMeta.Labels["agones.dev/sdk-rtype-accepting"] != "true" ||
		gs.ObjectMeta.Labels["agones.dev/sdk-rtype-version"] == "" {
		t.Fatalf("labels %v", gs.ObjectMeta.Labels)
	}

	// StartTimeout and the bots' deadline bound a stuck host, not a speed: a busy machine's
	// host answers late (the fleet's timeouts are tested in virtual time, net/fleet)
	lcfg := Config{Stage: "short", Logger: quietLog(), Fleet: FleetConfig{Role: RoleLobby, Secret: testControlSecret,
		Allocator: allocSrv.URL, Namespace: "default", FleetName: "rtype-hosts", StartTimeout: time.Minute}}
	addr, _, stopLobby := startServerTB(t, lcfg)
	defer stopLobby()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	counted := make(chan agones.GameServer, 1)
	go func() {
		waitCond(t, "the game counted", func() bool { return host.Load().Games == 1 })
		counted <- sdk.GameServer()
	}()
	res, err := bot.Run(ctx, bot.Config{Server: addr, Players: 2}, nil)
	if err != nil {
		t.Fatalf("bots: %v (%+v)", err, res)
	}
	for _, r := range res {
		if !r.Ended() || r.DatagramsIn == 0 {
			t.Errorf("bot %s: %+v", r.Bot, r)
		}
	}
	during := <-counted
	if c := during.Status.Counters[agones.CounterGames].Count; c != 1 {
		t.Fatalf("games counter during the game: %d, want 1", c)
	}
	if st := during.Status.State; st != "Allocated" {
		t.Fatalf("state %s during the game, want Allocated", st)
	}
	waitCond(t, "counter back to 0", func() bool { return sdk.GameServer().Status.Counters[agones.CounterGames].Count == 0 })
	if len(sdk.Healths()) == 0 {
		t.Fatal("no health ping during the game")
	}
	if recycleAfter > 0 {
		waitCond(t, "recycled: Shutdown", func() bool { return sdk.GameServer().Status.State == "Shutdown" })
		if a := sdk.GameServer().ObjectMeta.Labels["agones.dev/sdk-rtype-accepting"]; a != "false" {
			t.Fatalf("recycled host accepting %q, want false", a)
		}
		return
	}
	waitCond(t, "Ready again once empty", func() bool { return sdk.GameServer().Status.State == "Ready" })
	if n := sdk.CallsTo("POST", "/ready"); n != 2 {
		t.Fatalf("%d POST /ready, want 2 (at start, once empty)", n)
	}
	stopHost()
	gs = sdk.GameServer()
	if gs.Status.State != "Shutdown" || gs.ObjectMeta.Labels["agones.dev/sdk-rtype-accepting"] != "false" {
		t.Fatalf("after SIGTERM: state %s, accepting %q; want Shutdown, false", gs.Status.State, gs.ObjectMeta.Labels["agones.dev/sdk-rtype-accepting"])
	}
}

func waitCond(t *testing.T, what string, cond func() bool) {
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Errorf("timed out waiting for %s", what)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAgonesHeldEndStaysAllocated: an Allocated host whose game ends while its lobby is away
// (the lobby left its games to the host, as an upgrade's -leave-games or a kill -9 does) holds
// that end for the lobby's return and stays Allocated: Agones may delete a Ready GameServer,
// and the game's result and replay with it. When the lobby's next run (the same ID, its
// allocated hosts file) attaches and takes the end, the emptied host goes back to Ready.
func TestAgonesHeldEndStaysAllocated(t *testing.T) {
	t.Parallel()
	ip := "127.0.0.24"
	udp, control := freeTCPUDP(t, ip), freeTCPUDP(t, ip)
	sdk := agones.NewFakeSDK("rtype-hosts-x2", "rtype-hosts", ip,
		[]agones.Port{{Name: AgonesGamePort, Port: udp}, {Name: AgonesControlPort, Port: control}},
		map[string]agones.CounterStatus{agones.CounterGames: {Count: 0, Capacity: 1000}})
	sdkSrv := httptest.NewServer(sdk)
	defer sdkSrv.Close()
	allocSrv := httptest.NewServer(agones.NewFakeAllocator(sdk))
	defer allocSrv.Close()

	hlog, logs := newLogCapture(t)
	var host *fleet.Host
	hcfg := Config{Addr: ip + ":0", UDPHost: ip, UDPPort: udp, Stage: "short", Logger: hlog,
		Fleet: FleetConfig{Role: RoleHost, Secret: testControlSecret, Control: net.JoinHostPort(ip, strconv.Itoa(control)), Capacity: 3,
			Agones: true, AgonesSDK: sdkSrv.URL, DrainTimeout: -1, OnHost: func(h *fleet.Host) { host = h }}}
	_, mgr, stopHost := startServerTB(t, hcfg)
	defer stopHost()
	waitCond(t, "Ready", func() bool { return sdk.GameServer().Status.State == "Ready" })

	// The lobby's runs: a fleet.Remote allocating on the fleet as -role lobby -allocator does,
	// named as its data directory names it.
	dir := t.TempDir()
	fc := FleetConfig{Allocator: allocSrv.URL, Namespace: "default", FleetName: "rtype-hosts"}
	type lobbyRun struct {
		r    *fleet.Remote
		ends chan fleet.GameEnd
		stop func()
	}
	runLobby := func() lobbyRun {
		ends := make(chan fleet.GameEnd, 4)
		r := fleet.NewRemote(fleet.RemoteConfig{Secret: testControlSecret, Logger: quietLog(), ID: "lobby-held", StartTimeout: time.Minute,
			Allocate: allocate(fc, quietLog()), AllocatedFile: filepath.Join(dir, fleet.AllocatedHostsFile),
			OnGameEnd: func(_ handoff.GameSpec, e fleet.GameEnd) { ends <- e }})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); r.Run(ctx) }()
		var once sync.Once
		lr := lobbyRun{r: r, ends: ends, stop: func() { once.Do(func() { r.LeaveGames(); cancel(); <-done }) }}
		t.Cleanup(lr.stop)
		return lr
	}
	first := runLobby()
	spec := handoff.GameSpec{ID: uuid.New(), Code: "HELDA", Stage: "short", Difficulty: rules.DifficultyHard,
		Members: []handoff.Member{{UUID: uuid.New(), Name: "ann", Slot: 0, Token: 7}}}
	if _, err := first.r.StartGame(spec); err != nil {
		t.Fatalf("start: %v", err)
	}
	waitCond(t, "the game counted, Allocated", func() bool {
		gs := sdk.GameServer()
		return gs.Status.State == "Allocated" && gs.Status.Counters[agones.CounterGames].Count == 1 && host.Load().Games == 1
	})
	first.stop() // the lobby leaves its game to the host
	waitCond(t, "the host sees its lobby away", func() bool {
		for _, r := range logs.all() {
			if strings.HasPrefix(r.msg, "lobby away") {
				return true
			}
		}
		return false
	})
	ins := mgr.Instances()
	if len(ins) != 1 {
		t.Fatalf("%d games on the host, want 1", len(ins))
	}
	ins[0].Abort() // the game ends while its lobby is away: its end is held
	waitCond(t, "the end held, the counter at 0", func() bool {
		return host.Held() == 1 && host.Load().Games == 0 && sdk.GameServer().Status.Counters[agones.CounterGames].Count == 0
	})
	// Nothing to wait for proves a step not taken: the host is watched for a while (a few of
	// backToReady's rechecks) and must stay Allocated throughout. A slow machine only makes
	// this weaker, never failing wrongly; the counts below are exact.
	for end := time.Now().Add(4 * ReadyRecheck); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if st := sdk.GameServer().Status.State; st != "Allocated" {
			t.Fatalf("state %s with a game's end held for the away lobby, want Allocated", st)
		}
	}
	if n := sdk.CallsTo("POST", "/ready"); n != 1 {
		t.Fatalf("%d POST /ready while an end is held, want 1 (at start)", n)
	}

	second := runLobby() // the lobby's next run attaches to its allocated host
	select {
	case <-second.r.Attached():
	case <-time.After(20 * time.Second):
		t.Fatal("the lobby's next run did not attach to its host")
	}
	select {
	case e := <-second.ends:
		if e.Lost || e.Result != uint8(rules.ResultAborted) || e.Record == nil {
			t.Fatalf("the held end: %+v, want the host's (aborted, with its record), not lost", e)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the held end did not reach the lobby's next run")
	}
	waitCond(t, "Ready again once the end is taken", func() bool {
		return host.Held() == 0 && sdk.GameServer().Status.State == "Ready"
	})
	if n := sdk.CallsTo("POST", "/ready"); n != 2 {
		t.Fatalf("%d POST /ready, want 2 (at start, once the held end was taken)", n)
	}
}
