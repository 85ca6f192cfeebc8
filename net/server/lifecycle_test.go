package server

// End-to-end lifecycle tests of the whole server (lobby + game instances) on loopback: what
// players and operators rely on when several games run, when a player vanishes, and when lobbies
// empty. Every test plays the "short" stage in real time (~15 s); independent tests run in
// parallel, each against its own server.
//
//	go test -run 'TestTwoLobbies|TestPlayerLeavesMidGame|TestEmptiedLobby' -race ./net/server

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/transport"
)

// ---- helpers shared by lifecycle_test.go, badinput_test.go and bench_test.go ----

// startServerTB is startServer for tests and benchmarks.
func startServerTB(tb testing.TB, cfg Config) (string, *instance.Manager, func()) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	var addr string
	var mgr *instance.Manager
	if cfg.Addr == "" { // loopback unless a test chooses another address
		cfg.Addr, cfg.UDPHost = "127.0.0.1:0", "127.0.0.1"
	}
	if cfg.Fleet.DrainTimeout == 0 {
		cfg.Fleet.DrainTimeout = -1 // the tests' stop ends the games at once; TestDrain* drain
	}
	cfg.Ready = func(a net.Addr, m *instance.Manager) { addr, mgr = a.String(), m; close(ready) }
	errc := make(chan error, 1)
	go func() { errc <- Run(ctx, cfg) }()
	select {
	case <-ready:
	case err := <-errc:
		cancel()
		tb.Fatalf("server: %v", err)
	}
	var once sync.Once
	limit := 10 * time.Second // a stuck shutdown, not a speed; a drain may last its whole timeout
	if cfg.Fleet.DrainTimeout > 0 {
		limit += cfg.Fleet.DrainTimeout
	}
	return addr, mgr, func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-errc:
				if err != nil {
					tb.Errorf("server shutdown: %v", err)
				}
			case <-time.After(limit):
				tb.Errorf("server did not stop within %v", limit)
			}
		})
	}
}

// logRec is one captured log record.
type logRec struct {
	at    time.Time
	level slog.Level
	msg   string
	attrs map[string]string
}

func (r logRec) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %q", r.at.Format("15:04:05.000"), r.level, r.msg)
	for k, v := range r.attrs {
		fmt.Fprintf(&b, " %s=%s", k, v)
	}
	return b.String()
}

// logCapture is a slog.Handler that keeps every record (Info and above) for assertions; the
// records are printed when the test fails.
type logCapture struct {
	mu    *sync.Mutex
	recs  *[]logRec
	attrs []slog.Attr
}

func newLogCapture(tb testing.TB) (*slog.Logger, *logCapture) {
	c := &logCapture{mu: &sync.Mutex{}, recs: &[]logRec{}}
	tb.Cleanup(func() {
		if tb.Failed() {
			for _, r := range c.all() {
				tb.Log(r.String())
			}
		}
	})
	return slog.New(c), c
}

func (c *logCapture) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }
func (c *logCapture) WithGroup(string) slog.Handler                { return c }
func (c *logCapture) WithAttrs(as []slog.Attr) slog.Handler {
	n := *c
	n.attrs = append(append([]slog.Attr(nil), c.attrs...), as...)
	return &n
}
func (c *logCapture) Handle(_ context.Context, r slog.Record) error {
	rec := logRec{at: r.Time, level: r.Level, msg: r.Message, attrs: map[string]string{}}
	for _, a := range c.attrs {
		rec.attrs[a.Key] = a.Value.String()
	}
	r.Attrs(func(a slog.Attr) bool { rec.attrs[a.Key] = a.Value.String(); return true })
	c.mu.Lock()
	*c.recs = append(*c.recs, rec)
	c.mu.Unlock()
	return nil
}

func (c *logCapture) all() []logRec {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]logRec(nil), *c.recs...)
}

