// Package instance runs the game instances of a server. Each started lobby gets a Game: a pure
// protocol and simulation core (game.go) that owns no goroutine, socket or clock. The Manager is
// their one runtime: a single UDP socket shared by every game (datagrams are routed to their game
// by the header's token), one reader, and one 60 Hz tick schedule that steps the due games on a
// pool of GOMAXPROCS workers (docs/PROTOCOL.md §3–§6). Games are independent of each other and of
// the lobby: a panic in one (in its tick or while it handles a datagram) ends that game with
// GAME_END (aborted) and is logged, and a slow game only falls behind itself; the others carry
// on. The reader limits each source address's rate (RateLimiter) and counts every datagram it or a
// game drops, by reason (Manager.Drops).
//
// # The schedule
//
// The Manager's schedule divides the tick into Slots phases and puts each new game in the least
// loaded of ⌈games/GamesPerSlot⌉ slots spread evenly over the period (slotOrder), so a server
// wakes only for the slots that have games, each with a full batch of sends, and one slot's
// games are done before the next used slot falls due; a worker gathers what the games it ran send
// and writes it in sendmmsg batches across games; the reader sleeps up to ReadCoalesce between
// reads that did not fill a batch and yields after a full one. On Linux, recvmmsg and sendmmsg
// are raw system calls on the non-blocking socket (net/transport's mmsg_linux.go: a plain call of
// more than 20 µs loses its P to a second thread, which a one-core server then time-slices in
// milliseconds), and a timerfd in the runtime's poller wakes it at each slot's moment
// (waker_linux.go: epoll_wait's timeout counts whole milliseconds). While every worker is held by
// a tick longer than StuckTick, the schedule adds a worker (at most MaxExtraWorkers), so such a
// game never stalls the others. Every decision of the schedule is scheduler.step's, made at the
// time it is given (its tests run it in virtual time); the runtime's loop only waits for each
// slot's moment. Manager.Stats (tick lateness per game tick, overruns, extra
// workers, process CPU) is logged when the runtime stops.
//
// # Peers
//
// Per-peer state (address, endpoint, byte and datagram counters, the session key's wire.Prover,
// the newest nonce that moved it) lives in the Game's peer record. A session moves to a new
// address only with a valid RESPONSE to the Game's CHALLENGE (docs/PROTOCOL.md §5.9; nonces are
// stateless, an HMAC under a per-game secret naming the address and the time). Every drop is
// counted by reason (DropReasons: wire.Reasons, then unknown_token, ended, rate, address,
// response, gone, panic) in the Game and in the Manager, which sums them for metrics
// (Manager.Drops) and logs them sampled (the first per reason per second, then a count). The
// Manager's reader rate-limits each source address before validating anything (RateLimiter: a
// cell-rate table of hashed buckets, fixed memory, 0 allocs) and recovers a panic in a game's
// datagram handling as its workers do in a tick: that game ends aborted, the others go on.
package instance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/linksim"
	"github.com/rtype/rtype/net/metrics/hist"
	"github.com/rtype/rtype/net/transport"
	"github.com/rtype/rtype/net/wire"
)

// Timing of a game instance (docs/PROTOCOL.md §5).
const (
	// SnapshotEvery is the number of ticks between two snapshots (60/2 = 30 Hz).
	SnapshotEvery = 2
	// CongestedSnapshotEvery is used for a client whose link loses datagrams (20 Hz).
	CongestedSnapshotEvery = 3
	// MaxDatagramsPerSnapshot bounds the datagrams sent to one client per snapshot.
	MaxDatagramsPerSnapshot = 4
	// InputWindow is how many ticks ahead of the simulation an input may be stamped; inputs
	// further ahead are dropped, inputs for past ticks are ignored (the past is never rewritten).
	InputWindow = 120
	// MaxStateResendTicks caps the wait (ticks) before unacknowledged state is sent again.
	MaxStateResendTicks = 20
	// EndLinger is how long an ended game keeps sending so GAME_END gets acknowledged.
	EndLinger = 10 * time.Second
	// ShutdownLinger is the same when the server is shutting down.
	ShutdownLinger = 2 * time.Second
	// MaxCatchUp is how many ticks a late game runs at once before it skips ahead instead.
	MaxCatchUp = 5
	// RetiredRoute is how long the tokens of an ended game stay routed to it: its players' last
	// acknowledgements are expected traffic, dropped silently rather than counted as unknown.
	RetiredRoute = 5 * time.Second
)

// Slots is how many phases the tick period is divided into: each game ticks in one slot (the
// least loaded when it starts), so the games' work is spread over the period instead of all
// falling due at once, and a game waits for at most its slot's share of the others.
const Slots = 32

// GamesPerSlot is how many games the slots in use take before a new game opens another slot:
// a server with few games wakes for few slots (each wake-up costs system calls) and a slot's
// games fill a sendmmsg batch (~2 datagrams a game a tick: 64, transport.BatchSize); one with
// Slots × GamesPerSlot games or more uses them all (docs/BENCHMARKS.md, "Server capacity and CPU").
const GamesPerSlot = 32

