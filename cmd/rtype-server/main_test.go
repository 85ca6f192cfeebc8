package main

// Tests of the rtype-server binary as operators run it: built with `go build`, started as a
// process, stopped with SIGINT.
//
//	go test -run . -race ./cmd/rtype-server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/session"
)

func TestMain(m *testing.M) {
	// The servers these tests start keep their hall of fame (-db sqlite, the default) in the
	// default data directory under XDG_DATA_HOME: a temporary one, not the user's.
	data, err := os.MkdirTemp("", "rtype-server-data-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_DATA_HOME", data)
	code := m.Run()
	os.RemoveAll(data)
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildDir  string
)

// binary builds cmd/rtype-server once per test run.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "rtype-server-test")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(buildDir, "rtype-server")
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = err
			return
		}
		out, err := exec.Command(goTool, "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// syncBuf is an io.Writer safe for the exec copier and the test.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Ports for the server processes these tests start (which must be told their ports): picked
// below the kernel's ephemeral range (32768 and up on Linux), where every socket bound to port 0
// by this and the other test packages running beside it lands, so that a port found free here
// is not taken by one of them before the process binds it; never the same one twice in a run.
const (
	testPortMin = 20000
	testPortMax = 32000
)

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

// freePort returns a port of 127.0.0.1 that was free a moment ago for both TCP and UDP (so
// either may be bound on it), outside the ephemeral range and not given before in this run.
func freePort(t *testing.T) int {
	t.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 200 {
		p := testPortMin + rand.IntN(testPortMax-testPortMin)
		if portsGiven[p] {
			continue
		}
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		pc, err := net.ListenPacket("udp", "127.0.0.1:"+strconv.Itoa(p))
		ln.Close()
		if err != nil {
			continue
		}
		pc.Close()
		portsGiven[p] = true
		return p
	}
	t.Fatal("no free port")
	return 0
}

// TestHelpListsEveryFlagWithEnv: `rtype-server -h` exits 0 and documents, for every flag, the
// environment variable that sets it (RTYPE_ + the flag name in upper case, '-' → '_').
func TestHelpListsEveryFlagWithEnv(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binary(t), "-h")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("-h: %v\n%s", err, out)
	}
	text := string(out)
	flagLine := regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`)
	locs := flagLine.FindAllStringSubmatchIndex(text, -1)
	if len(locs) == 0 {
		t.Fatalf("no flag in -h output:\n%s", text)
	}
	seen := map[string]bool{}
	for i, l := range locs {
		name := text[l[2]:l[3]]
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		usage := text[l[0]:end]
		env := "RTYPE_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if seen[name] = true; name == "version" { // prints and exits: not configuration
			continue
		}
		if !strings.Contains(usage, "(env "+env+")") {
			t.Errorf("flag -%s: usage does not name its env var %s:\n%s", name, env, usage)
		}
		seen[name] = true
	}
	for _, want := range []string{"addr", "udp-addr", "udp-port", "max-lobbies", "stage", "netsim", "log-format", "log-level"} {
		if !seen[want] {
			t.Errorf("-h does not list -%s", want)
		}
	}
}

// TestEnvIsRead: the env vars shown by -h configure the server: a bad RTYPE_LOG_LEVEL is
// rejected with exit 2 and a bad RTYPE_STAGE with exit 1, both naming the problem.
func TestEnvIsRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  string
		code int
		msg  string
	}{
		{"RTYPE_LOG_LEVEL=loud", 2, "-log-level"},
		{"RTYPE_STAGE=/nonexistent/stage.json", 1, "stage"},
		{"RTYPE_UDP_PORT=9-", 2, "-udp-port"},
		{"RTYPE_ADDR=nohostport", 2, "-addr"},
		{"RTYPE_MAX_CONNS=0", 2, "-max-conns must be positive"},
		{"RTYPE_UDP_RATE=0", 2, "-udp-rate 0 is ambiguous"},
	} {
		args := []string{"-addr", "127.0.0.1:" + strconv.Itoa(freePort(t))}
		if strings.HasPrefix(tc.env, "RTYPE_ADDR=") {
			args = nil
		}
		cmd := exec.Command(binary(t), args...)
		cmd.Env = append(os.Environ(), tc.env)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
			t.Errorf("%s: %v, want exit %d\n%s", tc.env, err, tc.code, out)
			continue
		}
		if !strings.Contains(string(out), tc.msg) {
			t.Errorf("%s: output does not mention %q:\n%s", tc.env, tc.msg, out)
		}
	}
}

// TestSIGINTEndsGamesAndExits: with 2 bots in a game, a first SIGINT or SIGTERM (systemd, docker
// stop) drains: the game plays on and the server with it; a second one makes the server end the
// game with GAME_END (aborted) to every player, and the process exits 0. (SIGHUP reloads
// instead: TestSIGHUPReloadsKeepsTheGame.)
func TestSIGINTEndsGamesAndExits(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			signalEndsGames(t, sig)
		})
	}
}

func signalEndsGames(t *testing.T, sig syscall.Signal) {
	bin := binary(t)
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := startServerProc(t, ctx, exec.Command(bin, "-addr", addr, "-stage", "short", "-log-format", "json"), addr)

	var inGame atomic.Int32
	var mu sync.Mutex
	var sessions []*session.Session
	type runRes struct {
		res []bot.Result
		err error
	}
	done := make(chan runRes, 1)
	go func() {
		r, err := bot.Run(ctx, bot.Config{Server: addr, Players: 2, OnSession: func(_ int, s *session.Session) {
			mu.Lock()
			sessions = append(sessions, s)
			mu.Unlock()
			inGame.Add(1)
		}}, nil)
		done <- runRes{r, err}
	}()
	// reached waits until the game has run to tick n (both bots in), bounded by a stuck game.
	reached := func(n uint32) bool {
		for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if inGame.Load() < 2 {
				continue
			}
			mu.Lock()
			var tick uint32
			sessions[0].View(func(v *session.View) { tick = uint32(v.Tick) })
			mu.Unlock()
			if tick >= n {
				return true
			}
		}
		return false
	}
	if !reached(60) {
		t.Fatal("the game did not start")
	}
	// The first signal drains: the game plays on (60 ticks more) and the server with it.
	if err := srv.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	if !reached(120) {
		t.Fatalf("the game stopped after the first %v: a drain lets it go on", sig)
	}
	select {
	case <-srv.done:
		t.Fatalf("the server exited at the first %v with its game running (-drain-timeout 10m)", sig)
	default:
	}
	// The second ends the game at once.
	if err := srv.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-srv.done:
		if err := srv.err; err != nil {
			t.Errorf("server exit after %v: %v, want status 0", sig, err)
		}
	// a bound for a stuck shutdown, not a speed: 10 times ShutdownLinger (the wait for GAME_END's
	// acknowledgements)
	case <-time.After(10 * instance.ShutdownLinger):
		t.Fatalf("server still running %v after %v", 10*instance.ShutdownLinger, sig)
	}
	var rr runRes
	select {
	case rr = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("bots did not finish after the server stopped")
	}
	if rr.err != nil {
		t.Errorf("bots: %v", rr.err)
	}
	for _, r := range rr.res {
		if r.Result != "aborted" {
			t.Errorf("bot %s: result %q (%s), want aborted (GAME_END from the shutdown)", r.Bot, r.Result, r.Error)
		}
	}
	logs := srv.stderr.String()
	for _, want := range []string{`"msg":"game ended"`, `"result":"aborted"`, `"msg":"rtype server stopped"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("server log lacks %s", want)
		}
	}
}

