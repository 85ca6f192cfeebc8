package load

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby"
)

// The lobby's own capacity (rtype-load -idle): how many connected players and how many STARTs
// one lobby process fronts. RunIdle holds Conns lobby connections — authenticated players
// waiting, each sending the keep-alive the reference client sends (GET_LOBBIES every
// KeepAlive, docs/PROTOCOL.md §2.3), spread over many source addresses so that the lobby's
// per-address limits (raised by flag) do not cap them — and measures the lobby's CPU and memory
// over an idle window; then, with Lobbies > 0, a second window in which that many lobbies of
// Players of those connections START game after game (against -role lobby and its hosts,
// real or fake: FakeHosts), for the lobby's CPU per START.

// IdleConfig configures RunIdle.
type IdleConfig struct {
	// Server is the lobby's TCP address host:port.
	Server string
	// Conns is the number of lobby connections held (Lobbies×Players of them play).
	Conns int
	// Source is the first source address (invalid: the system's choice); the connections are
	// spread round-robin over Addrs addresses counting up from it.
	Source netip.Addr
	Addrs  int
	// KeepAlive is each idle connection's GET_LOBBIES interval (default lobby.KeepAlive, the
	// reference client's 60 s); the keep-alives are spread evenly over it.
	KeepAlive time.Duration
	// Window is the length of each measured window (default 60 s).
	Window time.Duration
	// Settle is the wait between the set-up and the idle window (default 5 s; negative: none):
	// the set-up's garbage is collected outside the window.
	Settle time.Duration
	// Lobbies of Players connections each (default 1) START games in turn in the second
	// window: START, every player's START push, every player's END, START again.
	Lobbies, Players int
	// DialConcurrency bounds the connections being set up at once (default 64).
	DialConcurrency int
	// ServerPID is the lobby's process id: its CPU time (/proc/PID/stat) and RSS
	// (/proc/PID/status) are read (Linux).
	ServerPID int
	Logger    *slog.Logger
}

// IdleReport is the JSON line RunIdle prints.
type IdleReport struct {
	Conns    int     `json:"conns"`
	Held     int     `json:"held"`    // connections still open at the end
	Dropped  int     `json:"dropped"` // closed by the server, or failed, after they were set up
	Lobbies  int     `json:"lobbies,omitempty"`
	Players  int     `json:"players,omitempty"`
	SetupSec float64 `json:"setup_s"` // connecting and authenticating every connection

	// The lobby's resident memory before the first connection, with every connection held
	// (after the idle window), and the difference per connection.
	RSSBaseMB    float64 `json:"rss_base_mb,omitempty"`
	RSSHeldMB    float64 `json:"rss_held_mb,omitempty"`
	RSSPerConnKB float64 `json:"rss_per_conn_kb,omitempty"`

	IdleWindow       float64 `json:"idle_window_s"`
	KeepAlivesPerSec float64 `json:"keepalives_per_s"` // lines answered per second in the idle window
	IdleCPU          float64 `json:"idle_cpu_s,omitempty"`
	IdleCorePct      float64 `json:"idle_core_pct,omitempty"`          // the lobby's share of one core while idle
	IdleCPUPerConnUS float64 `json:"idle_cpu_us_per_conn_s,omitempty"` // CPU µs per connection per second

	StartWindow   float64 `json:"start_window_s,omitempty"`
	Starts        int     `json:"starts,omitempty"` // STARTs answered 200 in the start window
	StartsPerSec  float64 `json:"starts_per_s,omitempty"`
	StartFailures int     `json:"start_failures,omitempty"`
	StartCPU      float64 `json:"start_cpu_s,omitempty"`
	StartCorePct  float64 `json:"start_core_pct,omitempty"`
	// CPUPerStartMS is the lobby's CPU per game cycle above the idle window's rate: START, the
	// hand-over, the START pushes, the host's end and the END pushes.
	CPUPerStartMS float64 `json:"cpu_ms_per_start,omitempty"`
	StartP50      float64 `json:"start_p50_ms,omitempty"` // START sent to the owner's START push
	StartP99      float64 `json:"start_p99_ms,omitempty"`

	LoadCPU float64  `json:"load_cpu_s,omitempty"` // the generator's own CPU over both windows
	Errors  []string `json:"errors,omitempty"`
}

// idleConn is one held connection: one reader goroutine; keep-alives from the scheduler.
type idleConn struct {
	nc    net.Conn
	ka    []byte // "GET_LOBBIES <uuid>;\r\n"
	alive atomic.Bool
}

