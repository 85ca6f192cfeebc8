package lobbyserver

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const waitTime = 5 * time.Second

// fakeGame is a Game whose end the test decides.
type fakeGame struct {
	port    int
	done    chan struct{}
	once    sync.Once
	mu      sync.Mutex
	result  uint8
	dropped []uuid.UUID
	dropCh  chan uuid.UUID
}

func (g *fakeGame) Port() int             { return g.port }
func (g *fakeGame) Done() <-chan struct{} { return g.done }
func (g *fakeGame) Result() uint8 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.result
}
func (g *fakeGame) Drop(id uuid.UUID, _ bool) {
	g.mu.Lock()
	g.dropped = append(g.dropped, id)
	g.mu.Unlock()
	g.dropCh <- id
}
func (g *fakeGame) end(result uint8) {
	g.once.Do(func() {
		g.mu.Lock()
		g.result = result
		g.mu.Unlock()
		close(g.done)
	})
}

type startCall struct {
	code    string
	stage   string
	members []handoff.Member
	game    *fakeGame
	spec    handoff.GameSpec
}

// fakeStarter records StartGame calls and returns fakeGames on port 4243
// (or fails with err when set).
type fakeStarter struct {
	mu    sync.Mutex
	err   error
	calls []startCall
	ch    chan startCall
}

func newFakeStarter() *fakeStarter { return &fakeStarter{ch: make(chan startCall, 16)} }

const fakePort = 4243

func (f *fakeStarter) StartGame(spec handoff.GameSpec) (handoff.Game, error) {
	code, stage, members := spec.Code, spec.Stage, spec.Members
	if spec.Run != nil { // an arcade run: "the game plays stage,stage,..."
		stage = strings.Join(spec.Run, ",")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	g := &fakeGame{port: fakePort, done: make(chan struct{}), dropCh: make(chan uuid.UUID, 16)}
	call := startCall{code: code, stage: stage, members: members, game: g, spec: spec}
	f.calls = append(f.calls, call)
	f.ch <- call
	return g, nil
}

// lastGame returns the game of the newest StartGame call.
func (f *fakeStarter) lastGame(t *testing.T) *fakeGame {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		t.Fatal("no game was started")
	}
	return f.calls[len(f.calls)-1].game
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// embeddedStages is the catalogue of a server without -stage: the embedded stages, stage1 the
// default.
var embeddedStages = sync.OnceValue(func() *stagefile.Catalogue {
	cat, err := stagefile.LoadCatalogue(stagefile.Default, game.ParseScript)
	if err != nil {
		panic(err)
	}
	return cat
})

// withStages gives cfg the embedded stages when it names none.
func withStages(cfg ServerConfig) ServerConfig {
	if cfg.Stages == nil {
		cfg.Stages = embeddedStages()
	}
	return cfg
}

// startServer serves a Server on 127.0.0.1:0 until the test ends, then
// checks that Serve returns nil promptly.
func startServer(t *testing.T, cfg ServerConfig) (*Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveOn(t, cfg, ln), ln.Addr().String()
}

// raw is a byte-level client connection.
type raw struct {
	t  *testing.T
	c  net.Conn
	lr *lobby.LineReader
}

func dialRaw(t *testing.T, addr string) *raw {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &raw{t: t, c: c, lr: lobby.NewLineReader(c)}
}

func (r *raw) send(s string) {
	r.t.Helper()
	if _, err := r.c.Write([]byte(s)); err != nil {
		r.t.Fatalf("write %q: %v", s, err)
	}
}

// line reads the next line (CRLF included).
func (r *raw) line() string {
	r.t.Helper()
	r.c.SetReadDeadline(time.Now().Add(waitTime))
	b, err := r.lr.ReadLine()
	if err != nil {
		r.t.Fatalf("reading a line: %v", err)
	}
	return string(b)
}

// roundTrip sends s and returns the response line.
func (r *raw) roundTrip(s string) string {
	r.t.Helper()
	r.send(s)
	return r.line()
}

// noLine asserts that nothing arrives within d.
func (r *raw) noLine(d time.Duration) {
	r.t.Helper()
	r.c.SetReadDeadline(time.Now().Add(d))
	b, err := r.lr.ReadLine()
	if err == nil {
		r.t.Fatalf("unexpected line %q", b)
	}
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		r.t.Fatalf("connection failed instead of staying quiet: %v", err)
	}
}

