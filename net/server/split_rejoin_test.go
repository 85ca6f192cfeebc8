package server

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/fleet"
	"github.com/rtype/rtype/net/session"
)

// TestSplitRejoinSpectateChat: what the lobby does for a game keeps working when the game runs
// on another host: in-game CHAT through the lobby, a crashed player's REJOIN reaching the host
// that has its slot (the new START names that host), and a spectator who joins the running
// lobby watching the game on the host to its end.
func TestSplitRejoinSpectateChat(t *testing.T) {
	t.Parallel()
	h := startSplitHost(t, "127.0.0.5", 4)
	var remote *fleet.Remote
	addr, _, stop := startServerTB(t, Config{Stage: "short", Logger: quietLog(),
		Fleet: FleetConfig{Role: RoleLobby, Secret: testControlSecret, Hosts: []string{h.control}, OnRemote: func(r *fleet.Remote) { remote = r }}})
	defer stop()
	// The lobby hands START to the host only once the control channel is up.
	if !waitFor(10*time.Second, func() bool { return remote.Up() == 1 }) {
		t.Fatal("host not up")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var (
		mu                  sync.Mutex
		wg                  sync.WaitGroup
		rejoined, watched   []bot.Result
		rejoinErr, watchErr error
	)
	cfg := bot.Config{Server: addr, Players: 2, Chat: "hi",
		Crash: func(i int, v *session.View) bool { return i == 0 && v.Tick >= 180 },
		OnCrash: func(_ int, rj bot.RejoinInfo) {
			wg.Add(2)
			go func() {
				defer wg.Done()
				r, err := bot.Run(ctx, bot.Config{Server: addr, Lobby: rj.Code, Spectate: true, Name: "watcher", Players: 1}, nil)
				mu.Lock()
				watched, watchErr = r, err
				mu.Unlock()
			}()
			go func() {
				defer wg.Done()
				time.Sleep(time.Second) // the lobby notices the connection closing
				r, err := bot.Run(ctx, bot.Config{Server: addr, Rejoin: []bot.RejoinInfo{rj}, Name: "back"}, nil)
				mu.Lock()
				rejoined, rejoinErr = r, err
				mu.Unlock()
			}()
		},
	}
	first, err := bot.Run(ctx, cfg, nil)
	wg.Wait()
	if err != nil {
		t.Logf("first run: %v", err)
	}
	if len(first) != 2 || first[0].Result != "crashed" || !first[1].Ended() || first[1].Result == "aborted" {
		t.Fatalf("first run: %+v", first)
	}
	if !slices.Contains(first[1].Chat, "bot1: hi (in game)") {
		t.Errorf("in-game chat: bot2 heard %q, want bot1's in-game line", first[1].Chat)
	}
	if rejoinErr != nil || len(rejoined) != 1 || !rejoined[0].Ended() || rejoined[0].Slot != first[0].Slot || rejoined[0].DatagramsIn == 0 {
		t.Fatalf("rejoin through the lobby to the host: %v %+v", rejoinErr, rejoined)
	}
	if watchErr != nil || len(watched) != 1 || !watched[0].Ended() || !watched[0].Spectator || watched[0].Result != first[1].Result {
		t.Fatalf("spectator of the host's game: %v %+v", watchErr, watched)
	}
	if h.ended.Load() != 1 {
		t.Fatalf("games ended on the host: %d, want 1", h.ended.Load())
	}
}