type idleRun struct {
	cfg  IdleConfig
	log  *slog.Logger
	srcs []netip.Addr

	answered atomic.Uint64 // responses read on idle connections
	dropped  atomic.Int64
	mu       sync.Mutex
	errs     []string
}

func (r *idleRun) fail(why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errs) < 8 {
		r.errs = append(r.errs, why)
	}
}

// RunIdle holds cfg.Conns lobby connections, measures the idle window and then the start
// window (Lobbies > 0), prints one JSON IdleReport line to out (when not nil) and returns it.
func RunIdle(ctx context.Context, cfg IdleConfig, out io.Writer) (IdleReport, error) {
	if cfg.Players <= 0 {
		cfg.Players = 1
	}
	if cfg.Players > rules.MaxPlayers {
		return IdleReport{}, fmt.Errorf("load: -players %d (1..%d)", cfg.Players, rules.MaxPlayers)
	}
	if cfg.Conns < cfg.Lobbies*cfg.Players || cfg.Conns < 0 {
		return IdleReport{}, fmt.Errorf("load: -idle %d connections cannot hold %d lobbies of %d players", cfg.Conns, cfg.Lobbies, cfg.Players)
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = lobby.KeepAlive
	}
	if cfg.Window <= 0 {
		cfg.Window = time.Minute
	}
	if cfg.DialConcurrency <= 0 {
		cfg.DialConcurrency = 64
	}
	if cfg.Settle == 0 {
		cfg.Settle = 5 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	r := &idleRun{cfg: cfg, log: cfg.Logger}
	if cfg.Source.IsValid() {
		a := cfg.Source
		for range max(cfg.Addrs, 1) {
			r.srcs = append(r.srcs, a)
			a = a.Next()
		}
	}
	rep := IdleReport{Conns: cfg.Conns, Lobbies: cfg.Lobbies, Players: cfg.Players}
	if cfg.ServerPID != 0 {
		if b, err := rssBytes(cfg.ServerPID); err == nil {
			rep.RSSBaseMB = float64(b) / 1e6
		}
	}

	// Set up: the playing connections (lobby.Client, full protocol), then the idle ones.
	t0 := time.Now()
	nIdle := cfg.Conns - cfg.Lobbies*cfg.Players
	players := make([][]*lobby.Client, cfg.Lobbies)
	conns := make([]*idleConn, nIdle)
	var readers sync.WaitGroup
	defer func() {
		for _, ls := range players {
			for _, c := range ls {
				if c != nil {
					c.Close()
				}
			}
		}
		for _, c := range conns {
			if c != nil {
				c.nc.Close()
			}
		}
		readers.Wait()
	}()
	var setupErr atomic.Pointer[error]
	sem := make(chan struct{}, cfg.DialConcurrency)
	var setup sync.WaitGroup
	for li := range cfg.Lobbies {
		setup.Add(1)
		sem <- struct{}{}
		go func() {
			defer setup.Done()
			defer func() { <-sem }()
			ls, err := r.lobbyOf(ctx, li)
			players[li] = ls
			if err != nil {
				setupErr.CompareAndSwap(nil, &err)
			}
		}()
	}
	for i := range nIdle {
		if setupErr.Load() != nil || ctx.Err() != nil {
			break
		}
		setup.Add(1)
		sem <- struct{}{}
		go func() {
			defer setup.Done()
			defer func() { <-sem }()
			c, err := r.dialIdle(ctx, cfg.Lobbies*cfg.Players+i)
			if err != nil {
				setupErr.CompareAndSwap(nil, &err)
				return
			}
			conns[i] = c
			readers.Add(1)
			go func() { defer readers.Done(); r.read(c) }()
		}()
	}
	setup.Wait()
	if p := setupErr.Load(); p != nil {
		return rep, fmt.Errorf("load: setting up the connections: %w", *p)
	}
	if ctx.Err() != nil {
		return rep, ctx.Err()
	}
	rep.SetupSec = time.Since(t0).Seconds()
	r.log.Info("idle connections held", "conns", cfg.Conns, "lobbies", cfg.Lobbies, "setup", time.Since(t0).Round(time.Millisecond))

	kaCtx, stopKA := context.WithCancel(ctx)
	kaDone := make(chan struct{})
	go func() { defer close(kaDone); r.keepAlive(kaCtx, conns) }()
	defer func() { stopKA(); <-kaDone }()

	// The idle window.
	if cfg.Settle > 0 && !sleepCtx(ctx, cfg.Settle) {
		return rep, ctx.Err()
	}
	ownBefore, _ := cpuSeconds(os.Getpid())
	ans0 := r.answered.Load()
	cpu0, cpuErr := cpuSeconds(cfg.ServerPID)
	w0 := time.Now()
	if !sleepCtx(ctx, cfg.Window) {
		return rep, ctx.Err()
	}
	cpu1, cpuErr1 := cpuSeconds(cfg.ServerPID)
	rep.IdleWindow = time.Since(w0).Seconds()
	rep.KeepAlivesPerSec = float64(r.answered.Load()-ans0) / rep.IdleWindow
	if cfg.ServerPID != 0 {
		if b, err := rssBytes(cfg.ServerPID); err == nil {
			rep.RSSHeldMB = float64(b) / 1e6
			if cfg.Conns > 0 {
				rep.RSSPerConnKB = (rep.RSSHeldMB - rep.RSSBaseMB) * 1e3 / float64(cfg.Conns)
			}
		}
		if cpuErr == nil && cpuErr1 == nil {
			rep.IdleCPU = cpu1 - cpu0
			rep.IdleCorePct = rep.IdleCPU / rep.IdleWindow * 100
			if cfg.Conns > 0 {
				rep.IdleCPUPerConnUS = rep.IdleCPU * 1e6 / rep.IdleWindow / float64(cfg.Conns)
			}
		}
	}

	// The start window.
	if cfg.Lobbies > 0 {
		var lat []time.Duration
		var latMu sync.Mutex
		var starts, failures atomic.Int64
		var counting atomic.Bool
		playCtx, stopPlay := context.WithCancel(ctx)
		var play sync.WaitGroup
		for _, ls := range players {
			play.Add(1)
			go func() {
				defer play.Done()
				r.cycle(playCtx, ls, &counting, &starts, &failures, func(d time.Duration) {
					latMu.Lock()
					lat = append(lat, d)
					latMu.Unlock()
				})
			}()
		}
		sleepCtx(ctx, min(5*time.Second, cfg.Window/4)) // the cycles get going
		c0, err0 := cpuSeconds(cfg.ServerPID)
		counting.Store(true)
		w1 := time.Now()
		sleepCtx(ctx, cfg.Window)
		counting.Store(false)
		c1, err1 := cpuSeconds(cfg.ServerPID)
		rep.StartWindow = time.Since(w1).Seconds()
		stopPlay()
		play.Wait()
		rep.Starts, rep.StartFailures = int(starts.Load()), int(failures.Load())
		rep.StartsPerSec = float64(rep.Starts) / rep.StartWindow
		if cfg.ServerPID != 0 && err0 == nil && err1 == nil {
			rep.StartCPU = c1 - c0
			rep.StartCorePct = rep.StartCPU / rep.StartWindow * 100
			if rep.Starts > 0 {
				idle := rep.IdleCPU / rep.IdleWindow * rep.StartWindow
				rep.CPUPerStartMS = (rep.StartCPU - idle) * 1e3 / float64(rep.Starts)
			}
		}
		slices.Sort(lat)
		if len(lat) > 0 {
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			rep.StartP50, rep.StartP99 = ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100])
		}
	}
	if ownAfter, err := cpuSeconds(os.Getpid()); err == nil {
		rep.LoadCPU = ownAfter - ownBefore
	}
	for _, c := range conns {
		if c.alive.Load() {
			rep.Held++
		}
	}
	for _, ls := range players {
		for _, c := range ls {
			if c.Err() == nil {
				rep.Held++
			}
		}
	}
	rep.Dropped = int(r.dropped.Load())
	r.mu.Lock()
	rep.Errors = append(rep.Errors, r.errs...)
	r.mu.Unlock()
	if out != nil {
		if err := json.NewEncoder(out).Encode(rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// dialer is the dialer of connection i: its source address round-robin.
func (r *idleRun) dialer(i int) *net.Dialer {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if len(r.srcs) > 0 {
		d.LocalAddr = &net.TCPAddr{IP: r.srcs[i%len(r.srcs)].AsSlice()}
	}
	return d
}

// dialIdle connects and authenticates connection i.
func (r *idleRun) dialIdle(ctx context.Context, i int) (*idleConn, error) {
	nc, err := r.dialer(i).DialContext(ctx, "tcp", r.cfg.Server)
	if err != nil {
		return nil, err
	}
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := nc.Write([]byte("AUTHENTICATE ;idle" + strconv.Itoa(i) + "\r\n")); err != nil {
		nc.Close()
		return nil, err
	}
	br := bufio.NewReaderSize(nc, 128)
	line, err := br.ReadSlice('\n')
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	resp, err := lobby.ParseResponse(line)
	if err != nil || resp.Code != lobby.CodeOK {
		nc.Close()
		return nil, fmt.Errorf("authenticate: %q", bytes.TrimSpace(line))
	}
	nc.SetDeadline(time.Time{})
	c := &idleConn{nc: nc, ka: []byte(lobby.CmdGetLobbies + " " + resp.Body + ";\r\n")}
	c.alive.Store(true)
	return c, nil
}

// read counts c's responses until the connection ends (an end before the run's is a drop).
func (r *idleRun) read(c *idleConn) {
	br := bufio.NewReaderSize(c.nc, 4096)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			continue // a long GET_LOBBIES page: its rest follows
		}
		if err != nil {
			if c.alive.Swap(false) {
				r.dropped.Add(1)
				r.fail("connection closed: " + err.Error())
			}
			return
		}
		if lobby.IsResponse(line) {
			r.answered.Add(1)
			if line[0] != '2' {
				r.fail("refused: " + string(bytes.TrimSpace(line)))
			}
		}
	}
}