// find returns the records with message msg whose attributes include every key=value of kv.
func (c *logCapture) find(msg string, kv ...string) []logRec {
	var out []logRec
next:
	for _, r := range c.all() {
		if r.msg != msg {
			continue
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if r.attrs[kv[i]] != kv[i+1] {
				continue next
			}
		}
		out = append(out, r)
	}
	return out
}

// waitFor polls cond every 20 ms until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool { return waitEvery(d, 20*time.Millisecond, cond) }

// waitEvery polls cond every period until it holds or d passes.
func waitEvery(d, period time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(period)
	}
}

// lobbyPoll is how often a test polls GET_LOBBIES for long: within the lobby's command rate
// (lobby.DefaultCommandRate, 10 a second).
const lobbyPoll = 250 * time.Millisecond

// muteSocket is a UDP socket that can vanish silently: once muted, every write is swallowed
// (reported as sent) and nothing reaches the server any more, exactly like a client whose
// process was killed or whose network went away — no BYE.
type muteSocket struct {
	transport.Socket
	mute atomic.Bool
	last atomic.Int64 // when the last datagram that went out was written (Unix ns)
}

func (s *muteSocket) WriteTo(p []byte, to netip.AddrPort) (int, error) {
	if s.mute.Load() {
		return len(p), nil
	}
	s.last.Store(time.Now().UnixNano())
	return s.Socket.WriteTo(p, to)
}

// manualPlayer is a player driven by the test: its own lobby connection and game session.
type manualPlayer struct {
	lc   *lobby.Client
	uid  uuid.UUID
	st   lobby.StartInfo
	sock *muteSocket
	s    *session.Session
	stop chan struct{}
	wg   sync.WaitGroup

	mu     sync.Mutex
	events []session.Event
}

func dialLobby(t *testing.T, ctx context.Context, addr, name string) (*lobby.Client, uuid.UUID) {
	t.Helper()
	lc, err := lobby.Dial(ctx, addr)
	if err != nil {
		t.Fatalf("lobby dial: %v", err)
	}
	uid, err := lc.Authenticate(name)
	if err != nil {
		lc.Close()
		t.Fatalf("authenticate %s: %v", name, err)
	}
	return lc, uid
}

// play dials the game instance of the START push (over a muteSocket) and drives the ship with
// the autopilot at 60 Hz until the session ends or close.
func (p *manualPlayer) play(t *testing.T, ctx context.Context) {
	t.Helper()
	us, err := transport.ListenUDP("127.0.0.1:0")
	if err != nil {
		t.Fatalf("udp: %v", err)
	}
	p.sock = &muteSocket{Socket: us}
	srv := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(p.st.Port))
	p.s, err = session.DialSocket(ctx, session.Config{Addr: srv.String(), UUID: p.uid, Token: p.st.Token}, p.sock, srv)
	if err != nil {
		t.Fatalf("session dial: %v", err)
	}
	p.stop = make(chan struct{})
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		for ev := range p.s.Events() {
			p.mu.Lock()
			p.events = append(p.events, ev)
			p.mu.Unlock()
		}
	}()
	go func() {
		defer p.wg.Done()
		tk := time.NewTicker(time.Second / game.TickRate)
		defer tk.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-p.s.Done():
				return
			case <-tk.C:
			}
			var b game.Buttons
			p.s.View(func(v *session.View) {
				if v.Self != ecs.Nil {
					b = game.Autopilot(v.World, v.C, nil, v.Self, v.Tick).Buttons
				}
			})
			p.s.SetInput(b) // outside View: SetInput may take the session lock
		}
	}()
}

func (p *manualPlayer) eventKinds() []session.Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]session.Event(nil), p.events...)
}

// close ends the driver, the session (BYE unless it already ended) and the lobby connection.
func (p *manualPlayer) close() {
	if p.stop != nil {
		close(p.stop)
		p.s.Close()
		p.s.Wait()
		p.wg.Wait()
		p.stop = nil
	}
	if p.lc != nil {
		p.lc.Close()
	}
}