// TestOutOfFileDescriptors (issue 14): with `ulimit -n 128`, a flood of 300 connections makes
// accept fail with EMFILE; the server does not exit, the game in progress carries on to its
// GAME_END, the lobby accepts again once the flood is gone, and `rtype-server broadcast` reaches a
// client through the admin address.
func TestOutOfFileDescriptors(t *testing.T) {
	t.Parallel()
	bin := binary(t)
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	admin := "127.0.0.1:" + strconv.Itoa(freePort(t))
	tokenFile := filepath.Join(t.TempDir(), "admin-token")
	if err := os.WriteFile(tokenFile, []byte("fd-test-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := startServerProc(t, ctx, exec.Command("sh", "-c", `ulimit -n 128 && exec "$0" "$@"`, bin, "-addr", addr, "-stage", "short",
		"-log-format", "json", "-max-conns", "1000", "-max-conns-per-addr", "1000", "-admin", admin, "-admin-token-file", tokenFile), addr)
	var inGame atomic.Int32
	type runRes struct {
		res []bot.Result
		err error
	}
	done := make(chan runRes, 1)
	go func() {
		r, err := bot.Run(ctx, bot.Config{Server: addr, Players: 2, OnSession: func(int, *session.Session) { inGame.Add(1) }}, nil)
		done <- runRes{r, err}
	}()
	for end := time.Now().Add(30 * time.Second); inGame.Load() < 2 && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	if inGame.Load() < 2 {
		t.Fatal("the game did not start")
	}
	// The flood: 300 connections held for 2 s.
	var flood []net.Conn
	for range 300 {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break // the listen backlog is full: enough
		}
		flood = append(flood, c)
	}
	time.Sleep(2 * time.Second)
	for _, c := range flood {
		c.Close()
	}
	select {
	case <-srv.done:
		t.Fatalf("server exited during the flood: %v", srv.err)
	default:
	}
	// The lobby accepts again (the accept backoff is at most 1 s).
	var lc *lobby.Client
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		c, err := lobby.Dial(ctx, addr)
		if err != nil {
			continue
		}
		if _, err := c.Authenticate("after"); err != nil {
			c.Close()
			continue
		}
		lc = c
		break
	}
	if lc == nil {
		t.Fatal("the lobby does not accept connections after the flood")
	}
	defer lc.Close()
	// without the token the admin address refuses; with it (here from the env) it broadcasts
	if out, err := exec.Command(bin, "broadcast", "-admin", admin, "no token").CombinedOutput(); err == nil || !strings.Contains(string(out), "401") {
		t.Fatalf("rtype-server broadcast without the token: %v: %s", err, out)
	}
	bc := exec.Command(bin, "broadcast", "-admin", admin, "Server restarts", "in 5 minutes")
	bc.Env = append(os.Environ(), "RTYPE_ADMIN_TOKEN=fd-test-token")
	out, err := bc.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "sent to ") {
		t.Fatalf("rtype-server broadcast: %v: %s", err, out)
	}
	mctx, mcancel := context.WithTimeout(ctx, 5*time.Second)
	m, err := lc.WaitMessage(mctx)
	mcancel()
	if err != nil || m != (lobby.Message{Broadcast: true, Text: "Server restarts in 5 minutes"}) {
		t.Fatalf("broadcast received: %+v, %v", m, err)
	}
	var rr runRes
	select {
	case rr = <-done:
	case <-ctx.Done():
		t.Fatal("the game never ended")
	}
	for _, r := range rr.res {
		if r.Result != "victory" && r.Result != "defeat" {
			t.Errorf("bot %s: %q (%s), want the game played to its end", r.Bot, r.Result, r.Error)
		}
	}
	logs := srv.stderr.String()
	if n := strings.Count(logs, `"msg":"lobby accept failed; retrying with backoff"`); n < 1 || n > 10 {
		t.Errorf("%d accept failure lines, want one per burst", n)
	}
	if !strings.Contains(logs, "too many open files") {
		t.Errorf("no EMFILE in the log: the flood did not reach the file limit")
	}
}