// keepAlive sends each connection its GET_LOBBIES once per KeepAlive, spread evenly.
func (r *idleRun) keepAlive(ctx context.Context, conns []*idleConn) {
	if len(conns) == 0 {
		<-ctx.Done()
		return
	}
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	start := time.Now()
	sent := 0
	for {
		select {
		case <-ctx.Done():
			for _, c := range conns {
				c.alive.Store(false) // closing now is the run's end, not a drop
			}
			return
		case <-t.C:
		}
		due := int(time.Since(start) * time.Duration(len(conns)) / r.cfg.KeepAlive)
		for ; sent < due; sent++ {
			c := conns[sent%len(conns)]
			if !c.alive.Load() {
				continue
			}
			c.nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
			if _, err := c.nc.Write(c.ka); err != nil {
				c.nc.Close() // the reader counts it
			}
		}
	}
}

// lobbyOf sets up playing lobby li: Players connections, the first creates, the others join.
func (r *idleRun) lobbyOf(ctx context.Context, li int) ([]*lobby.Client, error) {
	out := make([]*lobby.Client, 0, r.cfg.Players)
	code := ""
	for p := range r.cfg.Players {
		nc, err := r.dialer(li*r.cfg.Players+p).DialContext(ctx, "tcp", r.cfg.Server)
		if err != nil {
			return out, err
		}
		c := lobby.NewClient(nc)
		out = append(out, c)
		if _, err := c.Authenticate("lob" + strconv.Itoa(li) + "_" + strconv.Itoa(p)); err != nil {
			return out, fmt.Errorf("authenticate: %w", err)
		}
		if p == 0 {
			code, err = c.Create("")
		} else {
			_, err = c.Join(code)
		}
		if err != nil {
			return out, fmt.Errorf("lobby: %w", err)
		}
	}
	return out, nil
}

