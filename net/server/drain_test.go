package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/lobbyserver"
	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/fleet"
	"github.com/rtype/rtype/net/session"
)

// TestDrainLetsGamesEnd: a server told to stop with a game running (SIGTERM, as the binary
// maps it) drains: every connection hears CLOSING with the drain's time left, a START is
// refused with the reason, and the running game plays on to its own end (not aborted); Run
// returns once it has ended. With a second signal (Config.Abort) the game ends at once,
// aborted. A lobby (-role lobby) drains the same way: its hosts' games go on (a lobby's upgrade
// no longer ends every game of the fleet).
func TestDrainLetsGamesEnd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		abort, split bool
	}{{"drain", false, false}, {"second-signal", true, false}, {"lobby-role", false, true}} {
		abort := tc.abort
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			abortCh := make(chan struct{})
			cfg := Config{Stage: "short", Logger: quietLog(), Abort: abortCh, Fleet: FleetConfig{DrainTimeout: 5 * time.Minute}}
			var remote *fleet.Remote
			if tc.split {
				h := startSplitHost(t, "127.0.0.23", 2)
				cfg.Fleet.Role, cfg.Fleet.Secret, cfg.Fleet.Hosts = RoleLobby, testControlSecret, []string{h.control}
				cfg.Fleet.OnRemote = func(r *fleet.Remote) { remote = r }
			}
			addr, mgr, stop := startServerTB(t, cfg)
			defer stop()
			for remote != nil && remote.Up() < 1 {
				time.Sleep(5 * time.Millisecond) // the host's control connection comes up
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			inGame := make(chan struct{}, 2)
			type out struct {
				res []bot.Result
				err error
			}
			done := make(chan out, 1)
			go func() {
				r, err := bot.Run(ctx, bot.Config{Server: addr, Players: 2, OnSession: func(int, *session.Session) { inGame <- struct{}{} }}, nil)
				done <- out{r, err}
			}()
			<-inGame
			<-inGame
			if mgr != nil && mgr.Running() != 1 {
				t.Fatalf("%d games running once the bots are in, want 1", mgr.Running())
			}
			watcher, _ := dialLobby(t, ctx, addr, "watcher")
			defer watcher.Close()
			stopped := make(chan struct{})
			go func() { stop(); close(stopped) }()
			select {
			case <-watcher.ClosingNotice():
			case <-ctx.Done():
				t.Fatal("no CLOSING push")
			}
			if cl, _ := watcher.Closing(); cl.Why != lobby.ClosingShutdown || cl.Left != 5*time.Minute {
				t.Fatalf("CLOSING %+v, want shutdown with 5m left", cl)
			}
			if _, err := watcher.Join(""); err != nil {
				t.Fatalf("joining while draining: %v", err)
			}
			var re *lobby.ResponseError
			if err := watcher.Start(); !errors.As(err, &re) || re.Reason != lobbyserver.RefusedDraining {
				t.Fatalf("START while draining: %v, want %q", err, lobbyserver.RefusedDraining)
			}
			if abort {
				close(abortCh)
			}
			o := <-done
			if o.err != nil {
				t.Fatalf("bots: %v", o.err)
			}
			for _, r := range o.res {
				if aborted := r.Result == "aborted"; aborted != abort || !r.Ended() {
					t.Errorf("bot %s: result %q (ended %v), want aborted %v", r.Bot, r.Result, r.Ended(), abort)
				}
			}
			select {
			case <-stopped:
			case <-ctx.Done():
				t.Fatal("Run did not return once the game had ended")
			}
		})
	}
}
