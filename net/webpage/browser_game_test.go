//go:build browser

package webpage_test

// A whole game from a browser tab (make test-web, issue 34): a real rtype-server -web serves the
// page; headless Chromium joins a lobby over the WebSocket lobby with two rtype-bot processes and
// one desktop-protocol client (this test, over UDP with net/session), plays the short stage to
// GAME_END over a WebRTC data channel on the game's UDP port, and shows the results the server
// sent everyone. It logs the figures of docs/BENCHMARKS.md ("The browser client").

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/testsupport/browser"
	"github.com/rtype/rtype/net/wire"
)

// goBuild builds pkg into dir (CGO off, the version the page was built as) and returns the binary.
func goBuild(t *testing.T, dir, pkg, version string) string {
	t.Helper()
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-X github.com/rtype/rtype/game/buildinfo.Version="+version, "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// webServer is a running rtype-server -web: its lobby and web addresses (read off its log).
type webServer struct {
	lobby, web string
	mu         sync.Mutex
	log        strings.Builder
}

func (s *webServer) logText() string { s.mu.Lock(); defer s.mu.Unlock(); return s.log.String() }

// startWebServer runs bin with the lobby, the game's UDP socket and the web address on
// loopback ports the system picks, serving dir; stopped (SIGINT) when the test ends.
func startWebServer(t *testing.T, bin, dir string) *webServer {
	t.Helper()
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-web", "127.0.0.1:0", "-web-dir", dir, "-data", t.TempDir())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &webServer{}
	ready := make(chan struct{})
	go func() {
		lobbyRe := regexp.MustCompile(`msg="rtype server listening" lobby=(\S+)`)
		webRe := regexp.MustCompile(`msg="web address listening" addr=(\S+)`)
		sc := bufio.NewScanner(stderr)
		closed := false
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.log.WriteString(line + "\n")
			if m := lobbyRe.FindStringSubmatch(line); m != nil {
				s.lobby = m[1]
			}
			if m := webRe.FindStringSubmatch(line); m != nil {
				s.web = m[1]
			}
			if !closed && s.lobby != "" && s.web != "" {
				closed = true
				close(ready)
			}
			s.mu.Unlock()
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("server log:\n%s", s.logText())
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("rtype-server exited at start: %v\n%s", err, s.logText())
	case <-time.After(60 * time.Second):
		t.Fatalf("rtype-server did not listen within 60 s:\n%s", s.logText())
	}
	return s
}

// desktopPlayer plays the game of START st on the desktop protocol (UDP, net/session, the
// built-in autopilot) to its end and returns the RESULTS the server sent and the session's figures.
func desktopPlayer(ctx context.Context, lc *lobby.Client, uid uuid.UUID, st lobby.StartInfo, host string) (wire.Results, session.Stats, error) {
	sf, err := lc.ResolveStage(st.Stage.Name, st.Stage.Hash, game.ParseScript)
	if err != nil {
		return wire.Results{}, session.Stats{}, err
	}
	terrain := &game.StageOf(sf).Terrain
	s, err := session.Dial(ctx, session.Config{Addr: net.JoinHostPort(host, strconv.Itoa(st.Port)), UUID: uid, Token: st.Token, Key: st.Key, Terrain: terrain})
	if err != nil {
		return wire.Results{}, session.Stats{}, err
	}
	defer func() { s.Close(); s.Wait() }()
	tick := time.NewTicker(game.TickPeriod)
	defer tick.Stop()
	var res wire.Results
	got := false
	for {
		select {
		case <-ctx.Done():
			return res, s.Stats(), ctx.Err()
		case ev, ok := <-s.Events():
			if !ok {
				return res, s.Stats(), fmt.Errorf("the session ended before GAME_END")
			}
			switch ev.Kind {
			case session.EventResults:
				res, got = ev.Results, true
			case session.EventGameEnd:
				if !got {
					return res, s.Stats(), fmt.Errorf("GAME_END (%v) without RESULTS", ev.Result)
				}
				return res, s.Stats(), nil
			case session.EventDisconnected:
				return res, s.Stats(), fmt.Errorf("disconnected: %s", ev.Reason)
			}
		case <-tick.C:
			s.View(func(v *session.View) {
				if v.Self == ecs.Nil {
					s.SetInput(0)
					return
				}
				_, _, tr := v.Stage()
				s.SetInput(game.Autopilot(v.World, v.C, tr, v.Self, v.Tick).Buttons)
			})
		}
	}
}

// pageResults is what the client tells the page on its results screen (game/client/browser.go).
type pageResults struct {
	Result  uint8
	Self    int
	Entries []struct {
		Slot, Deaths       uint8
		Score, Shots, Hits uint32
		Kills, BeamHits    uint16
	}
}

func TestBrowserPlaysWithDesktopAndBots(t *testing.T) {
	browser.Need(t)
	dir, version := buildPage(t)
	bins := t.TempDir()
	srvBin := goBuild(t, bins, "github.com/rtype/rtype/cmd/rtype-server", version)
	botBin := goBuild(t, bins, "github.com/rtype/rtype/cmd/rtype-bot", version)
	srv := startWebServer(t, srvBin, dir)
	shots := shotDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()

	// The desktop-protocol player owns the lobby: the short stage, START once all four are in.
	lc, err := lobby.Dial(ctx, srv.lobby)
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	uid, err := lc.Authenticate("Desk")
	if err != nil {
		t.Fatal(err)
	}
	code, err := lc.Create("short")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("lobby %s on %s, page on http://%s/", code, srv.lobby, srv.web)

	t0 := time.Now()
	bctx := browser.Start(t, "http://"+srv.web+"/?lobby="+code+"&autoplay&mute&name=Web", browser.Options{Timeout: 6 * time.Minute})
	if err := browser.WaitFrames(bctx, 1); err != nil {
		t.Fatal(err)
	}
	first, _ := browser.Eval[float64](bctx, `rtype.timing.firstFrame`)

	bots := exec.CommandContext(ctx, botBin, "-server", srv.lobby, "-lobby", code, "-players", "2", "-name", "bot", "-timeout", "5m")
	var botOut strings.Builder
	bots.Stdout = &botOut
	bots.Stderr = io.Discard
	if err := bots.Start(); err != nil {
		t.Fatal(err)
	}
	botsDone := make(chan error, 1)
	go func() { botsDone <- bots.Wait() }()

	// Four in the lobby: Desk, Web, bot1, bot2 (the browser's in the room screen).
	for {
		_, names := lc.Members()
		if len(names) == 4 {
			t.Logf("members %v after %.1f s", names, time.Since(t0).Seconds())
			break
		}
		select {
		case <-ctx.Done():
			_, names := lc.Members()
			t.Fatalf("the lobby has %v, want Desk, Web and two bots", names)
		case <-time.After(100 * time.Millisecond):
		}
	}
	if err := browser.WaitFor(bctx, `rtype.scene === "room"`); err != nil {
		t.Fatal(err)
	}
	if err := browser.WaitFrames(bctx, 30); err == nil {
		if err := browser.Screenshot(bctx, filepath.Join(shots, "browser-lobby.png")); err != nil {
			t.Error(err)
		}
	}
	if err := lc.Start(); err != nil {
		t.Fatal(err)
	}
	st, err := lc.WaitStart(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type played struct {
		res wire.Results
		st  session.Stats
		err error
	}
	deskDone := make(chan played, 1)
	go func() {
		r, s, err := desktopPlayer(ctx, lc, uid, st, "127.0.0.1")
		deskDone <- played{r, s, err}
	}()

	// In game: a screenshot five seconds in, the frame rate over ten seconds of play.
	if err := browser.WaitFor(bctx, `rtype.scene === "playing"`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Second)
	// No mouse moved for seconds: the page's Fullscreen button is hidden off the HUD's corner.
	if idle, _ := browser.Eval[bool](bctx, `document.getElementById("fullscreen").classList.contains("idle")`); !idle {
		t.Error("the Fullscreen button still covers the game without a mouse move")
	}
	if err := browser.Screenshot(bctx, filepath.Join(shots, "browser-game.png")); err != nil {
		t.Error(err)
	}
	n0, _ := browser.Frames(bctx)
	f0 := time.Now()
	time.Sleep(10 * time.Second)
	n1, _ := browser.Frames(bctx)
	fps := float64(n1-n0) / time.Since(f0).Seconds()
	t.Logf("browser in game at 1280x720: %.1f frames per second (%d frames)", fps, n1-n0)

	desk := <-deskDone
	if desk.err != nil {
		t.Fatalf("the desktop-protocol player: %v", desk.err)
	}
	if err := browser.WaitFor(bctx, `rtype.results !== undefined`); err != nil {
		sc, _ := browser.Eval[string](bctx, `rtype.scene`)
		t.Fatalf("the browser shows no results (scene %q): %v", sc, err)
	}
	raw, _ := browser.Eval[string](bctx, `rtype.results`)
	var web pageResults
	if err := json.Unmarshal([]byte(raw), &web); err != nil {
		t.Fatalf("rtype.results %q: %v", raw, err)
	}
	netRaw, _ := browser.Eval[string](bctx, `rtype.net || "{}"`)
	var webNet session.Stats
	_ = json.Unmarshal([]byte(netRaw), &webNet)

	// The browser's results are the server's: the RESULTS the desktop player got, entry by entry.
	if web.Self < 0 || int(web.Self) >= int(desk.res.Count) || len(web.Entries) != int(desk.res.Count) {
		t.Fatalf("browser results %+v (self %d), desktop's RESULTS has %d entries", web.Entries, web.Self, desk.res.Count)
	}
	for i, e := range web.Entries {
		d := desk.res.Entries[i]
		if e.Slot != d.Slot || e.Score != d.Score || e.Kills != d.Kills || e.Deaths != d.Deaths || e.Shots != d.Shots || e.Hits != d.Hits || e.BeamHits != d.BeamHits {
			t.Errorf("slot %d: the browser shows %+v, the server sent %+v", d.Slot, e, d)
		}
	}
	if err := browser.Screenshot(bctx, filepath.Join(shots, "browser-results.png")); err != nil {
		t.Error(err)
	}
	// The game's replay is kept in the page's storage (game/client/replayfiles), as the desktop
	// client keeps it in its folder.
	rctx, rcancel := context.WithTimeout(bctx, 60*time.Second)
	if err := browser.WaitFor(rctx, `Object.keys(localStorage).some(k => k.startsWith("rtype/replays/"))`); err != nil {
		keys, _ := browser.Eval[string](bctx, `Object.keys(localStorage).join(" ")`)
		t.Errorf("no replay kept in localStorage within 60 s of the game's end (keys: %s): %v", keys, err)
	}
	rcancel()

	select {
	case err := <-botsDone:
		if err != nil {
			t.Errorf("rtype-bot: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the bots did not finish")
	}
	// The browser's datagrams came over its data channel: the server saw the player at a
	// reserved WebRTC address (0.0.0.0/8, docs/PROTOCOL.md §2.8.1), not at a UDP one.
	if !regexp.MustCompile(`msg="player here" .*name=Web addr=0\.0\.0\.\d+:`).MatchString(srv.logText()) {
		t.Error("the server did not see the browser player over WebRTC (no 'player here ... name=Web addr=0.0.0.x')")
	}
	wins := 0
	for _, line := range strings.Split(strings.TrimSpace(botOut.String()), "\n") {
		var r struct {
			Result string
			Slot   int
			Score  uint32
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bot line %q: %v", line, err)
		}
		if r.Result != "victory" && r.Result != "defeat" {
			t.Errorf("a bot ended %q", r.Result)
		}
		if r.Slot >= 0 && r.Slot < int(desk.res.Count) && desk.res.Entries[r.Slot].Score != r.Score {
			t.Errorf("bot in slot %d scored %d, the server's RESULTS say %d", r.Slot, r.Score, desk.res.Entries[r.Slot].Score)
		}
		wins++
	}
	if wins != 2 {
		t.Errorf("%d bot results, want 2:\n%s", wins, botOut.String())
	}
	t.Logf("time to first frame %.0f ms; the browser's link: %.1f snapshots/s, loss %.2f %%, rtt %.1f ms, jitter %.1f ms, drawn %.0f ms behind; the desktop's: %.1f snapshots/s, loss %.2f %%, rtt %.1f ms, jitter %.1f ms, drawn %.0f ms behind",
		first, webNet.SnapshotsPerSec, webNet.LossPercent, webNet.RTTMillis, webNet.JitterMillis, webNet.InterpDelayMs,
		desk.st.SnapshotsPerSec, desk.st.LossPercent, desk.st.RTTMillis, desk.st.JitterMillis, desk.st.InterpDelayMs)
}