// MaxExtraWorkers bounds the workers added while every worker is held (Config.Workers).
const MaxExtraWorkers = 8

// StuckTick is how long a game's tick may run before its worker counts as held (Config.Workers):
// a tick takes tens of µs, a catch-up of MaxCatchUp ticks under 2 ms.
const StuckTick = 5 * time.Millisecond

// ReadCoalesce is the least time between two reads of the game socket that did not fill a batch:
// the reader sleeps instead of waking for every datagram, and reads what arrived meanwhile in
// one system call (at most this much added latency).
const ReadCoalesce = time.Millisecond

// Config configures the Manager and every game it starts.
type Config struct {
	// Host is the address the game socket binds to ("" = all interfaces, "127.0.0.1" for tests).
	Host string
	// Port is the UDP port every game shares (0 lets the OS choose); START hands it out.
	Port int
	// PublicPort, when not 0, is the port START hands out instead (Instance.Port): the port
	// players reach when a NAT or Docker's -p forwards another one to Port.
	PublicPort int
	// Stages are the stages a lobby may start (handoff.Starter): the server's catalogue, loaded
	// with game.ParseScript, which resolves a lobby's stage name to the stage its game plays
	// (game.CatalogueStage). When nil, every game plays Stage.
	Stages *stagefile.Catalogue
	// Stage is the stage of every game when Stages is nil (nil: game.NewSim's default, stage1).
	Stage *game.Stage
	// NetSim, when not zero, impairs the game socket (both directions) with the link simulator.
	NetSim linksim.Config
	// SilenceTimeout drops a player whose datagrams stop (seed 004: PING every 3 s; default 10 s).
	SilenceTimeout time.Duration
	// HereTimeout drops a player who never says HERE (default 20 s).
	HereTimeout time.Duration
	// RejoinWindow keeps a lost player's slot for a rejoin (default RejoinWindow, 60 s).
	RejoinWindow time.Duration
	// Workers is the number of goroutines stepping games (default GOMAXPROCS). While every one of
	// them is held by a game tick running longer than StuckTick (a bug, a pathological stage), the
	// schedule adds a worker, so such a game never stalls the others: the Go runtime preempts the
	// long tick every 10 ms and the extra worker steps the other games meanwhile.
	Workers int
	// RateLimit is how many datagrams per second each source address (IP and port) may send;
	// the excess is dropped (DropRate). 0 means DefaultRateLimit, negative no limit. RateBurst
	// is the burst allowed above it (0: twice RateLimit).
	RateLimit, RateBurst int
	// Seed gives each game its PRNG seed (default: from the clock).
	Seed   func() uint64
	Logger *slog.Logger
	// OnGameEnd, when set, is called with each instance after its game ended (tests).
	OnGameEnd func(in *Instance)
	// Connectionless, when set, is given every datagram on the game socket that is not the game
	// protocol's (its first two bytes are not Magic0 Magic1: server queries, LAN discovery, the
	// list server's reachability token, WebRTC's STUN/DTLS), after the per-address rate limit
	// and before anything else reads it. It runs on the reader: it must not block, b is valid
	// only during the call, and it replies through Manager.WriteTo. It returns false for a
	// datagram it does not take, which is then dropped as invalid (counted as "magic").
	Connectionless func(b []byte, from netip.AddrPort) bool
	// Divert, when set, is offered every datagram the runtime sends (the games' and WriteTo's)
	// before the socket: it returns true for one it took, which then does not go out on the
	// socket (net/server: a WebRTC peer's address, whose datagrams go over its data channel).
	// It must not block; b is valid only during the call. Datagrams from such addresses come in
	// through Manager.Receive.
	Divert func(b []byte, to netip.AddrPort) bool
}

// Manager starts games for the lobby (it implements handoff.Starter), runs them and shuts them down.
type Manager struct {
	cfg   Config
	log   *slog.Logger
	sock  transport.Socket
	udp   *transport.UDPSocket // the socket under sock (KernelDrops)
	batch *transport.BatchConn // nil with the link simulator: one datagram per call then
	port  int
	epoch time.Time
	clock func() time.Duration // nil: time since epoch (tests set a virtual clock)

	mu     sync.Mutex
	live   map[*Instance]struct{}
	closed bool
	nextID atomic.Uint64

	routeMu sync.RWMutex
	routes  map[uint32][]*Instance // token → games (tokens are unique per game, rarely across games)
	retired []retired              // ended games whose tokens are still routed (guarded by mu)

	ticks   atomic.Uint64      // ticks issued by the schedule (not while it sleeps, idle)
	kick    chan struct{}      // StartGame wakes an idle schedule
	slots   [Slots][]*Instance // the live games by slot (guarded by mu)
	work    chan job
	quit    chan struct{}
	wg      sync.WaitGroup
	gamesWG sync.WaitGroup

	limit      *RateLimiter // nil: no rate limit; guarded by limitMu (allow)
	limitMu    sync.Mutex
	challenges *ChallengeLimiter // CHALLENGEs per source network, shared by the games

	drops      [NumDropReasons]atomic.Uint64 // datagrams no game took (invalid, unknown token, rate, ended, panic)
	dropMu     sync.Mutex
	dlog       dropLog         // guarded by dropMu
	endedDrops Drops           // what the games that ended dropped (guarded by mu)
	late       *hist.Histogram // how late game ticks start (ticktimes.go)
	stepDur    *hist.Histogram // how long game ticks take to run
	overruns   atomic.Uint64   // the times a game skipped ticks (MaxCatchUp)

	workers  atomic.Int32  // worker goroutines running (Config.Workers, plus extras while held)
	extras   atomic.Uint64 // extra workers started (RuntimeStats.ExtraWorkers)
	jobStart sync.Map      // *atomic.Int64 per worker: when its current tick started (ns since epoch), 0 between ticks
}

