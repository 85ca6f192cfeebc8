package server

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/testsupport/rtcpeer"
)

// TestWebRTCPlayerPlaysWithBot: on a server with -web, a player whose lobby is the WebSocket and
// whose game datagrams go over a WebRTC data channel on the game's UDP port (a pion peer, as a
// browser's) and a bot over plain UDP join one lobby and play the short stage to GAME_END; both
// get the game's RESULTS with both slots and the same END. The bounds are a stuck game's, not
// a speed (the stage lasts about a minute of game time, whatever the machine).
func TestWebRTCPlayerPlaysWithBot(t *testing.T) {
	t.Parallel()
	webc := make(chan string, 1)
	addr, mgr, stop := startServer(t, Config{Stage: "short", WebAddr: "127.0.0.1:0", OnWeb: func(a net.Addr) { webc <- a.String() }})
	defer stop()
	web := <-webc
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	lc, err := lobby.DialWebSocket(ctx, "http://"+web)
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	uid, err := lc.Authenticate("browser")
	if err != nil {
		t.Fatal(err)
	}
	code, err := lc.Create("short")
	if err != nil {
		t.Fatal(err)
	}
	sock, err := rtcpeer.Dial(ctx, lc.OfferRTC)
	if err != nil {
		t.Fatalf("data channel: %v", err)
	}
	type botRun struct {
		res []bot.Result
		err error
	}
	botc := make(chan botRun, 1)
	go func() {
		res, err := bot.Run(ctx, bot.Config{Server: addr, Lobby: code, Players: 1, Name: "udp"}, nil)
		botc <- botRun{res, err}
	}()
	for {
		if _, names := lc.Members(); len(names) == 2 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the bot did not join the lobby")
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := lc.Start(); err != nil {
		t.Fatal(err)
	}
	st, err := lc.WaitStart(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := session.Dial(ctx, session.Config{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(st.Port)), UUID: uid, Token: st.Token, Key: st.Key, Socket: sock})
	if err != nil {
		t.Fatalf("session over the data channel: %v", err)
	}
	defer func() { s.Close(); s.Wait() }()
	var results session.Event
	var end session.Event
	for ev := range s.Events() {
		switch ev.Kind {
		case session.EventResults:
			results = ev
		case session.EventGameEnd:
			end = ev
		case session.EventDisconnected:
			t.Fatalf("the WebRTC player was disconnected: %s", ev.Reason)
		}
		if end.Kind != 0 {
			break
		}
	}
	if end.Kind != session.EventGameEnd || end.Result == rules.ResultAborted {
		t.Fatalf("the WebRTC player's game ended with %v", end)
	}
	if results.Results.Count != 2 {
		t.Fatalf("the WebRTC player's RESULTS: %+v, want both slots", results.Results)
	}
	if st := s.Stats(); st.DatagramsIn == 0 || st.DatagramsOut == 0 {
		t.Fatalf("session stats %+v", st)
	}
	br := <-botc
	if br.err != nil || len(br.res) != 1 || !br.res[0].Ended() {
		t.Fatalf("the bot: %v %+v", br.err, br.res)
	}
	if want := map[rules.Result]string{rules.ResultVictory: "victory", rules.ResultDefeat: "defeat"}[end.Result]; br.res[0].Result != want {
		t.Fatalf("the bot's game ended %s, the WebRTC player's %v", br.res[0].Result, end.Result)
	}
	if r, err := lc.WaitEnd(ctx); err != nil || r != uint8(end.Result) {
		t.Fatalf("the WebRTC player's END: %d, %v (GAME_END %v)", r, err, end.Result)
	}
	_ = mgr
}