// TestStrayArgumentRefused: an argument that is not a flag (a typo of the broadcast subcommand,
// a flag without its dash) stops the server before it binds anything, instead of dropping every
// flag after it and listening on the defaults.
func TestStrayArgumentRefused(t *testing.T) {
	t.Parallel()
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	out, err := exec.Command(binary(t), "broadcst", "-addr", addr).CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), `unexpected argument "broadcst"`) {
		t.Fatalf("%v, want exit 2 naming the argument:\n%s", err, out)
	}
}

// serverProc is an rtype-server process a test started (startServerProc).
type serverProc struct {
	cmd    *exec.Cmd
	done   chan struct{} // closed once the process has exited
	err    error         // its exit (cmd.Wait), once done is closed
	stderr syncBuf
}

// startServerProc starts cmd (the server binary, or a shell that execs it) with its game socket
// on loopback and waits until its lobby at addr accepts a connection. When the test ends, a
// server still running gets SIGINT (then SIGKILL after 10 s), and its stderr is logged if the
// test failed.
func startServerProc(t *testing.T, ctx context.Context, cmd *exec.Cmd, addr string) *serverProc {
	t.Helper()
	p := &serverProc{cmd: cmd, done: make(chan struct{})}
	cmd.Env = append(os.Environ(), "RTYPE_UDP_ADDR=127.0.0.1")
	cmd.Stderr = &p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Signal(syscall.SIGINT)
			select {
			case <-p.done:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				<-p.done
			}
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", p.stderr.String())
		}
	})
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if c, err := lobby.Dial(ctx, addr); err == nil {
			c.Close()
			return p
		}
		select {
		case <-p.done:
			t.Fatalf("server exited early: %v", p.err)
		default:
		}
	}
	t.Fatal("server lobby never accepted a connection")
	return nil
}