var _ handoff.Starter = (*Manager)(nil)

// NewManager opens the shared UDP socket on cfg.Host:cfg.Port and starts the runtime (reader,
// tick schedule, workers); zero fields of cfg are defaulted. Shutdown stops it.
func NewManager(cfg Config) (*Manager, error) {
	us, err := transport.ListenUDP(net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))
	if err != nil {
		return nil, fmt.Errorf("instance: UDP port: %w", err)
	}
	m := newManager(cfg)
	m.sock, m.udp, m.port = us, us, int(us.LocalAddr().Port())
	if !m.cfg.NetSim.IsZero() {
		m.sock = linksim.Wrap(us, m.cfg.NetSim, m.cfg.NetSim)
	} else {
		m.batch = transport.NewBatchConn(us)
	}
	for range m.cfg.Workers {
		m.startWorker(false)
	}
	m.wg.Add(2)
	go func() { defer m.wg.Done(); m.readLoop() }()
	go func() { defer m.wg.Done(); m.schedule() }()
	return m, nil
}

// newManager is a Manager for cfg (defaulted) with no socket and no goroutine yet: NewManager
// adds them; tests drive its schedule in virtual time (scheduler.step, Manager.clock).
func newManager(cfg Config) *Manager {
	if cfg.SilenceTimeout <= 0 {
		cfg.SilenceTimeout = 10 * time.Second
	}
	if cfg.HereTimeout <= 0 {
		cfg.HereTimeout = 20 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Seed == nil {
		cfg.Seed = func() uint64 { return uint64(time.Now().UnixNano()) }
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.RateLimit == 0 {
		cfg.RateLimit = DefaultRateLimit
	}
	m := &Manager{cfg: cfg, log: cfg.Logger, late: hist.New(lateBucket, lateBuckets), stepDur: hist.New(stepBucket, stepBuckets), epoch: time.Now(),
		live: map[*Instance]struct{}{}, routes: map[uint32][]*Instance{},
		work: make(chan job, 256), quit: make(chan struct{}), kick: make(chan struct{}, 1), challenges: NewChallengeLimiter()}
	if cfg.RateLimit > 0 {
		m.limit = NewRateLimiter(cfg.RateLimit, cfg.RateBurst)
	}
	return m
}

// Port is the UDP port every game of this manager binds.
func (m *Manager) Port() int { return m.port }

// PublicPort is the UDP port players send to (START): Config.PublicPort, else Port.
func (m *Manager) PublicPort() int {
	if m.cfg.PublicPort > 0 {
		return m.cfg.PublicPort
	}
	return m.port
}

// now is the runtime's clock: the time since the Manager started (clock, in tests: virtual).
func (m *Manager) now() time.Duration {
	if m.clock != nil {
		return m.clock()
	}
	return time.Since(m.epoch)
}

// ErrShutdown is returned by StartGame once Shutdown has begun.
var ErrShutdown = errors.New("instance: server shutting down")

// StartGame starts a game for the lobby's members on the shared UDP port (handoff.Starter),
// playing the stage the lobby chose: the spec's Files, else Config.Stages by name.
func (m *Manager) StartGame(spec handoff.GameSpec) (handoff.Game, error) {
	code, stageName, members := spec.Code, spec.Stage, spec.Members
	// The spec's stage files first (the lobby's, handed over to a game host), else this
	// runtime's stages by name.
	lookup := func(name string) (*game.Stage, error) {
		if f := spec.File(name); f != nil {
			if st := game.StageOf(f); st != nil {
				return st, nil
			}
			return nil, fmt.Errorf("stage %s was not checked with game.ParseScript", f.Name)
		}
		if m.cfg.Stages != nil {
			return game.CatalogueStage(m.cfg.Stages, name)
		}
		return nil, fmt.Errorf("unknown stage %q", name)
	}
	stage := m.cfg.Stage
	if m.cfg.Stages != nil || spec.File(stageName) != nil {
		var err error
		if stage, err = lookup(stageName); err != nil {
			return nil, fmt.Errorf("instance: %w", err)
		}
	}
	var run []*game.Stage
	if len(spec.Run) >= 2 && (m.cfg.Stages != nil || spec.Files != nil) { // an arcade run (docs/PROTOCOL.md §2.4.15)
		for _, name := range spec.Run {
			st, err := lookup(name)
			if err != nil {
				return nil, fmt.Errorf("instance: arcade run: %w", err)
			}
			run = append(run, st)
		}
		stage, stageName = run[0], spec.Run[0]
	}
	id := m.nextID.Add(1)
	log := m.log.With("lobby", code, "instance", id)
	g, err := NewGame(GameConfig{Code: code, Members: members, Stage: stage, StageName: stageName, Run: run, RunNames: spec.Run, StartTime: time.Now().Unix(),
		Difficulty: spec.Difficulty, Section: spec.Section, InfiniteLives: spec.InfiniteLives, Seed: m.cfg.Seed(),
		SilenceTimeout: m.cfg.SilenceTimeout, HereTimeout: m.cfg.HereTimeout, RejoinWindow: m.cfg.RejoinWindow, Logger: log, Challenges: m.challenges}, m.now())
	if err != nil {
		return nil, err
	}
	in := &Instance{m: m, code: code, log: log, g: g, done: make(chan struct{}), gone: make(chan struct{}, 1)}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrShutdown
	}
	m.live[in] = struct{}{}
	in.slot = m.pickSlot()
	m.slots[in.slot] = append(m.slots[in.slot], in)
	in.base = m.ticks.Load()
	m.gamesWG.Add(1)
	m.mu.Unlock()
	select {
	case m.kick <- struct{}{}: // wake the schedule if it sleeps (idle)
	default:
	}
	m.routeMu.Lock()
	g.Tokens(func(t uint32) { m.routes[t] = append(m.routes[t], in) })
	m.routeMu.Unlock()
	log.Info("game started", "players", len(members))
	return in, nil
}

// pickSlot returns the slot for a new game: the least loaded of the first ⌈(games+1)/GamesPerSlot⌉
// slots of slotOrder, the earliest of equals (called with m.mu held).
func (m *Manager) pickSlot() int {
	games := 0
	for s := range m.slots {
		games += len(m.slots[s])
	}
	open := min(Slots, games/GamesPerSlot+1)
	best := slotOrder[0]
	for _, s := range slotOrder[1:open] {
		if len(m.slots[s]) < len(m.slots[best]) {
			best = s
		}
	}
	return best
}

// slotOrder is the order in which slots open as games come: bit-reversed (0, 16, 8, 24, 4, ...),
// so that the slots in use, however many, are spread evenly over the tick period and one
// slot's games are done before the next slot falls due, instead of bunched at its start.
var slotOrder = func() (o [Slots]int) {
	bits := 0
	for 1<<bits < Slots {
		bits++
	}
	for i := range o {
		r := 0
		for b := 0; b < bits; b++ {
			if i&(1<<b) != 0 {
				r |= 1 << (bits - 1 - b)
			}
		}
		o[i] = r
	}
	return o
}()

// Instances returns the running instances (tests and diagnostics).
func (m *Manager) Instances() []*Instance {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Instance, 0, len(m.live))
	for in := range m.live {
		out = append(out, in)
	}
	return out
}

