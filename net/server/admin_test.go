package server

import (
	"bufio"
	"context"
	"fmt"
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
	addr, mgr, stop := startServer(t, Config{Stage: "short", AdminAddr: "127.0.0.1:0", AdminToken: testToken,
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
	build := 0
	for name, v := range before {
		if strings.HasPrefix(name, `rtype_build_info{`) && strings.Contains(name, `version="`) && v == 1 {
			build++
		}
	}
	if build != 1 {
		t.Errorf("/metrics has %d rtype_build_info{version=...} 1 samples, want 1", build)
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
	resp, err := adminDo(t, "POST", "http://"+admin+"/broadcast", "Restart in 5 min ✈", map[string]string{"Authorization": "Bearer " + testToken})
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
	if resp, err := adminDo(t, "POST", "http://"+admin+"/broadcast", "", map[string]string{"Authorization": "Bearer " + testToken}); err != nil || resp.StatusCode != 400 {
		t.Fatalf("empty broadcast: %v %v", resp, err)
	}

	// A flood: lines over the rate from one connection (40 at once, in one write, so however slow
	// the machine they arrive faster than 10 a second in bursts of 20), junk datagrams on the
	// game port.
	fl, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	flr := bufio.NewReader(fl)
	fmt.Fprintf(fl, "AUTHENTICATE ;flood\r\n")
	fl.SetReadDeadline(time.Now().Add(5 * time.Second))
	hello, err := flr.ReadString('\n')
	f := strings.Fields(hello)
	if err != nil || len(f) != 3 || f[0] != "200" {
		t.Fatalf("flood AUTHENTICATE: %q %v", hello, err)
	}
	fl.Write([]byte(strings.Repeat("GET_LOBBIES "+f[2]+";\r\n", 40)))
	for {
		line, err := flr.ReadString('\n')
		if err != nil || strings.HasPrefix(line, "500 ") {
			break // refused over the rate (then closed)
		}
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
	resp, err = adminDo(t, "GET", "http://"+admin+"/debug/pprof/", "", map[string]string{"Authorization": "Bearer " + testToken})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("pprof: %v %v", resp, err)
	}
	resp.Body.Close()
}

const testToken = "test-token-0123456789"

// adminDo sends one request with the given headers and body (closed by the caller or here when
// the status is all a test wants).
func adminDo(t *testing.T, method, url, body string, hdr map[string]string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "text/plain")
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	return adminHTTP.Do(req)
}

// status is the status code of one request (0 when it failed), its body read and closed.
func status(t *testing.T, method, url, body string, hdr map[string]string) (int, string) {
	t.Helper()
	resp, err := adminDo(t, method, url, body, hdr)
	if err != nil {
		t.Errorf("%s %s: %v", method, url, err)
		return 0, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The admin address refuses what a web page or a stranger could do with it: a cross-origin POST
// /broadcast (a form on another site, even with the token), any request whose Host header is a
// foreign name (DNS rebinding: /metrics and the profiles stay unreadable), and the write and
// profiling endpoints without the right token; the metrics address serves /metrics, /healthz
// and /readyz and nothing else.
func TestAdminAndMetricsAddressesRefuse(t *testing.T) {
	t.Parallel()
	adminc, metricsc := make(chan string, 1), make(chan string, 1)
	_, _, stop := startServer(t, Config{Stage: "short", AdminAddr: "127.0.0.1:0", MetricsAddr: "127.0.0.1:0", AdminToken: testToken,
		HTTPHosts: []string{"rtype.internal"},
		OnAdmin:   func(a net.Addr) { adminc <- a.String() }, OnMetrics: func(a net.Addr) { metricsc <- a.String() }})
	defer stop()
	admin, metrics := "http://"+<-adminc, "http://"+<-metricsc
	auth := map[string]string{"Authorization": "Bearer " + testToken}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{"Authorization": "Bearer " + testToken}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	for _, c := range []struct {
		name, method, url, body string
		hdr                     map[string]string
		want                    int
	}{
		{"broadcast with the token", "POST", admin + "/broadcast", "hello", auth, 200},
		{"cross-origin broadcast (Origin)", "POST", admin + "/broadcast", "hello", with(map[string]string{"Origin": "http://evil.example"}), 403},
		{"cross-site broadcast (Sec-Fetch-Site)", "POST", admin + "/broadcast", "hello", with(map[string]string{"Sec-Fetch-Site": "cross-site"}), 403},
		{"broadcast without a token", "POST", admin + "/broadcast", "hello", nil, 401},
		{"broadcast with a wrong token", "POST", admin + "/broadcast", "hello", map[string]string{"Authorization": "Bearer nope"}, 401},
		{"pprof without a token", "GET", admin + "/debug/pprof/", "", nil, 401},
		{"pprof with the token", "GET", admin + "/debug/pprof/", "", auth, 200},
		{"players without a token", "GET", admin + "/players", "", nil, 401},
		{"bans with a wrong token", "GET", admin + "/bans", "", map[string]string{"Authorization": "Bearer nope"}, 401},
		{"ban without a token", "POST", admin + "/ban?name=alice", "", nil, 401},
		{"kick without a token", "POST", admin + "/kick?player=alice", "", nil, 401},
		{"cross-origin ban", "POST", admin + "/ban?name=alice", "", with(map[string]string{"Origin": "http://evil.example"}), 403},
		{"players with the token", "GET", admin + "/players", "", auth, 200},
		{"games with the token", "GET", admin + "/games", "", auth, 200},
		{"kick of nobody with the token", "POST", admin + "/kick?player=nobody", "", auth, 404},
		{"ban of a bad name with the token", "POST", admin + "/ban?name=bad+name", "", auth, 400},
		{"metrics address: no moderation", "GET", metrics + "/players", "", auth, 404},
		{"metrics, foreign Host", "GET", admin + "/metrics", "", map[string]string{"Host": "attacker.example:9090"}, 421},
		{"pprof, foreign Host", "GET", admin + "/debug/pprof/", "", with(map[string]string{"Host": "attacker.example"}), 421},
		{"metrics, Host localhost", "GET", admin + "/metrics", "", map[string]string{"Host": "localhost:9090"}, 200},
		{"metrics, Host listed in HTTPHosts", "GET", admin + "/metrics", "", map[string]string{"Host": "rtype.internal:9090"}, 200},
		{"metrics address: /metrics", "GET", metrics + "/metrics", "", nil, 200},
		{"metrics address: /healthz", "GET", metrics + "/healthz", "", nil, 200},
		{"metrics address: /readyz", "GET", metrics + "/readyz", "", nil, 200},
		{"metrics address: no pprof", "GET", metrics + "/debug/pprof/", "", auth, 404},
		{"metrics address: no broadcast", "POST", metrics + "/broadcast", "hello", auth, 404},
		{"metrics address: nothing else", "GET", metrics + "/", "", nil, 404},
		{"metrics address, foreign Host", "GET", metrics + "/metrics", "", map[string]string{"Host": "attacker.example"}, 421},
	} {
		if got, body := status(t, c.method, c.url, c.body, c.hdr); got != c.want {
			t.Errorf("%s: %s %s = %d (%q), want %d", c.name, c.method, c.url, got, body, c.want)
		}
	}
}

// Without a token configured, the admin address serves the metrics but refuses the write and
// profiling endpoints to everyone.
func TestAdminWithoutTokenRefusesWrites(t *testing.T) {
	t.Parallel()
	adminc := make(chan string, 1)
	_, _, stop := startServer(t, Config{Stage: "short", AdminAddr: "127.0.0.1:0", OnAdmin: func(a net.Addr) { adminc <- a.String() }})
	defer stop()
	admin := "http://" + <-adminc
	if got, _ := status(t, "GET", admin+"/metrics", "", nil); got != 200 {
		t.Errorf("/metrics = %d, want 200", got)
	}
	for _, h := range []map[string]string{nil, {"Authorization": "Bearer "}} {
		if got, _ := status(t, "POST", admin+"/broadcast", "hello", h); got != 403 {
			t.Errorf("POST /broadcast %v = %d, want 403", h, got)
		}
		if got, _ := status(t, "GET", admin+"/debug/pprof/", "", h); got != 403 {
			t.Errorf("GET /debug/pprof/ %v = %d, want 403", h, got)
		}
	}
}

// TestReadyzSaysWhy: a lobby none of whose hosts is up is not ready, and says so: "no game host
// up", not the "shutting down" of a server that stops (a load balancer's operator reads it).
func TestReadyzSaysWhy(t *testing.T) {
	t.Parallel()
	metricsAddr := make(chan net.Addr, 1)
	_, _, stop := startServerTB(t, Config{Stage: "short", Logger: quietLog(), MetricsAddr: "127.0.0.1:0", OnMetrics: func(a net.Addr) { metricsAddr <- a },
		Fleet: FleetConfig{Role: RoleLobby, Secret: testControlSecret, Hosts: []string{"127.0.0.1:1"}}})
	defer stop()
	resp, err := http.Get("http://" + (<-metricsAddr).String() + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || strings.TrimSpace(string(body)) != NotReadyNoHosts {
		t.Fatalf("/readyz of a lobby with no host up: %d %q, want 503 %q", resp.StatusCode, body, NotReadyNoHosts)
	}
}
