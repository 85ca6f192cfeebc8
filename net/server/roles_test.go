package server

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/fleet"
	"github.com/rtype/rtype/net/instance"
)

var testControlSecret = []byte("roles-test-control-secret")

// splitHost is an in-process -role host.
type splitHost struct {
	control string
	host    *fleet.Host
	ended   atomic.Int32
	stop    func()
}

func startSplitHost(t testing.TB, ip string, capacity int) *splitHost {
	t.Helper()
	sh := &splitHost{}
	var mu sync.Mutex
	cfg := Config{Addr: ip + ":0", UDPHost: ip, Stage: "short", Logger: quietLog(),
		OnGameEnd: func(*instance.Instance) { sh.ended.Add(1) },
		Fleet: FleetConfig{Role: RoleHost, Secret: testControlSecret, Control: ip + ":0", Capacity: capacity,
			OnHost: func(h *fleet.Host) { mu.Lock(); sh.host = h; mu.Unlock() }}}
	addr, _, stop := startServerTB(t, cfg)
	sh.control, sh.stop = addr, stop
	t.Cleanup(stop)
	return sh
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestSplitRoles: one lobby and two hosts, each host on its own loopback address: the bots'
// games go to the hosts by capacity (one each), the START push names the host (the bots reach
// 127.0.0.2 and 127.0.0.3 though the lobby is on 127.0.0.1), and END comes back through the
// lobby.
func TestSplitRoles(t *testing.T) {
	t.Parallel()
	a := startSplitHost(t, "127.0.0.2", 1)
	b := startSplitHost(t, "127.0.0.3", 1)
	var remote *fleet.Remote
	lcfg := Config{Stage: "short", Logger: quietLog(), Fleet: FleetConfig{Role: RoleLobby, Secret: testControlSecret,
		Hosts: []string{a.control, b.control}, OnRemote: func(r *fleet.Remote) { remote = r }}}
	addr, mgr, stop := startServerTB(t, lcfg)
	defer stop()
	if mgr != nil {
		t.Fatal("a lobby runs no game runtime")
	}
	deadline := time.Now().Add(10 * time.Second)
	for remote.Up() < 2 {
		if time.Now().After(deadline) {
			t.Fatal("hosts not up")
		}
		time.Sleep(5 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := bot.Run(ctx, bot.Config{Server: addr, Players: 2, Name: "g" + string(rune('a'+i)) + "-"}, nil)
			if err != nil {
				t.Errorf("bots %d: %v (%+v)", i, err, res)
				return
			}
			for _, r := range res {
				if !r.Ended() || r.DatagramsIn == 0 {
					t.Errorf("bot %s: %+v", r.Bot, r)
				}
			}
		}()
	}
	wg.Wait()
	if a.ended.Load() != 1 || b.ended.Load() != 1 {
		t.Fatalf("games ended on host a: %d, b: %d; want one each (capacity 1 each)", a.ended.Load(), b.ended.Load())
	}
}
