package server

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/bot"
)

// TestBotsChat: two bots chat in their lobby and in game; each sees the other's lines.
func TestBotsChat(t *testing.T) {
	t.Parallel()
	addr, _, stop := startServer(t, Config{Stage: "short"})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := bot.Run(ctx, bot.Config{Server: addr, Players: 2, Chat: "hello, 100% ready ✈"}, nil)
	if err != nil {
		t.Fatalf("bots: %v", err)
	}
	for i, r := range res {
		other := res[1-i].Bot
		for _, want := range []string{other + ": hello, 100% ready ✈", other + ": hello, 100% ready ✈ (in game)"} {
			found := false
			for _, l := range r.Chat {
				found = found || l == want
			}
			if !found {
				t.Errorf("bot %s did not see %q; it saw %q", r.Bot, want, r.Chat)
			}
		}
	}
}

// adminHTTP keeps no idle connection (goleak).
var adminHTTP = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}

// scrape returns the metric samples of the admin address as "name{labels}" -> value.
func scrape(t *testing.T, admin string) map[string]float64 {
	t.Helper()
	resp, err := adminHTTP.Get("http://" + admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %s", resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") || l == "" {
			continue
		}
		i := strings.LastIndexByte(l, ' ')
		v, err := strconv.ParseFloat(l[i+1:], 64)
		if err != nil {
			t.Fatalf("metric line %q", l)
		}
		out[l[:i]] = v
	}
	return out
}

// TestAdminAddress: with -admin, /metrics shows the lobby and game counters moving during a bot
// game and a flood, /debug/pprof/ answers, and POST /broadcast reaches every connected client.
func TestAdminAddress(t *testing.T) {
	t.Parallel()
	adminc := make(chan string, 1)
	addr, mgr, stop := startServer(t, Config{Stage: "short", AdminAddr: "127.0.0.1:0",
		OnAdmin: func(a net.Addr) { adminc <- a.String() }})
	defer stop()
	admin := <-adminc
	before := scrape(t, admin)
	for _, name := range []string{`rtype_lobby_connections`, `rtype_games`, `rtype_spectators`, `rtype_lobbies{state="running"}`,
		`rtype_udp_dropped_total{reason="token"}`, `rtype_udp_dropped_total{reason="address"}`, `rtype_udp_dropped_total{reason="rate"}`,
		`rtype_lobby_limit_hits_total{limit="command_rate"}`, `rtype_tick_lateness_seconds_count`, `rtype_udp_kernel_drops_total`, `go_goroutines`} {
		if _, ok := before[name]; !ok {
			t.Errorf("/metrics has no %s", name)
		}
	}

	// Broadcast: two lobby clients and a raw connection that never authenticated.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var cs []*lobby.Client
	for _, n := range []string{"a", "b"} {
		c, _ := dialLobby(t, ctx, addr, n)
		defer c.Close()
		cs = append(cs, c)
	}
	if _, err := cs[1].Join(""); err != nil {
		t.Fatal(err)
	}
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	waitFor(5*time.Second, func() bool { return scrape(t, admin)["rtype_lobby_connections"] == 3 })
	resp, err := adminHTTP.Post("http://"+admin+"/broadcast", "text/plain", strings.NewReader("Restart in 5 min ✈"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "sent to 3 clients\n" {
		t.Fatalf("POST /broadcast: %s %q", resp.Status, body)
	}
	for _, c := range cs {
		wctx, wcancel := context.WithTimeout(ctx, 5*time.Second)
		m, err := c.WaitMessage(wctx)
		wcancel()
		if err != nil || m != (lobby.Message{Broadcast: true, Text: "Restart in 5 min ✈"}) {
			t.Fatalf("client got %+v, %v", m, err)
		}
	}
	raw.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(raw).ReadString('\n')
	if err != nil || !regexp.MustCompile(`^BROADCAST [0-9a-f-]{36};Restart in 5 min %E2%9C%88\r\n$`).MatchString(line) {
		t.Fatalf("raw connection got %q, %v", line, err)
	}
	if resp, err := adminHTTP.Post("http://"+admin+"/broadcast", "text/plain", strings.NewReader("")); err != nil || resp.StatusCode != 400 {
		t.Fatalf("empty broadcast: %v %v", resp, err)
	}

	// A flood: lines over the rate from one connection, junk datagrams on the game port.
	fl, _ := dialLobby(t, ctx, addr, "flood")
	defer fl.Close()
	for range 40 {
		fl.Lobbies()
	}
	uc, err := net.Dial("udp", net.JoinHostPort("127.0.0.1", strconv.Itoa(mgr.Port())))
	if err != nil {
		t.Fatal(err)
	}
	defer uc.Close()
	for range 50 {
		uc.Write([]byte("junk"))
	}

	// A bot game.
	if _, err := bot.Run(ctx, bot.Config{Server: addr, Players: 2}, nil); err != nil {
		t.Fatalf("bots: %v", err)
	}
	after := scrape(t, admin)
	for _, m := range []string{`rtype_udp_datagrams_total{direction="in"}`, `rtype_udp_datagrams_total{direction="out"}`,
		`rtype_udp_bytes_total{direction="out"}`, `rtype_lobby_replies_total{code="200"}`, `rtype_lobby_replies_total{code="500"}`,
		`rtype_lobby_limit_hits_total{limit="command_rate"}`, `rtype_udp_dropped_total{reason="short"}`,
		`rtype_tick_lateness_seconds_count`, `rtype_tick_duration_seconds_count`, `rtype_tick_duration_seconds_sum`, `rtype_lobby_broadcasts_total`} {
		if !(after[m] > before[m]) {
			t.Errorf("%s did not move: %v -> %v", m, before[m], after[m])
		}
	}
	if after[`rtype_udp_dropped_total{reason="short"}`] < 50 {
		t.Errorf("short drops %v, want >= 50", after[`rtype_udp_dropped_total{reason="short"}`])
	}
	if after["rtype_games"] != 0 {
		t.Errorf("rtype_games = %v after the game", after["rtype_games"])
	}
	resp, err = adminHTTP.Get("http://" + admin + "/debug/pprof/")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("pprof: %v %v", resp, err)
	}
	resp.Body.Close()
}
