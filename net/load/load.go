// Package load is the load generator behind cmd/rtype-load: it plays many 4-player games against
// a real server with lightweight clients and reports the traffic, the RTT and (given the server's
// pid) the server's CPU per game-second. Each game goes through the lobby like players do (four
// TCP connections, one creates a lobby, three join, START), then its four clients speak the game
// protocol over UDP (HERE until WELCOME, INPUT every tick with scripted moves and fire,
// acknowledgements, a PING every second) without a mirror world: the server does the same work
// as for players, the generator far less. A game that ends (victory or defeat) is started again
// in the same lobby, so the load stays at N games for the whole run.
//
// The clients share a few UDP sockets (Sockets; the server routes by token and binds each token
// to its source address, so they are distinct players to it), read and written in batches, so
// that the generator costs far less than the server it loads; the games can be spread over
// several source addresses (127.0.0.2, 127.0.0.3, ...) so that per-address limits of the server
// do not cap the load.
//
// The package also holds the raw-UDP floor (floor.go): a server doing nothing but receiving and
// sending the same datagram counts, against which the game server's CPU is compared.
package load

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/metrics/hist"
	"github.com/rtype/rtype/net/transport"
)

// Config configures Run.
type Config struct {
	// Server is the lobby's TCP address host:port; the games' UDP port comes from START. In
	// floor mode it is the floor server's UDP address.
	Server string
	// Games is the number of 4-player games played at once.
	Games int
	// Duration is the measured window, after every game has started and Warmup has passed.
	Duration time.Duration
	// Warmup is the time between the last game's start and the measured window (default 3 s).
	Warmup time.Duration
	// Stage is the stage of the lobbies ("" = the server's default).
	Stage string
	// Source is the first source address of the clients (invalid: the system's choice); with
	// Addrs > 1, game i uses the (i mod Addrs)-th address counting up from Source.
	Source netip.Addr
	Addrs  int
	// Sockets is the number of UDP sockets the clients share (default: one per source address,
	// at least 4); game i's clients use socket i mod Sockets, bound to its source address.
	Sockets int
	// ServerAdmin, when not empty, is the server's admin address (rtype-server -admin): the tick
	// lateness over the measured window is read from its /metrics.
	ServerAdmin string
	// ServerPID, when not 0, is the server's process id: its CPU time over the measured window is
	// read from /proc (Linux).
	ServerPID int
	// Floor sends the same datagram counts to a raw-UDP floor server (FloorServer) instead:
	// no lobby, no protocol beyond the header.
	Floor bool
	// StartConcurrency bounds the games being set up through the lobby at once (default 16).
	StartConcurrency int
	Logger           *slog.Logger
}

// Report is the JSON line Run prints. Rates are over the measured window; up = clients to
// server.
type Report struct {
	Games    int     `json:"games"`
	Playing  int     `json:"playing"`  // games whose four clients were in game when the window opened
	Abnormal int     `json:"abnormal"` // games that did not run to the end: setup failed, BYE, silence, no WELCOME
	Restarts int     `json:"restarts"` // games that ended (victory or defeat) and were started again
	Window   float64 `json:"window_s"`
	Floor    bool    `json:"floor,omitempty"`

	UpDatagramsPerSec   float64 `json:"up_datagrams_per_s"`
	UpBytesPerSec       float64 `json:"up_bytes_per_s"`
	DownDatagramsPerSec float64 `json:"down_datagrams_per_s"`
	DownBytesPerSec     float64 `json:"down_bytes_per_s"`
	RTTP50              float64 `json:"rtt_p50_ms"`
	RTTP99              float64 `json:"rtt_p99_ms"`
	RTTMax              float64 `json:"rtt_max_ms"`
	SnapshotsPerSec     float64 `json:"snapshots_per_s"`     // per client, mean
	SnapshotsPerSecMin  float64 `json:"snapshots_per_s_min"` // the slowest client
	ServerCPU           float64 `json:"server_cpu_s,omitempty"`
	ServerCPUPerGameSec float64 `json:"server_cpu_ms_per_game_s,omitempty"` // server CPU ms per game per second
	ServerCorePerGame   float64 `json:"server_core_pct_per_game,omitempty"`
	// ServerCPUPerDatagram is the server's CPU per datagram it handled (sent up by the clients,
	// less those its kernel dropped, plus received down), µs: the figure compared with the
	// raw-UDP floor's (make capacity).
	ServerCPUPerDatagram float64 `json:"server_cpu_us_per_datagram,omitempty"`
	LoadCPU              float64 `json:"load_cpu_s,omitempty"`
	// The server's tick lateness over the window (-server-admin): p50 and p99 as histogram
	// bucket bounds (ms; -1: past the last), the share of game ticks at most 2 ms late, overruns.
	TickLateP50     float64 `json:"tick_late_p50_ms,omitempty"`
	TickLateP99     float64 `json:"tick_late_p99_ms,omitempty"`
	TickLateWithin2 float64 `json:"tick_late_le_2ms_pct,omitempty"`
	TickOverruns    float64 `json:"tick_overruns,omitempty"`
	// ServerKernelDrops: datagrams the kernel dropped at the server's game socket over the
	// window (its receive buffer was full: the server did not keep up).
	ServerKernelDrops float64  `json:"server_kernel_drops,omitempty"`
	Errors            []string `json:"errors,omitempty"` // the first few abnormal endings
}