// playTicks waits (5 s at most) until p's session has seen the game reach tick n: a condition,
// not a fixed sleep.
func (p *manualPlayer) playTicks(t *testing.T, n ecs.Tick) {
	t.Helper()
	if !waitFor(5*time.Second, func() bool { _, tick := players(p.s); return tick >= n }) {
		t.Fatalf("the game did not reach tick %d", n)
	}
}

// players counts the entities with a Player component in a session's mirror.
func players(s *session.Session) (n int, tick ecs.Tick) {
	s.View(func(v *session.View) {
		tick = v.Tick
		v.World.Each(func(e ecs.Entity) {
			if v.C.Player.Has(e) {
				n++
			}
		})
	})
	return n, tick
}

// ---- 1. two lobbies at once ----

// TestTwoLobbiesAtOnce: two lobbies of 2 bots play at the same time on one server; both games run
// concurrently in separate instances (own players, one shared UDP port: datagrams are routed by
// token), both end with GAME_END, each lobby
// gets its own END, and the Manager has no instance left afterwards.
func TestTwoLobbiesAtOnce(t *testing.T) {
	t.Parallel()
	log, _ := newLogCapture(t)
	var mu sync.Mutex
	var ended []*instance.Instance
	addr, mgr, stop := startServerTB(t, Config{Stage: "short", Logger: log, OnGameEnd: func(in *instance.Instance) {
		mu.Lock()
		ended = append(ended, in)
		mu.Unlock()
	}})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	var maxRunning atomic.Int32
	var inGame atomic.Int32
	ports := make(chan int, 8)
	var wg sync.WaitGroup
	var res [2][]bot.Result
	var errs [2]error
	for l := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[l], errs[l] = bot.Run(ctx, bot.Config{Server: addr, Players: 2, Name: "l" + strconv.Itoa(l) + "bot", Logger: log,
				OnSession: func(i int, s *session.Session) {
					inGame.Add(1)
					if n := int32(mgr.Running()); n > maxRunning.Load() {
						maxRunning.Store(n)
					}
				}}, nil)
		}()
	}
	// sample the number of live instances while the bots play
	sampleDone := make(chan struct{})
	go func() {
		defer close(sampleDone)
		for ctx.Err() == nil {
			n := int32(mgr.Running())
			if n > maxRunning.Load() {
				maxRunning.Store(n)
			}
			if inGame.Load() == 4 {
				for _, in := range mgr.Instances() {
					select {
					case ports <- in.Port():
					default:
					}
				}
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	wg.Wait()
	<-sampleDone

	for l := range 2 {
		if errs[l] != nil {
			t.Errorf("lobby %d: bots: %v", l, errs[l])
		}
		for _, r := range res[l] {
			if !r.Ended() || r.Ticks == 0 || r.DatagramsIn == 0 {
				t.Errorf("lobby %d: bot %s did not play to GAME_END: %+v", l, r.Bot, r)
			}
		}
	}
	if len(res[0]) == 2 && len(res[1]) == 2 {
		if res[0][0].Lobby == "" || res[0][0].Lobby != res[0][1].Lobby || res[1][0].Lobby != res[1][1].Lobby {
			t.Errorf("bots of a run are not in one lobby: %q %q / %q %q", res[0][0].Lobby, res[0][1].Lobby, res[1][0].Lobby, res[1][1].Lobby)
		}
		if res[0][0].Lobby == res[1][0].Lobby {
			t.Errorf("both runs played in lobby %q", res[0][0].Lobby)
		}
	}
	if got := maxRunning.Load(); got != 2 {
		t.Errorf("at most %d instances ran at once, want 2 (the games did not overlap)", got)
	}
	close(ports)
	seen := map[int]bool{}
	for p := range ports {
		seen[p] = true
	}
	if len(seen) != 1 || !seen[mgr.Port()] {
		t.Errorf("instance ports while both played: %v, want both on the shared port %d", seen, mgr.Port())
	}
	// every instance is gone once GAME_END was delivered (or EndLinger passed)
	if !waitFor(instance.EndLinger+5*time.Second, func() bool { return mgr.Running() == 0 }) {
		t.Errorf("Manager.Running() = %d after both games ended, want 0", mgr.Running())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ended) != 2 || (len(ended) == 2 && ended[0] == ended[1]) {
		t.Fatalf("OnGameEnd called for %d instances, want 2 distinct", len(ended))
	}
	for _, in := range ended {
		st := in.Stats()
		if len(st) != 2 {
			t.Errorf("instance on port %d has %d peers, want 2 (players of the other lobby leaked in?)", in.Port(), len(st))
		}
		for _, p := range st {
			if p.DatagramsIn == 0 || p.DatagramsOut == 0 {
				t.Errorf("instance on port %d slot %d: no traffic %+v", in.Port(), p.Slot, p)
			}
		}
		if r := in.Result(); r > 1 {
			t.Errorf("instance on port %d ended %d, want defeat or victory (nothing aborted it)", in.Port(), r)
		}
	}
}

// ---- 2. a player vanishes mid-game ----

// TestPlayerLeavesMidGame: a game of 2 — one bot (bot.Run) and one manual player (lobby.Client +
// session over a socket the test controls). Once the game runs, the manual player disappears:
//
//	silent: its socket stops sending (no BYE, lobby connection left open), like a killed
//	        client: the server must drop it after SilenceTimeout (not before), tell it with
//	        BYE(timeout), and the bot must see its ship disappear and play on to GAME_END.
//	bye:    session.Close (BYE, lobby connection left open): dropped at once.
//
// In both cases the game is not aborted for the remaining bot, and the manual player's lobby
// connection still receives the END push (it is still a lobby member).
func TestPlayerLeavesMidGame(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		silence time.Duration
		silent  bool
	}{
		// SilenceTimeouts long enough that the remaining bot, a real client, is never silent
		// that long on a busy machine (it sends 60 datagrams a second)
		{"silent", 10 * time.Second, true},
		{"bye", 20 * time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log, logs := newLogCapture(t)
			addr, mgr, stop := startServerTB(t, Config{Stage: "short", Logger: log, SilenceTimeout: tc.silence})
			defer stop()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()

			mp := &manualPlayer{}
			mp.lc, mp.uid = dialLobby(t, ctx, addr, "manual")
			defer mp.close()
			code, err := mp.lc.Join("")
			if err != nil {
				t.Fatalf("join: %v", err)
			}
			botSess := make(chan *session.Session, 1)
			type runRes struct {
				res []bot.Result
				err error
			}
			botDone := make(chan runRes, 1)
			go func() {
				r, err := bot.Run(ctx, bot.Config{Server: addr, Lobby: code, Players: 1, Name: "bot", Logger: log,
					OnSession: func(_ int, s *session.Session) { botSess <- s }}, nil)
				botDone <- runRes{r, err}
			}()
			if !waitFor(10*time.Second, func() bool { _, names := mp.lc.Members(); return len(names) == 2 }) {
				t.Fatalf("the bot never joined lobby %s", code)
			}
			if err := mp.lc.Start(); err != nil {
				t.Fatalf("start: %v", err)
			}
			if mp.st, err = mp.lc.WaitStart(ctx); err != nil {
				t.Fatalf("wait start: %v", err)
			}
			mp.play(t, ctx)
			var bs *session.Session
			select {
			case bs = <-botSess:
			case <-ctx.Done():
				t.Fatal("the bot never got into the game")
			}
			// both ships are in the bot's mirror and ~2 s of game have passed
			if !waitFor(20*time.Second, func() bool { n, tick := players(bs); return n == 2 && tick >= 120 }) {
				n, tick := players(bs)
				t.Fatalf("bot mirror: %d players at tick %d, want 2 players by tick 120", n, tick)
			}
			if mgr.Running() != 1 {
				t.Fatalf("Running() = %d, want 1", mgr.Running())
			}

			gone := time.Now()
			if tc.silent {
				mp.sock.mute.Store(true) // the process is gone: not one more datagram, no BYE
			} else {
				mp.s.Close() // clean leave: BYE
			}
			if !waitFor(tc.silence+10*time.Second, func() bool { n, _ := players(bs); return n == 1 }) {
				t.Fatalf("the vanished player's ship is still in the bot's mirror %v later", time.Since(gone))
			}
			seen := time.Since(gone)
			why := "said BYE"
			if tc.silent {
				why = "silent"
				// dropped after SilenceTimeout of silence, never before (how promptly after it
				// is the game core's, in virtual time: net/testsupport/simgame)
				if quiet := time.Since(time.Unix(0, mp.sock.last.Load())); quiet < tc.silence {
					t.Errorf("silent player removed from the bot's view %v after its last datagram, before SilenceTimeout %v", quiet, tc.silence)
				}
			} else if seen >= tc.silence {
				// the BYE removed it, not the silence (the log below says which)
				t.Errorf("player who said BYE removed from the bot's view only %v later, SilenceTimeout %v", seen, tc.silence)
			}
			t.Logf("%s: the bot saw the ship removed %v after the player vanished (SilenceTimeout %v)", tc.name, seen.Round(time.Millisecond), tc.silence)
			msg := "player dropped"
			if tc.silent {
				msg = "player lost; slot kept for a rejoin" // docs/PROTOCOL.md §5.12
			}
			if d := logs.find(msg, "name", "manual", "reason", why); len(d) != 1 {
				t.Errorf("server log: %d '%s name=manual reason=%s' records, want 1", len(d), msg, why)
			}
			if d := logs.find("player dropped", "name", "bot1"); len(d) != 0 {
				t.Errorf("the remaining bot was dropped too: %v", d)
			}

			var rr runRes
			select {
			case rr = <-botDone:
			case <-time.After(2 * time.Minute):
				t.Fatal("the remaining bot did not finish")
			}
			if rr.err != nil || len(rr.res) != 1 {
				t.Fatalf("bot: %v %+v", rr.err, rr.res)
			}
			if r := rr.res[0]; !r.Ended() || r.Result == "aborted" {
				t.Errorf("remaining bot ended %q (want victory or defeat: the game goes on without the vanished player): %+v", r.Result, r)
			}
			if tc.silent {
				// the server tells the silent player why (it may still be listening)
				var reason string
				waitFor(2*time.Second, func() bool {
					for _, ev := range mp.eventKinds() {
						if ev.Kind == session.EventDisconnected {
							reason = ev.Reason
							return true
						}
					}
					return false
				})
				if reason != "timed out by the server" {
					t.Errorf("silent player's session: disconnect reason %q, want BYE(timeout) \"timed out by the server\"", reason)
				}
			}
			// the manual player is still a lobby member: it gets END like everyone
			ectx, ecancel := context.WithTimeout(ctx, 10*time.Second)
			defer ecancel()
			if res, err := mp.lc.WaitEnd(ectx); err != nil {
				t.Errorf("manual player's lobby connection: no END push: %v", err)
			} else if res == 2 {
				t.Errorf("END push says aborted, bot says %q", rr.res[0].Result)
			}
			if !waitFor(instance.EndLinger+5*time.Second, func() bool { return mgr.Running() == 0 }) {
				t.Errorf("Running() = %d after the game ended", mgr.Running())
			}
		})
	}
}