// Running is the number of live instances.
func (m *Manager) Running() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.live)
}

// KernelDrops returns how many datagrams the kernel dropped at the game socket before the
// reader took them (a full receive buffer: the server could not keep up); ok is false where the
// system does not say (transport.UDPSocket.KernelDrops). Monitoring: it reads a /proc file.
func (m *Manager) KernelDrops() (uint64, bool) { return m.udp.KernelDrops() }

// Drops returns the count of datagrams the runtime and every game it ran dropped since it
// started, per reason (DropReasons): invalid datagrams, unknown tokens, rate limit, ended games,
// unbound addresses, bad RESPONSEs, dropped players, panics. Counts only grow; safe for
// concurrent use (metrics read it).
func (m *Manager) Drops() Drops {
	var d Drops
	for i := range m.drops {
		d[i] = m.drops[i].Load()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	d.Add(&m.endedDrops)
	for in := range m.live {
		in.mu.Lock()
		gd := in.g.Drops()
		in.mu.Unlock()
		d.Add(&gd)
	}
	return d
}

// drop counts a datagram the runtime dropped and logs it, sampled.
func (m *Manager) drop(reason int, from netip.AddrPort) {
	m.drops[reason].Add(1)
	m.dropMu.Lock()
	m.dlog.note(m.log, m.now(), reason, from)
	m.dropMu.Unlock()
}

// Shutdown ends every running game with GAME_END (aborted), waits for them to be delivered (or
// for ctx), refuses new games, then stops the runtime and closes the socket.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.mu.Lock()
	first := !m.closed
	m.closed = true
	live := make([]*Instance, 0, len(m.live))
	for in := range m.live {
		live = append(live, in)
	}
	m.mu.Unlock()
	for _, in := range live {
		in.stop(rules.ResultAborted)
	}
	done := make(chan struct{})
	go func() { m.gamesWG.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if first {
		close(m.quit)
		_ = m.sock.Close()
		m.wg.Wait()
		for _, in := range m.Instances() { // did not finish in time: closed without GAME_END delivered
			m.finish(in)
		}
		st := m.Stats()
		m.log.Info("game runtime stopped", "ticks", st.Ticks, "game_ticks", st.GameTicks, "tick_late_p50", st.TickLateP50,
			"tick_late_p99", st.TickLateP99, "tick_late_max", st.TickLateMax, "overruns", st.Overruns, "extra_workers", st.ExtraWorkers,
			"cpu_s", st.CPU.Seconds())
	}
	return err
}

// RuntimeStats are the runtime's figures since it started: the server logs them when it stops,
// and metrics can read them (Stats).
type RuntimeStats struct {
	Games     int    // games running now
	Ticks     uint64 // ticks of the schedule
	GameTicks uint64 // game ticks started (the lateness samples)
	// TickLateP50, TickLateP99 and TickLateMax are how late game ticks started after their slot
	// was due (0.1 ms resolution).
	TickLateP50, TickLateP99, TickLateMax time.Duration
	// Overruns counts the times a game fell MaxCatchUp ticks behind and skipped ahead.
	Overruns uint64
	// ExtraWorkers counts the workers added while every worker was held by a tick running
	// longer than StuckTick (Config.Workers): 0 on a healthy server.
	ExtraWorkers uint64
	// CPU is the process's user + system CPU time (0 where the system does not say).
	CPU time.Duration
}

// Stats returns the runtime's figures so far.
func (m *Manager) Stats() RuntimeStats {
	var st RuntimeStats
	st.Games = m.Running()
	st.Ticks = m.ticks.Load()
	late := m.late.Snapshot()
	st.TickLateP50, st.TickLateP99, st.TickLateMax, st.GameTicks = late.Quantile(0.5), late.Quantile(0.99), late.Max, late.N()
	st.Overruns = m.overruns.Load()
	st.ExtraWorkers = m.extras.Load()
	st.CPU = processCPU()
	return st
}

// WriteTo sends b as one datagram from the game socket (the socket players use): replies of
// Config.Connectionless. It is safe for concurrent use.
func (m *Manager) WriteTo(b []byte, to netip.AddrPort) error {
	if m.cfg.Divert != nil && m.cfg.Divert(b, to) {
		return nil
	}
	_, err := m.sock.WriteTo(b, to)
	return err
}

// divert hands the datagrams of o that Config.Divert takes to it; the others stay for the
// socket. Every send of the games' outboxes goes through it.
func (m *Manager) divert(o *transport.Outbox) {
	if m.cfg.Divert == nil || o.Len() == 0 {
		return
	}
	o.Keep(func(b []byte, to netip.AddrPort) bool { return !m.cfg.Divert(b, to) })
}

// Receive hands the runtime one datagram from from that did not come from the game socket (a
// WebRTC peer's data channel message, net/server): it takes the socket's path from the
// per-address rate limit on (Config.Connectionless, the token's game, CHALLENGE and the
// anti-amplification rules), as if it had come from from. Safe for concurrent use; b is
// valid only during the call.
func (m *Manager) Receive(b []byte, from netip.AddrPort) { m.route(b, from) }

// readLoop reads datagrams from the shared socket (in batches when it can) and hands each to its
// game.
func (m *Manager) readLoop() {
	if m.batch != nil {
		m.batch.Coalesce = ReadCoalesce
		m.batch.ReadLoop(m.quit, m.route)
		return
	}
	var buf [2048]byte
	transport.ReadLoop(m.sock, buf[:], m.quit, m.route)
}

// route checks one datagram's source rate, validates it and gives it to the game its token
// belongs to (called by the read loop and Receive).
func (m *Manager) route(b []byte, from netip.AddrPort) {
	if m.limit != nil && !m.allow(from) {
		m.drop(DropRate, from)
		return
	}
	if (len(b) < 2 || b[0] != wire.Magic0 || b[1] != wire.Magic1) && m.cfg.Connectionless != nil && m.cfg.Connectionless(b, from) {
		return
	}
	var h wire.Header
	r, err := wire.Open(b, &h)
	if err != nil {
		m.drop(wire.ReasonIndex(err), from)
		return
	}
	m.routeMu.RLock()
	cands := m.routes[h.Token]
	var in *Instance
	switch len(cands) {
	case 0:
	case 1:
		in = cands[0]
	default:
		// Two games drew the same token (rare: tokens are random u32s): the game that has this
		// address bound to it, else the one whose member the HERE names.
		for _, c := range cands {
			if c.claims(h.Token, from, r) {
				in = c
				break
			}
		}
		if in == nil {
			in = cands[0]
		}
	}
	m.routeMu.RUnlock()
	if in == nil {
		m.drop(DropUnknownToken, from)
		return
	}
	in.receive(from, b, &h, r)
}

// allow is the per-address rate limit's verdict on a datagram from from now.
func (m *Manager) allow(from netip.AddrPort) bool {
	m.limitMu.Lock()
	defer m.limitMu.Unlock()
	return m.limit.Allow(m.now(), from)
}

// job is a game's tick handed to a worker: due is when its slot of the schedule was due (the
// runtime's clock, Manager.now).
type job struct {
	in    *Instance
	due   time.Duration
	sched uint64
}

// slotPeriod is the time between two slots of the schedule.
const slotPeriod = game.TickPeriod / Slots

// schedule is the one 60 Hz tick schedule, in Slots phases: it waits for each slot's moment and
// lets scheduler.step decide what to run then. It sleeps through the slots without games, and
// until a game starts when the server is idle.
func (m *Manager) schedule() {
	s := scheduler{next: m.now() + slotPeriod}
	timer := time.NewTimer(slotPeriod)
	defer timer.Stop()
	wake := newWaker()
	defer wake.close()
	dispatch := func(j job) bool {
		select {
		case m.work <- j:
			return true
		case <-m.quit:
			return false
		}
	}
	for {
		select {
		case <-m.quit:
			return
		case <-timer.C:
		}
		st := s.step(m, m.now(), dispatch)
		switch {
		case st.stopped:
			return
		case st.addWorker:
			m.startWorker(true)
		}
		if st.idle {
			// No game and nothing to prune: sleep until StartGame instead of waking 60 times a
			// second, then resume the schedule from now.
			select {
			case <-m.quit:
				return
			case <-m.kick:
			}
			s.resume(m.now())
		}
		d := s.next - m.now()
		timer.Reset(d)
		wake.arm(d)
	}
}

// scheduler is the state of the tick schedule: the slot due next and when (the runtime's
// clock). Its step is the schedule's every decision, made at the time it is given: the
// runtime's loop (schedule) waits for real time, tests pass virtual time.
type scheduler struct {
	slot  int
	next  time.Duration
	batch []*Instance
}

// stepped is what one step of the schedule decided.
type stepped struct {
	idle      bool // no game and nothing to prune: wait for StartGame, then resume
	addWorker bool // every worker is held by a long tick: start an extra one (counted)
	stopped   bool // dispatch refused a job: the runtime is stopping
}

// step runs the slot due at s.next, at now (when it fell due or later): at slot 0 it counts a
// schedule tick (and once a second prunes retired routes and flushes the drop log) and decides
// whether every worker is held (Manager.held: then a worker is added, at most
// MaxExtraWorkers); it hands the games of the slot that are not busy with an earlier tick to
// dispatch (a busy one is skipped: it catches up later, Instance.run). Then s moves to the next
// slot that has games (slot 0 always); a schedule that fell more than MaxCatchUp ticks behind
// (starved itself) skips ahead to now.
func (s *scheduler) step(m *Manager, now time.Duration, dispatch func(job) bool) stepped {
	var st stepped
	if s.slot == 0 {
		if m.ticks.Add(1)%game.TickRate == 0 {
			m.pruneRetired()
			m.dropMu.Lock()
			m.dlog.flush(m.log, m.now())
			m.dropMu.Unlock()
		}
		if m.held(nil) && m.workers.Load() < int32(m.cfg.Workers)+MaxExtraWorkers {
			if m.extras.Add(1)%1000 == 1 {
				m.log.Warn("every worker is held by a game tick running longer than StuckTick: adding a worker", "stuck_after", StuckTick, "extra_workers", m.extras.Load())
			}
			st.addWorker = true
		}
	}
	sched := m.ticks.Load()
	s.batch = s.batch[:0]
	m.mu.Lock()
	for _, in := range m.slots[s.slot] {
		if in.busy.CompareAndSwap(false, true) {
			s.batch = append(s.batch, in)
		}
	}
	m.mu.Unlock()
	for _, in := range s.batch {
		if !dispatch(job{in: in, due: s.next, sched: sched}) {
			st.stopped = true
			return st
		}
	}
	// the next slot that has games (slot 0 always: it counts the ticks)
	m.mu.Lock()
	for {
		s.slot = (s.slot + 1) % Slots
		s.next += slotPeriod
		if s.slot == 0 || len(m.slots[s.slot]) > 0 {
			break
		}
	}
	m.mu.Unlock()
	if now-s.next > MaxCatchUp*game.TickPeriod {
		s.next = now + slotPeriod // the schedule itself was starved: skip ahead
	}
	st.idle = s.slot == 0 && m.idle()
	return st
}

// resume restarts the schedule at now after it slept (idle): slot 0 is due at once.
func (s *scheduler) resume(now time.Duration) { s.next = now }

// idle reports whether the schedule has nothing to do until a game starts: no game, no retired
// routes to prune, no drop count waiting to be logged.
func (m *Manager) idle() bool {
	m.mu.Lock()
	games := len(m.live) + len(m.retired)
	m.mu.Unlock()
	if games > 0 {
		return false
	}
	m.dropMu.Lock()
	defer m.dropMu.Unlock()
	return !m.dlog.pending()
}

// startWorker starts a worker goroutine; an extra one (held workers) stops once no worker is
// held.
func (m *Manager) startWorker(extra bool) {
	start := new(atomic.Int64)
	m.jobStart.Store(start, struct{}{})
	m.workers.Add(1)
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer m.workers.Add(-1)
		defer m.jobStart.Delete(start)
		m.worker(start, extra)
	}()
}