// group is a UDP socket and the seats (clients) that share it.
type group struct {
	mu      sync.Mutex
	sock    *transport.UDPSocket
	bc      *transport.BatchConn
	bw      *transport.BatchWriter
	out     transport.Outbox
	seats   []*seat
	byToken map[uint32]*seat
	rtt     *hist.Histogram // the round trips of its seats (hist: lock-free)
}

// The round-trip histogram: 50 µs buckets up to 100 ms (longer ones in the last).
const (
	rttBucket  = 50 * time.Microsecond
	rttBuckets = 2000
)

// lgame is one game's four seats and the group they belong to.
type lgame struct {
	g     *group
	seats [rules.MaxPlayers]*seat
}

type runner struct {
	cfg       Config
	log       *slog.Logger
	epoch     time.Time
	groups    []*group
	games     []*lgame
	srcs      []netip.Addr
	measuring atomic.Bool
	ending    atomic.Bool // the run is over: sessions ending now are not news
	quit      chan struct{}

	mu       sync.Mutex
	abnormal int
	restarts int
	errs     []string
}

func (r *runner) now() time.Duration { return time.Since(r.epoch) }

func (r *runner) fail(gi int, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.abnormal++
	if len(r.errs) < 8 {
		r.errs = append(r.errs, "game "+strconv.Itoa(gi)+": "+why)
	}
	r.log.Warn("load game ended abnormally", "game", gi, "why", why)
}