// ---- 3. emptied lobbies disappear ----

// lobbyOf returns the entry of code in GET_LOBBIES as seen by c.
func lobbyOf(t *testing.T, c *lobby.Client, code string) (lobby.LobbyInfo, bool) {
	t.Helper()
	ls, err := c.Lobbies()
	if err != nil {
		t.Fatalf("GET_LOBBIES: %v", err)
	}
	for _, l := range ls {
		if l.Code == code {
			return l, true
		}
	}
	return lobby.LobbyInfo{}, false
}

// TestEmptiedLobbyDisappears: an observer's GET_LOBBIES follows members who disconnect (TCP
// closed, no LEAVE): the player count drops and the lobby disappears once the last member is
// gone — for a waiting lobby and for a lobby whose game is running. In the running case the
// disconnected players are dropped from the game (BYE kicked) and the emptied game ends
// (aborted), freeing its instance — once the rejoin window (here 10 s) is over: until then the
// running lobby stays listed so that its lost players can rejoin (docs/PROTOCOL.md §5.12).
func TestEmptiedLobbyDisappears(t *testing.T) {
	t.Parallel()
	for _, running := range []bool{false, true} {
		t.Run(map[bool]string{false: "waiting", true: "running"}[running], func(t *testing.T) {
			t.Parallel()
			log, _ := newLogCapture(t)
			results := make(chan uint8, 2)
			// the rejoin window is long enough to be seen open on a busy machine (10 s), and
			// waited for, not slept through
			const window = 10 * time.Second
			addr, mgr, stop := startServerTB(t, Config{Stage: "short", Logger: log, RejoinWindow: window,
				OnGameEnd: func(in *instance.Instance) { results <- in.Result() }})
			defer stop()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()

			obs, _ := dialLobby(t, ctx, addr, "observer")
			defer obs.Close()
			a := &manualPlayer{}
			a.lc, a.uid = dialLobby(t, ctx, addr, "alice")
			defer a.close()
			b := &manualPlayer{}
			b.lc, b.uid = dialLobby(t, ctx, addr, "bob")
			defer b.close()
			code, err := a.lc.Join("")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.lc.Join(code); err != nil {
				t.Fatal(err)
			}
			if running {
				if err := a.lc.Start(); err != nil {
					t.Fatal(err)
				}
				for _, p := range []*manualPlayer{a, b} {
					if p.st, err = p.lc.WaitStart(ctx); err != nil {
						t.Fatal(err)
					}
					p.play(t, ctx)
				}
			}
			want := func(players int) func() bool {
				return func() bool {
					l, ok := lobbyOf(t, obs, code)
					if players == 0 {
						return !ok
					}
					return ok && l.Players == players && l.Running == running
				}
			}
			if !waitFor(5*time.Second, want(2)) {
				l, ok := lobbyOf(t, obs, code)
				t.Fatalf("GET_LOBBIES: %+v (present %v), want %s with 2 players running=%v", l, ok, code, running)
			}
			a.lc.Close() // alice's client crashes: TCP gone, no LEAVE
			a.lc = nil
			if !waitFor(5*time.Second, want(1)) {
				l, ok := lobbyOf(t, obs, code)
				t.Fatalf("after alice disconnected: %+v (present %v), want 1 player", l, ok)
			}
			b.lc.Close()
			b.lc = nil
			if running {
				if !waitEvery(window, lobbyPoll, func() bool { l, ok := lobbyOf(t, obs, code); return ok && l.Players == 0 && l.Running }) {
					l, ok := lobbyOf(t, obs, code)
					t.Errorf("running lobby after every member disconnected: %+v (present %v), want listed with 0 players for the rejoin window", l, ok)
				}
			}
			if !waitEvery(window+10*time.Second, lobbyPoll, want(0)) {
				l, _ := lobbyOf(t, obs, code)
				t.Fatalf("lobby %s still listed after every member disconnected: %+v", code, l)
			}
			if ls, err := obs.Lobbies(); err != nil || len(ls) != 0 {
				t.Errorf("GET_LOBBIES = %+v, %v; want empty", ls, err)
			}
			if !running {
				return
			}
			// the players were removed from the game, told so, and the empty game ended
			for _, p := range []*manualPlayer{a, b} {
				select {
				case <-p.s.Done():
				case <-time.After(5 * time.Second):
					t.Errorf("session of a disconnected lobby member still running")
				}
			}
			for name, p := range map[string]*manualPlayer{"alice": a, "bob": b} {
				var kinds []string
				for _, ev := range p.eventKinds() {
					if ev.Kind == session.EventDisconnected {
						kinds = append(kinds, ev.Reason)
					}
				}
				if len(kinds) != 1 || kinds[0] != "removed from the game" {
					t.Errorf("%s's session: disconnect events %q, want [\"removed from the game\"] (BYE kicked)", name, kinds)
				}
			}
			select {
			case r := <-results:
				if r != uint8(rules.ResultAborted) {
					t.Errorf("emptied game ended %d, want aborted (2)", r)
				}
			case <-time.After(instance.EndLinger + 5*time.Second):
				t.Errorf("emptied game did not end")
			}
			if !waitFor(5*time.Second, func() bool { return mgr.Running() == 0 }) {
				t.Errorf("Running() = %d after the emptied game ended", mgr.Running())
			}
		})
	}
}