// expectClosed asserts the server closes the connection within d (lines
// still in flight are skipped).
func (r *raw) expectClosed(d time.Duration) {
	r.t.Helper()
	r.c.SetReadDeadline(time.Now().Add(d))
	for {
		_, err := r.lr.ReadLine()
		if err == nil {
			continue
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			r.t.Fatalf("connection still open after %v", d)
		}
		return
	}
}

// auth authenticates and returns the user uuid.
func (r *raw) auth(name string) string {
	r.t.Helper()
	l := r.roundTrip("AUTHENTICATE ;" + name + "\r\n")
	resp, err := lobby.ParseResponse([]byte(l))
	if err != nil || resp.Code != 200 {
		r.t.Fatalf("AUTHENTICATE: %q (%v)", l, err)
	}
	return resp.Body
}

func dialClient(t *testing.T, addr, name string) (*lobby.Client, uuid.UUID) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTime)
	defer cancel()
	c, err := lobby.Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	id, err := c.Authenticate(name)
	if err != nil {
		t.Fatalf("Authenticate(%q): %v", name, err)
	}
	return c, id
}

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitTime)
	t.Cleanup(cancel)
	return ctx
}

// eventually polls cond until it holds or waitTime passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTime)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitMembers waits until c's latest MEMBERS push lists want.
func waitMembers(t *testing.T, c *lobby.Client, code string, want ...string) {
	t.Helper()
	eventually(t, "MEMBERS "+code+" "+strings.Join(want, ","), func() bool {
		gc, names := c.Members()
		return gc == code && strings.Join(names, ",") == strings.Join(want, ",")
	})
}

func respErr(t *testing.T, err error, code int) *lobby.ResponseError {
	t.Helper()
	var re *lobby.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("got error %v, want a *ResponseError with code %d", err, code)
	}
	if re.Code != code {
		t.Fatalf("got %d %q, want code %d", re.Code, re.Reason, code)
	}
	if re.Reason == "" {
		t.Fatalf("%d response without a reason", code)
	}
	return re
}

// netPipe returns both ends of a loopback TCP connection.
func netPipe(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	b, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	a, err := ln.Accept()
	if err != nil {
		b.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// fakeUser is the user UUID that fakeServer's answer to AUTHENTICATE gives.
const fakeUser = "0b5c1f9e-6f0a-4c5e-9f43-2d3b8f1f2a77"

// fakeServer plays a scripted lobby server for client tests: it accepts one connection, answers
// its AUTHENTICATE with 200 and hands the connection to script, then closes it. The returned
// wait blocks until script has returned (the listener closes at the end of the test).
func fakeServer(t *testing.T, script func(nc net.Conn, lr *lobby.LineReader)) (addr string, wait func()) {
	t.Helper()
	ln := mustListen(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		lr := lobby.NewLineReader(nc)
		lr.ReadLine()
		nc.Write([]byte("200 " + vSrv + " " + fakeUser + "\r\n"))
		script(nc, lr)
	}()
	return ln.Addr().String(), func() { ln.Close(); <-done }
}

func mustListen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

func contextWithCancel() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

func discardLogger() *slog.Logger {
	return slog.New(slog.DiscardHandler)
}

// defaultHash is the hash of the embedded stage1, the default stage of a test server.
func defaultHash(t *testing.T) string {
	t.Helper()
	f, err := stagefile.Embedded("stage1", game.ParseScript)
	if err != nil {
		t.Fatal(err)
	}
	return f.Hash
}