// held reports whether every worker but self (nil: every worker) is inside a tick that started
// more than StuckTick ago.
func (m *Manager) held(self *atomic.Int64) bool {
	cut := int64(m.now() - StuckTick)
	all, others := true, 0
	m.jobStart.Range(func(k, _ any) bool {
		if k == self {
			return true
		}
		others++
		if t := k.(*atomic.Int64).Load(); t == 0 || t > cut {
			all = false
		}
		return all
	})
	return all && others > 0
}

// worker steps games handed to it by the schedule. What the games send is gathered and sent in
// batches of up to transport.BatchSize datagrams, across games: a batch goes out when it is full
// or when no game is waiting. start holds when its current tick started (held); an extra worker
// returns once no worker is held.
func (m *Manager) worker(start *atomic.Int64, extra bool) {
	var out transport.Outbox
	var bw *transport.BatchWriter
	if m.batch != nil {
		bw = m.batch.NewWriter()
	}
	flush := func() {
		m.divert(&out)
		if bw != nil {
			bw.Flush(&out)
		} else {
			out.Flush(func(b []byte, to netip.AddrPort) { _, _ = m.sock.WriteTo(b, to) })
		}
	}
	defer flush()
	for {
		if extra && !m.held(start) {
			return
		}
		var j job
		if out.Len() > 0 {
			select {
			case j = <-m.work:
			default:
				flush()
			}
		}
		if j.in == nil {
			select {
			case <-m.quit:
				return
			case j = <-m.work:
			}
		}
		m.late.Add(m.now() - j.due)
		start.Store(int64(m.now()))
		finished := j.in.run(j.sched, &out)
		start.Store(0)
		j.in.busy.Store(false)
		if out.Len() >= transport.BatchSize {
			flush()
		}
		if finished {
			m.finish(j.in)
		}
	}
}

