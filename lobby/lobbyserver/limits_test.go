package lobbyserver

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
)

// flakyListener fails Accept with EMFILE ("too many open files") while fail is
// set, as a listener does when the process is out of file descriptors.
type flakyListener struct {
	net.Listener
	fail   atomic.Bool
	failed atomic.Int64
}

func (l *flakyListener) Accept() (net.Conn, error) {
	for l.fail.Load() {
		l.failed.Add(1)
		time.Sleep(time.Millisecond)
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// serveOn serves a Server on ln until the test ends.
func serveOn(t *testing.T, cfg ServerConfig, ln net.Listener) *Server {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	s := NewServer(withStages(cfg))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-errc:
			if err != nil {
				t.Errorf("Serve returned %v after cancel, want nil", err)
			}
		case <-time.After(waitTime):
			t.Errorf("Serve did not return after cancel")
		}
	})
	return s
}

// TestAcceptErrorsDoNotStopServer: EMFILE from Accept (issue 14: ~20 000
// connections made the server exit 1) is retried; a game in progress carries
// on and gets its END; new connections are accepted once descriptors are back.
func TestAcceptErrorsDoNotStopServer(t *testing.T) {
	st := newFakeStarter()
	ln := &flakyListener{Listener: mustListen(t)}
	srv := serveOn(t, ServerConfig{Starter: st}, ln)
	addr := ln.Addr().String()
	a, _ := dialClient(t, addr, "alice")
	if _, err := a.Join(""); err != nil {
		t.Fatal(err)
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.WaitStart(waitCtx(t)); err != nil {
		t.Fatal(err)
	}
	ln.fail.Store(true)
	dialRaw(t, addr) // the Accept in progress returns this one; the next ones fail
	eventually(t, "accept errors", func() bool { return ln.failed.Load() >= 5 })
	if err := a.Chat("still here"); err != nil {
		t.Fatalf("chat while accept fails: %v", err)
	}
	st.lastGame(t).end(1)
	if res, err := a.WaitEnd(waitCtx(t)); err != nil || res != 1 {
		t.Fatalf("WaitEnd = %d, %v", res, err)
	}
	ln.fail.Store(false)
	b, _ := dialClient(t, addr, "bob") // accepted again (after at most a 1 s backoff)
	if _, err := b.Lobbies(); err != nil {
		t.Fatal(err)
	}
	if n := srv.Stats().AcceptErrors; n < 5 {
		t.Fatalf("AcceptErrors = %d, want >= 5", n)
	}
}

// dialFrom opens a lobby Client whose connection comes from the local IP from
// (127.0.0.2 is another loopback address: another "address" for the limits).
func dialFrom(t *testing.T, from, addr, name string) *lobby.Client {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	nc, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c := lobby.NewClient(nc)
	t.Cleanup(func() { c.Close() })
	if name != "" {
		if _, err := c.Authenticate(name); err != nil {
			t.Fatalf("Authenticate(%q) from %s: %v", name, from, err)
		}
	}
	return c
}

// TestOneAddressAtItsLimits: one address at its connection and lobby limits;
// another address still connects, creates a lobby and plays.
func TestOneAddressAtItsLimits(t *testing.T) {
	st := newFakeStarter()
	srv, addr := startServer(t, ServerConfig{Starter: st, MaxConnsPerAddr: 3, MaxLobbiesPerAddr: 2, MaxLobbies: 3})
	var mine []*lobby.Client
	for i := range 3 {
		mine = append(mine, dialFrom(t, "127.0.0.1", addr, "m"+string(rune('0'+i))))
	}
	// A fourth connection from the same address: one 500 line, then closed.
	extra := dialFrom(t, "127.0.0.1", addr, "")
	_, err := extra.Authenticate("m3")
	// The refusal is the answer to AUTHENTICATE, or arrived before it was sent.
	var sc *lobby.ServerClosedError
	var re *lobby.ResponseError
	const reason = "too many connections from 127.0.0.1 (max 3), closing connection"
	if !(errors.As(err, &sc) && sc.Reason == reason) && !(errors.As(err, &re) && re.Reason == reason) {
		t.Fatalf("4th connection: %v, want the refusal about 127.0.0.1", err)
	}
	if msg, _ := lobby.Explain(err, addr); !strings.Contains(msg, "oo many connections from 127.0.0.1") {
		t.Fatalf("Explain = %q", msg)
	}
	for _, c := range mine[:2] {
		if _, err := c.Join(""); err != nil {
			t.Fatal(err)
		}
	}
	_, err = mine[2].Join("")
	if re := respErr(t, err, 500); re.Reason != "too many lobbies from 127.0.0.1 (max 2)" {
		t.Fatalf("3rd lobby: %q", re.Reason)
	}
	// The other address: connects, creates the last lobby and starts a game.
	other := dialFrom(t, "127.0.0.2", addr, "other")
	code, err := other.Join("")
	if err != nil {
		t.Fatalf("another address cannot create a lobby: %v", err)
	}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := other.WaitStart(waitCtx(t)); err != nil {
		t.Fatal(err)
	}
	ls, _ := other.Lobbies()
	if len(ls) != 3 || ls[2] != (lobby.LobbyInfo{Code: code, Players: 1, Running: true, Stage: "stage1", Difficulty: 0}) {
		t.Fatalf("Lobbies = %v", ls)
	}
	hits := srv.Stats().LimitHits
	if hits[LimitConnsPerAddr] != 1 || hits[LimitLobbiesPerAddr] != 1 {
		t.Fatalf("limit hits %v, want 1 conns_per_addr and 1 lobbies_per_addr", hits)
	}
	// The server-wide lobby limit names no address.
	_, err = mine[2].Join("")
	respErr(t, err, 500)
}

// TestTimersCloseSockets: the Core's deadlines reach the sockets: a connection that does not
// authenticate is closed by the runtime's timer (the rules: TestCoreAuthTimeout,
// TestCoreIdleTimeout), and a flood over the command rate gets its 500 before the close.
func TestTimersCloseSockets(t *testing.T) {
	srv, addr := startServer(t, ServerConfig{AuthTimeout: 50 * time.Millisecond, CommandRate: 2})
	quiet := dialRaw(t, addr)
	flood := dialRaw(t, addr)
	id := flood.auth("flood")
	quiet.expectClosed(waitTime)
	flood.send(strings.Repeat("GET_LOBBIES "+id+";\r\n", CommandBurst+MaxRefused))
	var last string
	for {
		flood.c.SetReadDeadline(time.Now().Add(waitTime))
		l, err := flood.lr.ReadLine()
		if err != nil {
			break
		}
		last = string(l)
	}
	if last != "500 "+srv.core.srv+" too many commands, closing connection\r\n" {
		t.Fatalf("last line before the close: %q", last)
	}
	if hits := srv.Stats().LimitHits; hits[LimitAuthTimeout] != 1 || hits[LimitCommandRate] < MaxRefused {
		t.Fatalf("limit hits %v", hits)
	}
}

// longStages offers a stage with a 32-character name, so that GET_LOBBIES
// entries are as long as they get.
func longStages(t *testing.T) (*stagefile.Catalogue, string) {
	t.Helper()
	data, err := os.ReadFile("../../testdata/lobby/tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("x", stagefile.MaxNameLen)
	f, err := stagefile.New(name, "tiny.json", data, game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := stagefile.NewCatalogue(name, f)
	if err != nil {
		t.Fatal(err)
	}
	return cat, name
}

// TestGetLobbiesWhole: 40 lobbies fit in one response; 120 lobbies with the
// longest entries come in pages of whole entries that the reference client
// joins back, in creation order.
func TestGetLobbiesWhole(t *testing.T) {
	for _, tc := range []struct {
		n     int
		long  bool
		pages int
	}{{40, false, 1}, {120, true, 2}} {
		cfg := ServerConfig{MaxLobbies: 200, MaxConnsPerAddr: 200, MaxLobbiesPerAddr: 200, Logger: discardLogger()}
		stage := "stage1"
		if tc.long {
			cfg.Stages, stage = longStages(t)
		}
		srv, addr := startServer(t, cfg)
		var want []lobby.LobbyInfo
		for i := range tc.n {
			r := dialRaw(t, addr)
			id := r.auth("p")
			r.send("JOIN_LOBBY " + id + ";\r\n")
			resp, err := lobby.ParseResponse([]byte(r.line()))
			if err != nil || resp.Code != 200 {
				t.Fatalf("lobby %d: %v %v", i, resp, err)
			}
			want = append(want, lobby.LobbyInfo{Code: resp.Body, Players: 1, Running: false, Stage: stage, Difficulty: 0})
		}
		r := dialRaw(t, addr)
		id := r.auth("lister")
		var raw []lobby.LobbyInfo
		for page := 0; ; page++ {
			arg := ""
			if page > 0 {
				arg = strconv.Itoa(len(raw))
			}
			line := r.roundTrip("GET_LOBBIES " + id + ";" + arg + "\r\n")
			if len(line) > lobby.MaxLine {
				t.Fatalf("line of %d bytes", len(line))
			}
			resp, _ := lobby.ParseResponse([]byte(line))
			ls, err := lobby.ParseLobbies(resp.Body) // whole entries only
			if err != nil {
				t.Fatalf("page %d: %v", page, err)
			}
			if len(ls) == 0 {
				if page != tc.pages {
					t.Fatalf("%d pages, want %d", page, tc.pages)
				}
				break
			}
			raw = append(raw, ls...)
		}
		if !reflect.DeepEqual(raw, want) {
			t.Fatalf("%d lobbies: raw pages list %d, want all in creation order", tc.n, len(raw))
		}
		c, _ := dialClient(t, addr, "client")
		got, err := c.Lobbies()
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("Client.Lobbies: %d lobbies, %v; want %d", len(got), err, tc.n)
		}
		_ = srv
	}
}

// The limit log of a burst: its first event logged at once, the others counted and logged with
// their number once the burst's window is over, by flush when no further event comes.
func TestBurstLogReportsTheEndOfABurst(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	var b burstLog
	for range 5 {
		b.hit(log, time.Second, "conns_per_addr 192.0.2.7", "lobby limit hit: connection refused", "limit", "conns_per_addr", "remote", "192.0.2.7")
	}
	if n := strings.Count(buf.String(), "\n"); n != 1 {
		t.Fatalf("%d lines for a burst of 5 within the window, want 1:\n%s", n, buf.String())
	}
	buf.Reset()
	b.flush(log, 2*time.Second) // the window is not over
	if buf.Len() != 0 {
		t.Fatalf("flushed within the window: %s", buf.String())
	}
	b.flush(log, time.Second+burstWindow)
	line := buf.String()
	for _, want := range []string{"lobby limit hit: connection refused", "remote=192.0.2.7", "repeats_not_logged=4"} {
		if !strings.Contains(line, want) {
			t.Errorf("end of burst %q lacks %q", line, want)
		}
	}
	buf.Reset()
	b.flush(log, time.Second+3*burstWindow)
	if buf.Len() != 0 {
		t.Errorf("the burst was reported twice: %s", buf.String())
	}
}