// Run plays cfg.Games games until the measured window is over, prints one JSON Report line to out
// (when not nil) and returns it.
func Run(ctx context.Context, cfg Config, out io.Writer) (Report, error) {
	if cfg.Games < 1 {
		return Report{}, fmt.Errorf("load: -games %d", cfg.Games)
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 10 * time.Second
	}
	if cfg.Warmup <= 0 {
		cfg.Warmup = 3 * time.Second
	}
	if cfg.StartConcurrency <= 0 {
		cfg.StartConcurrency = 16
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	r := &runner{cfg: cfg, log: cfg.Logger, epoch: time.Now(), quit: make(chan struct{})}
	if cfg.Source.IsValid() {
		a := cfg.Source
		for range max(cfg.Addrs, 1) {
			r.srcs = append(r.srcs, a)
			a = a.Next()
		}
	}
	var readers sync.WaitGroup
	defer func() {
		close(r.quit)
		for _, g := range r.groups {
			_ = g.sock.Close()
		}
		readers.Wait()
	}()
	if cfg.Sockets <= 0 {
		cfg.Sockets = max(len(r.srcs), 4)
	}
	cfg.Sockets = min(cfg.Sockets, cfg.Games)
	for k := range cfg.Sockets {
		host := ""
		if len(r.srcs) > 0 {
			host = r.srcs[k%len(r.srcs)].String()
		}
		sock, err := transport.ListenUDP(net.JoinHostPort(host, "0"))
		if err != nil {
			return Report{}, fmt.Errorf("load: UDP socket %d: %w", k, err)
		}
		_ = sock.Conn().SetReadBuffer(8 << 20)
		g := &group{sock: sock, bc: transport.NewBatchConn(sock), byToken: map[uint32]*seat{}, rtt: hist.New(rttBucket, rttBuckets)}
		g.bc.Coalesce = time.Millisecond
		g.bw = g.bc.NewWriter()
		r.groups = append(r.groups, g)
		readers.Add(1)
		go func() {
			defer readers.Done()
			g.bc.ReadLoop(r.quit, func(b []byte, _ netip.AddrPort) { r.receive(g, b) })
		}()
	}
	for gi := range cfg.Games {
		lg := &lgame{g: r.groups[gi%len(r.groups)]}
		for i := range lg.seats {
			lg.seats[i] = &seat{slot: i, floor: cfg.Floor, rtt: lg.g.rtt}
			lg.g.seats = append(lg.g.seats, lg.seats[i])
		}
		r.games = append(r.games, lg)
	}
	readers.Add(1)
	go func() { defer readers.Done(); r.tickLoop() }()

	playCtx, stopPlay := context.WithCancel(ctx)
	defer stopPlay()
	var games sync.WaitGroup
	sem := make(chan struct{}, cfg.StartConcurrency)
	ready := make(chan int, cfg.Games)
	for gi := range cfg.Games {
		games.Add(1)
		go func() {
			defer games.Done()
			if cfg.Floor {
				r.playFloor(gi)
				ready <- gi
				return
			}
			r.playGame(playCtx, gi, sem, ready)
		}()
	}
	// Wait for every game to start (or fail), then warm up and measure.
	deadline := time.After(2*time.Minute + time.Duration(cfg.Games)*100*time.Millisecond)
	for started := 0; started < cfg.Games; {
		select {
		case <-ready:
			started++
		case <-deadline:
			started = cfg.Games
		case <-ctx.Done():
			return Report{}, ctx.Err()
		}
	}
	r.waitPlaying(ctx, 10*time.Second)
	select {
	case <-time.After(cfg.Warmup):
	case <-ctx.Done():
		return Report{}, ctx.Err()
	}
	rep := Report{Games: cfg.Games, Floor: cfg.Floor}
	before := r.totals()
	rep.Playing = before.playing
	srvBefore, _ := cpuSeconds(cfg.ServerPID)
	ownBefore, _ := cpuSeconds(os.Getpid())
	var lateBefore lateness
	var lateErr error = errNoAdmin
	if cfg.ServerAdmin != "" {
		lateBefore, lateErr = scrapeLateness(cfg.ServerAdmin)
	}
	start := time.Now()
	r.measuring.Store(true)
	select {
	case <-time.After(cfg.Duration):
	case <-ctx.Done():
	}
	r.measuring.Store(false)
	win := time.Since(start).Seconds()
	after := r.totals()
	srvAfter, srvErr := cpuSeconds(cfg.ServerPID)
	ownAfter, ownErr := cpuSeconds(os.Getpid())
	if lateErr == nil {
		var lateAfter lateness
		if lateAfter, lateErr = scrapeLateness(cfg.ServerAdmin); lateErr == nil {
			rep.TickLateP50, rep.TickLateP99, rep.TickLateWithin2, _, rep.TickOverruns = lateBefore.window(lateAfter)
			rep.ServerKernelDrops = lateAfter.kernel - lateBefore.kernel
		}
	}
	if lateErr != nil && lateErr != errNoAdmin {
		rep.Errors = append(rep.Errors, "server admin: "+lateErr.Error())
	}

	// End: every client still in game says BYE, then the lobby connections close.
	r.ending.Store(true)
	r.leaveAll()
	time.Sleep(100 * time.Millisecond) // the ticker flushes the BYEs
	stopPlay()
	games.Wait()

	rep.Window = win
	rep.UpDatagramsPerSec = float64(after.dgOut-before.dgOut) / win
	rep.UpBytesPerSec = float64(after.bytesOut-before.bytesOut) / win
	rep.DownDatagramsPerSec = float64(after.dgIn-before.dgIn) / win
	rep.DownBytesPerSec = float64(after.bytesIn-before.bytesIn) / win
	var rtt hist.Snapshot
	for _, g := range r.groups {
		rtt.Merge(g.rtt.Snapshot())
	}
	minSnaps, sumSnaps, n := -1.0, 0.0, 0
	for gi, lg := range r.games {
		for i := range lg.seats {
			s := float64(after.snaps[gi][i]-before.snaps[gi][i]) / win
			sumSnaps += s
			n++
			if minSnaps < 0 || s < minSnaps {
				minSnaps = s
			}
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	rep.RTTP50, rep.RTTP99, rep.RTTMax = ms(rtt.Quantile(0.5)), ms(rtt.Quantile(0.99)), ms(rtt.Max)
	rep.SnapshotsPerSec, rep.SnapshotsPerSecMin = sumSnaps/float64(max(n, 1)), max(minSnaps, 0)
	if cfg.ServerPID != 0 && srvErr == nil {
		rep.ServerCPU = srvAfter - srvBefore
		if rep.Playing > 0 {
			rep.ServerCPUPerGameSec = rep.ServerCPU * 1000 / win / float64(rep.Playing)
			rep.ServerCorePerGame = rep.ServerCPUPerGameSec / 10
		}
		if dg := (rep.UpDatagramsPerSec+rep.DownDatagramsPerSec)*win - rep.ServerKernelDrops; dg > 0 {
			rep.ServerCPUPerDatagram = rep.ServerCPU * 1e6 / dg
		}
	}
	if ownErr == nil {
		rep.LoadCPU = ownAfter - ownBefore
	}
	r.mu.Lock()
	rep.Abnormal, rep.Restarts = r.abnormal, r.restarts
	rep.Errors = append(rep.Errors, r.errs...)
	r.mu.Unlock()
	if out != nil {
		if err := json.NewEncoder(out).Encode(rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// receive hands a datagram to the seat its header's token belongs to.
func (r *runner) receive(g *group, b []byte) {
	if len(b) < 8 {
		return
	}
	token := binary.LittleEndian.Uint32(b[4:8])
	now := r.now()
	measuring := r.measuring.Load()
	g.mu.Lock()
	if s := g.byToken[token]; s != nil {
		s.receive(now, b, measuring)
	}
	g.mu.Unlock()
}

// tickLoop steps every seat at 60 Hz and sends what they produced, a batch per socket. Ticks
// the loop was too late for are run at once (up to 5), so the load keeps its rate on a busy
// machine.
func (r *runner) tickLoop() {
	const period = game.TickPeriod
	t := time.NewTicker(period)
	defer t.Stop()
	done := int64(r.now() / period)
	for {
		select {
		case <-r.quit:
			return
		case <-t.C:
		}
		due := int64(r.now() / period)
		n := min(due-done, 5)
		done = due
		for range n {
			for _, g := range r.groups {
				now := r.now()
				g.mu.Lock()
				for _, s := range g.seats {
					s.tick(now, &g.out)
				}
				if g.out.Len() > 0 {
					g.bw.Flush(&g.out)
				}
				g.mu.Unlock()
			}
		}
	}
}

func (r *runner) leaveAll() {
	now := r.now()
	for _, g := range r.groups {
		g.mu.Lock()
		for _, s := range g.seats {
			s.leave(now, &g.out)
		}
		g.mu.Unlock()
	}
}

type totals struct {
	dgIn, dgOut, bytesIn, bytesOut uint64
	snaps                          [][rules.MaxPlayers]uint64
	playing                        int
}

func (r *runner) totals() totals {
	var t totals
	t.snaps = make([][rules.MaxPlayers]uint64, len(r.games))
	for gi, lg := range r.games {
		g := lg.g
		g.mu.Lock()
		all := true
		for i, s := range lg.seats {
			t.dgIn += s.dgIn
			t.dgOut += s.dgOut
			t.bytesIn += s.bytesIn
			t.bytesOut += s.bytesOut
			t.snaps[gi][i] = s.snaps
			all = all && s.state == seatPlaying
		}
		g.mu.Unlock()
		if all {
			t.playing++
		}
	}
	return t
}

// waitPlaying waits until every game's clients are in game (at most timeout).
func (r *runner) waitPlaying(ctx context.Context, timeout time.Duration) {
	end := time.Now().Add(timeout)
	for time.Now().Before(end) && ctx.Err() == nil {
		if r.totals().playing == len(r.games) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// udpAddr is the server's host with port.
func (r *runner) udpAddr(port int, gameHost string) (netip.AddrPort, error) {
	host, _, err := net.SplitHostPort(r.cfg.Server)
	if err != nil {
		return netip.AddrPort{}, err
	}
	if gameHost != "" {
		host = gameHost // a game on another host (docs/PROTOCOL.md §2.5.1)
	}
	ua, err := net.ResolveUDPAddr("udp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return netip.AddrPort{}, err
	}
	ap := ua.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), nil
}

// playFloor starts a floor game: four seats with made-up tokens sending to the floor server.
func (r *runner) playFloor(gi int) {
	ua, err := net.ResolveUDPAddr("udp", r.cfg.Server)
	if err != nil {
		r.fail(gi, err.Error())
		return
	}
	ap := ua.AddrPort()
	to := netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	lg := r.games[gi]
	now := r.now()
	lg.g.mu.Lock()
	defer lg.g.mu.Unlock()
	for _, s := range lg.seats {
		lg.g.begin(s, now, rand.Uint32()|1, uuid.New(), to)
	}
}

// playGame runs game gi through the lobby: four connections, a lobby, START, the game, and again
// after each GAME_END until ctx is done. It sends gi to ready once its first game started (or
// failed to).
func (r *runner) playGame(ctx context.Context, gi int, sem chan struct{}, ready chan<- int) {
	lg := r.games[gi]
	g := lg.g
	clients := make([]*lobby.Client, rules.MaxPlayers)
	ids := make([]uuid.UUID, rules.MaxPlayers)
	defer func() {
		for _, c := range clients {
			if c != nil {
				_ = c.Close()
			}
		}
	}()
	signalled := false
	signal := func() {
		if !signalled {
			signalled = true
			ready <- gi
		}
	}
	defer signal()
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return
	}
	setup := func() error {
		defer func() { <-sem }()
		d := net.Dialer{Timeout: 10 * time.Second}
		if len(r.srcs) > 0 {
			d.LocalAddr = &net.TCPAddr{IP: r.srcs[gi%len(r.srcs)].AsSlice()}
		}
		code := ""
		for i := range clients {
			nc, err := d.DialContext(ctx, "tcp", r.cfg.Server)
			if err != nil {
				return err
			}
			clients[i] = lobby.NewClient(nc)
			if ids[i], err = clients[i].Authenticate("load" + strconv.Itoa(gi) + "_" + strconv.Itoa(i)); err != nil {
				return fmt.Errorf("authenticate: %w", err)
			}
			if i == 0 {
				code, err = clients[i].Create(r.cfg.Stage)
			} else {
				_, err = clients[i].Join(code)
			}
			if err != nil {
				return fmt.Errorf("lobby: %w", err)
			}
		}
		return nil
	}
	if err := setup(); err != nil {
		if ctx.Err() == nil {
			r.fail(gi, err.Error())
		}
		return
	}
	for ctx.Err() == nil {
		if err := clients[0].Start(); err != nil {
			r.fail(gi, "START: "+err.Error())
			return
		}
		for i, c := range clients {
			si, err := c.WaitStart(ctx)
			if err != nil {
				if ctx.Err() == nil {
					r.fail(gi, "START push: "+err.Error())
				}
				return
			}
			to, err := r.udpAddr(si.Port, si.Host)
			if err != nil {
				r.fail(gi, err.Error())
				return
			}
			g.mu.Lock()
			g.begin(lg.seats[i], r.now(), si.Token, ids[i], to)
			g.mu.Unlock()
		}
		signal()
		// Play until every seat's session is over (or the run ends).
		for ctx.Err() == nil {
			g.mu.Lock()
			over, why := true, ""
			for _, s := range lg.seats {
				over = over && !s.active()
				if s.state == seatAbnormal && why == "" {
					why = s.why
				}
			}
			g.mu.Unlock()
			if over {
				if r.ending.Load() {
					return
				}
				if why != "" {
					r.fail(gi, why)
					return
				}
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(250 * time.Millisecond):
			}
		}
		if ctx.Err() != nil {
			return
		}
		r.mu.Lock()
		r.restarts++
		r.mu.Unlock()
		for _, c := range clients { // the lobby is waiting again once END is pushed
			if _, err := c.WaitEnd(ctx); err != nil {
				if ctx.Err() == nil && !errors.Is(err, context.Canceled) {
					r.fail(gi, "END push: "+err.Error())
				}
				return
			}
		}
	}
}

// begin starts seat s's session with a new token (called with g.mu held).
func (g *group) begin(s *seat, now time.Duration, token uint32, id uuid.UUID, server netip.AddrPort) {
	if g.byToken[s.token] == s {
		delete(g.byToken, s.token)
	}
	s.begin(now, token, id, server)
	g.byToken[token] = s
}