// finish removes an ended game: routes, live set, Done.
func (m *Manager) finish(in *Instance) {
	in.mu.Lock()
	if in.ended {
		in.mu.Unlock()
		return
	}
	in.ended = true
	_, res := in.g.Over()
	tick := in.g.sim.Tick()
	in.mu.Unlock()
	in.finalRes.Store(uint32(res))
	if m.cfg.OnGameEnd != nil {
		m.cfg.OnGameEnd(in)
	}
	in.mu.Lock()
	drops := in.g.Drops()
	in.mu.Unlock()
	args := []any{"result", res.String(), "tick", tick, "dropped_datagrams", drops.Total()}
	for i, n := range drops {
		if n > 0 {
			args = append(args, "dropped_"+DropReasons[i], n)
		}
	}
	in.log.Info("game ended", args...)
	m.mu.Lock()
	m.endedDrops.Add(&drops)
	delete(m.live, in)
	sl := m.slots[in.slot]
	for i := range sl {
		if sl[i] == in {
			m.slots[in.slot] = append(sl[:i], sl[i+1:]...)
			break
		}
	}
	m.retired = append(m.retired, retired{in: in, at: m.now()})
	m.mu.Unlock()
	close(in.done)
	m.gamesWG.Done()
}

type retired struct {
	in *Instance
	at time.Duration
}