// ---- 4 (in-process). shutdown ----

// TestShutdownEndsGamesWithGameEnd: cancelling server.Run's context (what SIGINT does in
// cmd/rtype-server) while 2 bots play must end the game with GAME_END (aborted) for every player
// — the documented contract of Run — and Run must return within 5 s. Every lobby connection is
// told why first (CLOSING shutdown, docs/PROTOCOL.md §2.5.13).
func TestShutdownEndsGamesWithGameEnd(t *testing.T) {
	t.Parallel()
	log, _ := newLogCapture(t)
	addr, mgr, stop := startServerTB(t, Config{Stage: "short", Logger: log})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sessions := make(chan *session.Session, 2)
	type runRes struct {
		res []bot.Result
		err error
	}
	done := make(chan runRes, 1)
	go func() {
		r, err := bot.Run(ctx, bot.Config{Server: addr, Players: 2, Logger: log,
			OnSession: func(_ int, s *session.Session) { sessions <- s }}, nil)
		done <- runRes{r, err}
	}()
	var s *session.Session
	for range 2 {
		select {
		case s = <-sessions:
		case <-ctx.Done():
			t.Fatal("bots never got into the game")
		}
	}
	if !waitFor(20*time.Second, func() bool { _, tick := players(s); return tick >= 60 }) {
		t.Fatal("the game did not run")
	}
	watcher, _ := dialLobby(t, ctx, addr, "watcher")
	defer watcher.Close()
	start := time.Now()
	stop() // cancels Run's context and waits for Run (reports an error after 10 s)
	select {
	case <-watcher.ClosingNotice():
		if cl, _ := watcher.Closing(); cl.Why != lobby.ClosingShutdown || cl.Left != 0 {
			t.Errorf("CLOSING %+v, want shutdown with 0 s left", cl)
		}
	case <-watcher.Done():
		if _, ok := watcher.Closing(); !ok {
			t.Error("the server closed the connection without a CLOSING push")
		}
	}
	// a bound for a stuck shutdown, not a speed: 10 times ShutdownLinger (the wait for GAME_END's
	// acknowledgements)
	if d := time.Since(start); d > 10*instance.ShutdownLinger {
		t.Errorf("Run took %v to return after cancel, want ≤ %v", d, 10*instance.ShutdownLinger)
	}
	if n := mgr.Running(); n != 0 {
		t.Errorf("Running() = %d after Run returned", n)
	}
	var rr runRes
	select {
	case rr = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("bots did not finish after the server stopped")
	}
	for _, r := range rr.res {
		if r.Result != "aborted" {
			t.Errorf("bot %s: %q (%s), want aborted: GAME_END from the shutdown", r.Bot, r.Result, r.Error)
		}
	}
}
