package server

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/session"
)

// End to end over real sockets: a bot killed mid-game (its lobby connection and game socket close
// without LEAVE or BYE) rejoins through the lobby within 60 s, takes its slot back and finishes
// the game with the score it had kept; a spectator who joined the running lobby follows the game
// to its end (RESULTS, GAME_END) without a ship.
func TestBotRejoinsAndSpectatorWatches(t *testing.T) {
	t.Parallel()
	addr, _, stop := startServer(t, Config{Stage: "short"})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	var (
		mu         sync.Mutex
		crashScore uint32
		wg         sync.WaitGroup
		rejoined   []bot.Result
		rejoinErr  error
		watched    []bot.Result
		watchErr   error
	)
	spectate := func(code string) {
		defer wg.Done()
		r, err := bot.Run(ctx, bot.Config{Server: addr, Lobby: code, Spectate: true, Name: "watcher", Players: 1}, nil)
		mu.Lock()
		watched, watchErr = r, err
		mu.Unlock()
	}
	cfg := bot.Config{Server: addr, Players: 2,
		Crash: func(i int, v *session.View) bool {
			if i != 0 {
				return false
			}
			pl := v.C.Player.Get(v.Self)
			if pl == nil || pl.Score == 0 && v.Tick < 900 {
				return false // crash once the bot has scored (or after 15 s)
			}
			mu.Lock()
			crashScore = pl.Score
			mu.Unlock()
			return true
		},
		OnCrash: func(i int, rj bot.RejoinInfo) {
			wg.Add(2)
			go spectate(rj.Code)
			go func() {
				defer wg.Done()
				time.Sleep(time.Second) // the server notices the lobby connection closing
				r, err := bot.Run(ctx, bot.Config{Server: addr, Rejoin: []bot.RejoinInfo{rj}, Name: "back"}, nil)
				mu.Lock()
				rejoined, rejoinErr = r, err
				mu.Unlock()
			}()
		},
	}
	first, _ := bot.Run(ctx, cfg, nil) // bot1 crashed: Run reports it as not ended
	wg.Wait()
	if len(first) != 2 || first[0].Result != "crashed" || first[0].Rejoin == nil || !first[1].Ended() {
		t.Fatalf("first run: %+v", first)
	}
	if rejoinErr != nil || len(rejoined) != 1 {
		t.Fatalf("rejoin: %v %+v", rejoinErr, rejoined)
	}
	r := rejoined[0]
	if !r.Ended() || r.Result == "aborted" || r.Slot != first[0].Slot {
		t.Errorf("rejoined bot: %s slot %d (crashed in slot %d): %+v", r.Result, r.Slot, first[0].Slot, r)
	}
	if r.Score < crashScore || crashScore == 0 && first[0].Score > 0 {
		t.Errorf("rejoined bot's score %d, had %d when it crashed", r.Score, crashScore)
	}
	if len(r.Events) == 0 || !strings.HasPrefix(r.Events[0], "welcome:") {
		t.Errorf("rejoined bot's events %v", r.Events)
	}
	if watchErr != nil || len(watched) != 1 {
		t.Fatalf("spectator: %v %+v", watchErr, watched)
	}
	w := watched[0]
	if !w.Ended() || !w.Spectator || w.Slot != -1 || w.Result != first[1].Result {
		t.Errorf("spectator: %s spectator %v slot %d (players: %s): %+v", w.Result, w.Spectator, w.Slot, first[1].Result, w)
	}
	hasResults := false
	for _, ev := range w.Events {
		hasResults = hasResults || strings.HasPrefix(ev, "results:2")
	}
	if !hasResults {
		t.Errorf("spectator events %v, want results:2", w.Events)
	}
}