// unroute removes in's tokens from the routing table.
func (m *Manager) unroute(in *Instance) {
	m.routeMu.Lock()
	defer m.routeMu.Unlock()
	in.g.Tokens(func(t uint32) {
		c := m.routes[t]
		for i := range c {
			if c[i] == in {
				c = append(c[:i], c[i+1:]...)
				break
			}
		}
		if len(c) == 0 {
			delete(m.routes, t)
		} else {
			m.routes[t] = c
		}
	})
}

// pruneRetired unroutes the games that ended more than RetiredRoute ago.
func (m *Manager) pruneRetired() {
	now := m.now()
	m.mu.Lock()
	n := 0
	var old []*Instance
	for _, r := range m.retired {
		if now-r.at > RetiredRoute {
			old = append(old, r.in)
			continue
		}
		m.retired[n] = r
		n++
	}
	m.retired = m.retired[:n]
	m.mu.Unlock()
	for _, in := range old {
		m.unroute(in)
	}
}

// Instance is one running game as the lobby sees it (handoff.Game): a Game core and its share of
// the Manager's runtime.
type Instance struct {
	m    *Manager
	code string
	log  *slog.Logger
	busy atomic.Bool // handed to a worker, not done yet
	base uint64      // schedule tick at the start
	slot int         // phase of the tick period it runs in

	mu     sync.Mutex
	g      *Game
	bw     *transport.BatchWriter
	ticks  uint64 // ticks run
	panics int
	ended  bool

	done     chan struct{}
	gone     chan struct{} // capacity 1: SpectatorsGone
	finalRes atomic.Uint32
}