// cycle plays games in lobby ls until ctx ends: START, every START push, every END.
func (r *idleRun) cycle(ctx context.Context, ls []*lobby.Client, counting *atomic.Bool, starts, failures *atomic.Int64, latency func(time.Duration)) {
	for ctx.Err() == nil {
		t0 := time.Now()
		if err := ls[0].Start(); err != nil {
			if counting.Load() {
				failures.Add(1)
			}
			r.fail("START: " + err.Error())
			if !sleepCtx(ctx, 100*time.Millisecond) {
				return
			}
			continue
		}
		for i, c := range ls {
			if _, err := c.WaitStart(ctx); err != nil {
				if ctx.Err() == nil {
					r.fail("START push: " + err.Error())
				}
				return
			}
			if i == 0 && counting.Load() {
				latency(time.Since(t0))
				starts.Add(1)
			}
		}
		for _, c := range ls {
			if _, err := c.WaitEnd(ctx); err != nil {
				if ctx.Err() == nil {
					r.fail("END push: " + err.Error())
				}
				return
			}
		}
	}
}

// sleepCtx waits d or until ctx ends; it reports whether d passed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// rssBytes is the resident set size of process pid (/proc/PID/status VmRSS, Linux).
func rssBytes(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(l, []byte("VmRSS:")); ok {
			f := bytes.Fields(v)
			if len(f) == 2 && string(f[1]) == "kB" {
				n, err := strconv.ParseInt(string(f[0]), 10, 64)
				return n << 10, err
			}
		}
	}
	return 0, errors.New("load: no VmRSS in /proc status")
}