// Port is the UDP port players send HERE to (handoff.Game, the START push): the Manager's public
// port (Config.PublicPort), else the port it binds.
func (in *Instance) Port() int { return in.m.PublicPort() }

// Done is closed when the game has ended (handoff.Game).
func (in *Instance) Done() <-chan struct{} { return in.done }

// Result is how the game ended, valid after Done (handoff.Game): 0 defeat, 1 victory, 2 aborted.
func (in *Instance) Result() uint8 { return uint8(in.finalRes.Load()) }

// Drop removes a player who left the lobby mid-game (handoff.Game); the others carry on. The
// player gets BYE reason 0 (left) when it left, 3 (kicked) when its lobby connection closed.
func (in *Instance) Drop(id uuid.UUID, left bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.ended {
		in.g.Drop(in.m.now(), id, left)
		in.flush()
	}
}

func (in *Instance) stop(r rules.Result) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.ended {
		in.g.Stop(in.m.now(), r)
		in.flush()
	}
}

// receive hands one valid datagram to the game (from the read loop). A panic while the game
// handles it ends that game as aborted, as one in its tick does; the runtime carries on.
func (in *Instance) receive(from netip.AddrPort, b []byte, h *wire.Header, r wire.Reader) {
	m := in.m
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.ended { // an ended game's players still acknowledge for a while
		m.drop(DropEnded, from)
		return
	}
	defer func() {
		if v := recover(); v != nil {
			in.log.Error("game instance panicked on a datagram; ending the game", "panic", fmt.Sprint(v), "from", from.String())
			m.drop(DropPanic, from)
			in.g.Abort(m.now())
			in.panics++
			in.flush()
		}
	}()
	in.g.ReceiveOpened(m.now(), from, b, h, r)
	in.flush()
	in.noteGone()
}

// claims reports whether token's player of this game is bound to from, or the datagram is its
// HERE (routing between games that drew the same token).
func (in *Instance) claims(token uint32, from netip.AddrPort, r wire.Reader) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, p := range in.g.peers {
		if p.member.Token == token && ((p.bound && p.addr == from) || isHere(r, p)) {
			return true
		}
	}
	return false
}

// flush sends the game's outbox, in batches when the socket allows (called with in.mu held).
func (in *Instance) flush() {
	in.m.divert(&in.g.out)
	if in.g.out.Len() == 0 {
		return
	}
	if in.m.batch != nil {
		if in.bw == nil {
			in.bw = in.m.batch.NewWriter()
		}
		in.bw.Flush(&in.g.out)
		return
	}
	in.g.out.Flush(in.send)
}

func (in *Instance) send(b []byte, to netip.AddrPort) { _, _ = in.m.sock.WriteTo(b, to) }

// run runs the ticks due up to the schedule tick sched (at most MaxCatchUp, then it skips ahead),
// leaves what they send in out, and reports whether the ended game may close. A panic in the
// simulation ends the game as aborted; after 3 more it is closed.
func (in *Instance) run(sched uint64, out *transport.Outbox) (finished bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.ended {
		return false
	}
	if in.panics > 3 {
		return true // it keeps panicking (in its ticks or on datagrams): close it
	}
	defer func() {
		if r := recover(); r != nil {
			in.log.Error("game instance panicked; ending the game", "panic", fmt.Sprint(r))
			in.g.Abort(in.m.now())
			in.panics++
			in.ticks = sched - in.base
			in.flush()
			finished = in.panics > 3
		}
	}()
	target := sched - in.base
	for steps := 0; in.ticks < target; steps++ {
		if steps == MaxCatchUp {
			in.m.overruns.Add(1)
			in.ticks = target
			break
		}
		t0 := time.Now()
		in.g.Tick(in.m.now())
		in.m.stepDur.Add(time.Since(t0))
		in.ticks++
		out.Append(&in.g.out)
	}
	in.noteGone()
	return in.g.Finished(in.m.now())
}

// Stats returns per-client traffic figures.
func (in *Instance) Stats() []PeerStats {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.g.Stats()
}

// Drops returns the datagrams this game dropped, per reason (Game.Drops).
func (in *Instance) Drops() Drops {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.g.Drops()
}

// Replay returns the game's replay file (Game.Replay): complete once the game has ended (Done).
func (in *Instance) Replay() []byte {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.g.Replay()
}

// TryView runs fn with the server world under the instance lock if the lock is free now, and
// reports whether it ran: a server query on the socket's reader never waits for a game tick.
func (in *Instance) TryView(fn func(sim *game.Sim)) bool {
	if !in.mu.TryLock() {
		return false
	}
	defer in.mu.Unlock()
	fn(in.g.sim)
	return true
}

// View runs fn with the server world under the instance lock (tests compare mirrors with it).
func (in *Instance) View(fn func(sim *game.Sim)) {
	in.mu.Lock()
	defer in.mu.Unlock()
	fn(in.g.sim)
}
