package fleet

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/lobby/handoff"
)

// DefaultStartTimeout bounds one request to a host (start, rejoin, spectate) and a StartGame
// in all. A start is carried out off the lobby's lock (lobbyserver.ServerConfig.AsyncStart), so a
// host that does not answer delays only that lobby's START; a rejoin and a spectate still wait
// under it, at most this long (a dead host is marked down by its heartbeat within DeadAfter,
// and then costs nothing).
const DefaultStartTimeout = 2 * time.Second

// A START tries the hosts in turn within StartTimeout, waiting for each at most HostTimeout
// (DefaultHostTimeout, less when less of the budget is left): a host that misses it is
// suspect, skipped by the next starts for SuspectFor (doubling with each miss in a row up to
// MaxSuspectFor; an answer clears it), unless every host with room is suspect (docs/CONTROL.md
// §6).
const (
	DefaultHostTimeout = 500 * time.Millisecond
	SuspectFor         = 10 * time.Second
	MaxSuspectFor      = 5 * time.Minute
)

// RemoteConfig configures a Remote.
type RemoteConfig struct {
	// Hosts are the hosts' control addresses (-hosts), dialled and kept connected.
	Hosts []string
	// Secret is the control secret (RTYPE_CONTROL_SECRET).
	Secret []byte
	// TLS, when set, dials the hosts over mutual TLS (LoadTLS with server false); the host's
	// certificate must name the host of its -hosts address.
	TLS    *tls.Config
	Logger *slog.Logger
	// StartTimeout bounds each request and a START in all (0: DefaultStartTimeout).
	StartTimeout time.Duration
	// HostTimeout bounds a START's wait for one host (0: DefaultHostTimeout; at most
	// StartTimeout).
	HostTimeout time.Duration
	// Ping is the heartbeat interval (0: PingInterval); a host silent for 5 is down.
	Ping time.Duration
	// Redial is the first wait before dialling a host again after a failure, doubling up to
	// 16 times it (0: 250 ms).
	Redial time.Duration
	// Allocate, when set, chooses the host of each game instead of Choose (Agones allocation:
	// net/agones.Allocator): it returns the control address of a host that has taken a free
	// game place. The lobby connects to a host it has not seen yet, and forgets it once it has
	// been unreachable for DynamicGiveUp with no game. Hosts may then be empty.
	Allocate func(ctx context.Context) (controlAddr string, err error)
	// OnGameEnd, when set, is called with each game's end before the lobby learns it (before
	// Done closes: the hall of fame has the game when the lobby pushes GAME_ID). It is called
	// on the host connection's goroutine and must not block (lobby/scoredb.Hall.Record).
	OnGameEnd func(spec handoff.GameSpec, end GameEnd)
	// HostGrace is how long the lobby keeps a host's games when its connection to that host
	// fails (0: DefaultHostGrace; negative: none, they end at once): the games go on on the
	// host, the lobby redials, and a host reached again within the grace hands back those
	// still running (running) and the ends of those that ended meanwhile, which the lobby
	// keeps as if nothing had happened. Past the grace, or at once when the host's control
	// port refuses the connection (its process is gone) or the host says which games it still
	// runs (attached) without one of them, the game ends as lost (docs/CONTROL.md §4.4). Only
	// a lobby with an ID has a grace: a host aborts an anonymous lobby's games with its
	// connection.
	HostGrace time.Duration
	// OnAdopt, when set, is called with each running game of an earlier run of this lobby that
	// a host hands back (running, docs/CONTROL.md §4.3), once the lobby has taken it: g is
	// its RemoteGame, whose end comes as any game's (Done, OnGameEnd). net/server gives it to
	// lobbyserver.Server.AdoptGame, which recreates its lobby. Called on the host connection's
	// goroutine: it must not block.
	OnAdopt func(spec handoff.GameSpec, g handoff.Game)
	// ID, when set, is the lobby's name for itself, the same across its restarts (runLobby:
	// kept in its data directory): it is sent to every host (hello), which then keeps this
	// lobby's games running when its connection fails and hands them back, with the ends of
	// those that ended meanwhile, when a lobby of the same ID connects (docs/CONTROL.md §4.3).
	// "": the hosts abort the lobby's games when its connection fails.
	ID string
	// AllocatedFile, when set with Allocate and ID, is where the lobby keeps the control
	// addresses of its allocated hosts that hold its games (-role lobby with -allocator:
	// <data>/AllocatedHostsFile), written atomically when that set changes (an allocation, a
	// host's last game ended, a host forgotten), at most MaxAllocatedHosts. NewRemote reads it:
	// Run dials those hosts as allocated ones, which hand back the games of the lobby's earlier
	// run as -hosts' do (docs/CONTROL.md §4.3), and Attached waits for them too; a host is
	// forgotten once it holds nothing of this lobby. A corrupt file is logged and ignored.
	AllocatedFile string
	// Dial, when set, connects to a host's control address instead of TCP (nil: TCP, within
	// HandshakeTimeout). The tests give an in-memory network (net.Pipe): there the heartbeats,
	// timeouts and redials run in virtual time (testing/synctest).
	Dial func(ctx context.Context, addr string) (net.Conn, error)
}

// DefaultHostGrace is RemoteConfig.HostGrace's default (-host-grace).
const DefaultHostGrace = 30 * time.Second

// GameEnd is how a game on a host ended, as its lobby keeps it.
type GameEnd struct {
	// Result is the host's: 0 defeat, 1 victory, 2 aborted (always 2 when Lost).
	Result uint8
	// Lost: the host's connection failed; nothing else is known.
	Lost bool
	// Record is the host's figures, checked against the game's start (nil: none sent, the
	// host was lost, or it was refused: logged).
	Record *Record
	// Replay is the game's replay file, reassembled from its parts (nil: none, or refused).
	Replay []byte
}

// DynamicGiveUp is how long an allocated host may stay unreachable before the lobby forgets it.
const DynamicGiveUp = 30 * time.Second

// Remote is the lobby's game runtime when the games run on other hosts (-role lobby): a
// handoff.Starter that hands each game to the least loaded connected host (Choose) over the
// control channel, and the handoff.Game of each such game. Run keeps the connections. Its
// StartGame waits for a host's reply: give it to the lobby with lobbyserver.ServerConfig.AsyncStart
// (it is safe for concurrent use: several lobbies start at once).
type Remote struct {
	cfg RemoteConfig
	log *slog.Logger

	mu    sync.Mutex
	ctx   context.Context // Run's (nil before)
	wg    sync.WaitGroup  // link goroutines
	links []*link
	// crashed: Run's end says no bye: the hosts keep the lobby's games (LeaveGames, or a
	// test's lobby crash).
	crashed atomic.Bool
	// lost are the ids of games this lobby ended as lost with their host's connection (the
	// last maxLost): the host may hand them back when it is reached again; they are not
	// kept twice.
	lostMu sync.Mutex
	lost   map[uuid.UUID]bool
	lostQ  []uuid.UUID
	// saveMu serializes saveAllocated; saved is what RemoteConfig.AllocatedFile holds.
	saveMu sync.Mutex
	saved  []string
}

// LeaveGames makes Run's end leave the lobby's running games to their hosts (no bye, and no
// end kept here: a lobby with the same ID takes them back, docs/CONTROL.md §4.3;
// -leave-games); from now on no drop is sent (the lobby's connections close with it). Call
// it before closing the lobby's connections.
func (r *Remote) LeaveGames() { r.crashed.Store(true) }

// maxLost bounds Remote.lost.
const maxLost = 1024

func (r *Remote) markLost(id uuid.UUID) {
	if id == (uuid.UUID{}) {
		return
	}
	r.lostMu.Lock()
	defer r.lostMu.Unlock()
	if r.lost == nil {
		r.lost = map[uuid.UUID]bool{}
	}
	if !r.lost[id] {
		r.lost[id] = true
		r.lostQ = append(r.lostQ, id)
		if len(r.lostQ) > maxLost {
			delete(r.lost, r.lostQ[0])
			r.lostQ = r.lostQ[1:]
		}
	}
}

func (r *Remote) wasLost(id uuid.UUID) bool {
	r.lostMu.Lock()
	defer r.lostMu.Unlock()
	return r.lost[id]
}

var _ handoff.Starter = (*Remote)(nil)

// NewRemote returns a Remote for cfg; Run connects it.
func NewRemote(cfg RemoteConfig) *Remote {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.HostTimeout <= 0 {
		cfg.HostTimeout = DefaultHostTimeout
	}
	cfg.HostTimeout = min(cfg.HostTimeout, cfg.StartTimeout)
	if cfg.Ping <= 0 {
		cfg.Ping = PingInterval
	}
	if cfg.Redial <= 0 {
		cfg.Redial = 250 * time.Millisecond
	}
	if cfg.HostGrace == 0 {
		cfg.HostGrace = DefaultHostGrace
	}
	r := &Remote{cfg: cfg, log: cfg.Logger}
	for _, a := range cfg.Hosts {
		r.links = append(r.links, r.newLink(a, false))
	}
	if cfg.Allocate != nil {
		r.restoreAllocated()
	}
	return r
}

func (r *Remote) newLink(addr string, dynamic bool) *link {
	host, _, _ := net.SplitHostPort(addr)
	// Request ids start at the clock's microseconds: those of this lobby's earlier runs, whose
	// games the host hands back (running), are not reused.
	return &link{r: r, addr: addr, udpHost: host, dynamic: dynamic, games: map[uint64]*RemoteGame{}, away: map[uint64]*RemoteGame{}, pending: map[uint64]chan *Msg{},
		nextID: uint64(max(time.Now().UnixMicro(), 0)), tried: make(chan struct{})}
}

func (l *link) markTried() { l.triedOnce.Do(func() { close(l.tried) }) }

// AttachWait bounds the wait for Attached before a restarted lobby serves its players anyway
// (net/server): a host that does not answer within it hands its games back when it does.
const AttachWait = 5 * time.Second

// Attached returns a channel closed once every host of RemoteConfig.Hosts (and of
// RemoteConfig.AllocatedFile, read at NewRemote) has been tried once since Run began: its
// first connection handed back this lobby's games of an earlier run (their running messages
// then attached, docs/CONTROL.md §4.3: OnAdopt has been called for each), or it failed. A lobby that waits for it before it serves (net/server, at most
// AttachWait) has the lobbies of those games back before its players RESUME them. An older
// host (no attached) counts only when its connection ends: that wait is AttachWait's.
func (r *Remote) Attached() <-chan struct{} {
	ch := make(chan struct{})
	var links []*link
	for _, l := range r.snapshot() {
		if !l.dynamic || l.restored {
			links = append(links, l)
		}
	}
	go func() {
		for _, l := range links {
			<-l.tried
		}
		close(ch)
	}()
	return ch
}

// ParseHosts reads -hosts: comma-separated host:port control addresses.
func ParseHosts(s string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(a); err != nil {
			return nil, fmt.Errorf("-hosts %q: %w (want host:port,host:port)", a, err)
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, errors.New("-hosts: no host given (want host:port,host:port)")
	}
	return out, nil
}

// Run connects every host and keeps it connected (redialling with a backoff) until ctx is
// cancelled; then the games still running end as aborted.
func (r *Remote) Run(ctx context.Context) {
	r.mu.Lock()
	r.ctx = ctx
	for _, l := range r.links {
		r.goLink(l)
	}
	r.mu.Unlock()
	<-ctx.Done()
	r.wg.Wait()
}

// goLink starts l's connection goroutine (called with r.mu held, after Run began).
func (r *Remote) goLink(l *link) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		l.run(r.ctx)
		if l.dynamic {
			r.mu.Lock()
			for i, o := range r.links {
				if o == l {
					r.links = append(r.links[:i], r.links[i+1:]...)
					break
				}
			}
			r.mu.Unlock()
			r.saveAllocated() // forgotten (none once Run is over)
		}
	}()
}

// linkTo returns the link to addr, connecting a new one (allocation).
func (r *Remote) linkTo(addr string) (*link, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctx == nil || r.ctx.Err() != nil {
		return nil, errors.New("the lobby's host connections are not running")
	}
	for _, l := range r.links {
		if l.addr == addr {
			return l, nil
		}
	}
	l := r.newLink(addr, true)
	r.links = append(r.links, l)
	r.goLink(l)
	return l, nil
}

func (r *Remote) snapshot() []*link {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*link(nil), r.links...)
}

// Hosts returns the lobby's view of each host, in -hosts order (then allocated ones).
func (r *Remote) Hosts() []HostView {
	links := r.snapshot()
	out := make([]HostView, len(links))
	for i, l := range links {
		out[i] = l.view()
	}
	return out
}

// Up is the number of hosts connected (the lobby is ready with at least one: /readyz).
func (r *Remote) Up() int {
	n := 0
	for _, h := range r.Hosts() {
		if h.Up {
			n++
		}
	}
	return n
}

// StartGame hands spec to the least loaded host with free capacity (handoff.Starter); a host
// that refuses, or does not answer within HostTimeout (it is then suspect), is passed over for
// the next, within StartTimeout in all.
func (r *Remote) StartGame(spec handoff.GameSpec) (handoff.Game, error) {
	deadline := time.Now().Add(r.cfg.StartTimeout)
	if r.cfg.Allocate != nil {
		return r.startAllocated(spec, deadline)
	}
	var errs []string
	tried := map[*link]bool{}
	for time.Now().Before(deadline) {
		l := r.pick(tried)
		if l == nil {
			break
		}
		tried[l] = true // not twice
		until := time.Now().Add(r.cfg.HostTimeout)
		if until.After(deadline) {
			until = deadline
		}
		g, err := l.start(spec, until)
		if err == nil {
			l.answered()
			return g, nil
		}
		if errors.Is(err, errNoAnswer) {
			l.missed()
		} else {
			l.answered()
			l.failed()
		}
		errs = append(errs, l.addr+": "+err.Error())
	}
	if len(errs) == 0 {
		return nil, errors.New("no game host has room (all down, draining or full)")
	}
	return nil, errors.New("no game host took the game: " + strings.Join(errs, "; "))
}

// pick chooses the host of a start among those not tried (Choose), those not suspect first,
// and counts the start on it (link.starting) at once, so that starts made at the same time
// spread over the hosts; nil when none has room. link.start takes the count back.
func (r *Remote) pick(tried map[*link]bool) *link {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	for _, suspects := range []bool{false, true} {
		var links []*link
		var views []HostView
		for _, l := range r.links {
			if v := l.view(); !tried[l] && l.isSuspect(now) == suspects {
				links = append(links, l)
				views = append(views, v)
			}
		}
		if i := Choose(views); i >= 0 {
			links[i].reserve()
			return links[i]
		}
	}
	return nil
}

// isSuspect reports whether l missed a start's deadline less than its suspicion ago.
func (l *link) isSuspect(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return now.Before(l.suspectUntil)
}

// missed marks l suspect after it missed a start's deadline: for SuspectFor, twice that after
// a second miss in a row, and so on up to MaxSuspectFor.
func (l *link) missed() {
	l.mu.Lock()
	l.suspectFor = min(max(2*l.suspectFor, SuspectFor), MaxSuspectFor)
	l.suspectUntil = time.Now().Add(l.suspectFor)
	l.suspected++
	d := l.suspectFor
	l.mu.Unlock()
	l.r.log.Warn("game host suspect: it did not answer a start in time; skipped while other hosts have room", "host", l.addr, "timeout", l.r.cfg.HostTimeout, "for", d)
}

// answered clears l's suspicion: it answered a start.
func (l *link) answered() {
	l.mu.Lock()
	was := l.suspectFor > 0
	l.suspectFor, l.suspectUntil = 0, time.Time{}
	l.mu.Unlock()
	if was {
		l.r.log.Info("game host no longer suspect: it answered a start", "host", l.addr)
	}
}

// failed counts a start l refused or failed (HostView.Failed).
func (l *link) failed() {
	l.mu.Lock()
	l.failures++
	l.mu.Unlock()
}

// reserve counts a start on l until link.start ends.
func (l *link) reserve() {
	l.mu.Lock()
	l.starting++
	l.mu.Unlock()
}

// startAllocated asks the allocator for a host, connects to it if new and hands the game over.
func (r *Remote) startAllocated(spec handoff.GameSpec, deadline time.Time) (handoff.Game, error) {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	var last error
	// A host may refuse what it was allocated for (it began draining, or its exact count, set
	// after a game started or ended, undid the increment of an allocation still in flight:
	// several lobbies start at once): the next allocation picks another, after a pause that
	// lets the hosts' counts settle.
	for try := range maxAllocations {
		if try > 0 {
			select {
			case <-ctx.Done():
				return nil, last
			case <-time.After(time.Duration(try) * allocationBackoff):
			}
		}
		addr, err := r.cfg.Allocate(ctx)
		if err != nil {
			if last != nil {
				return nil, fmt.Errorf("%v; then allocation: %w", last, err)
			}
			return nil, fmt.Errorf("allocation: %w", err)
		}
		l, err := r.linkTo(addr)
		if err != nil {
			return nil, err
		}
		// Counted from now (link.holds), and kept in RemoteConfig.AllocatedFile before the
		// start is sent: a lobby that dies once the host runs the game finds it again.
		l.reserve()
		r.saveAllocated()
		if err := l.waitUp(ctx); err != nil {
			l.mu.Lock()
			l.starting--
			l.mu.Unlock()
			l.changed()
			return nil, fmt.Errorf("allocated host %s: not connected in time", addr)
		}
		g, err := l.start(spec, deadline)
		if err == nil {
			return g, nil
		}
		l.changed()
		if !errors.Is(err, errNoAnswer) {
			l.failed()
		}
		last = fmt.Errorf("allocated host %s: %w", addr, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, last
}

// maxAllocations bounds the allocations one START tries (within the start's deadline), and
// allocationBackoff is the pause before the second (then twice it before the third, ...).
const (
	maxAllocations    = 8
	allocationBackoff = 20 * time.Millisecond
)

// waitUp waits until l is connected, or ctx ends.
func (l *link) waitUp(ctx context.Context) error {
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for !l.view().Up {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// errNoAnswer is the error of a request the host did not answer in time.
var errNoAnswer = errors.New("no answer in time")

// errHostLost is the error of requests pending on a host whose connection failed.
var errHostLost = errors.New("the game host stopped answering")

// link is the lobby's connection to one host.
type link struct {
	r       *Remote
	addr    string
	udpHost string // the host of addr: where players send UDP unless the host names another
	dynamic bool   // allocated (Allocate), not of -hosts: forgotten once unreachable
	// restored: an allocated host of the lobby's earlier run (RemoteConfig.AllocatedFile),
	// counted by Attached; pinned until its first attached (then it holds only what it
	// handed back).
	restored bool

	mu       sync.Mutex
	c        *Conn // nil while down
	load     Load
	starting int // starts sent, not answered (HostView.Starting)
	// suspectUntil is when l is no longer suspect (missed); suspectFor its last suspicion
	// (0: it answered the last start), suspected its misses in all (HostView.Suspected).
	suspectUntil time.Time
	suspectFor   time.Duration
	suspected    uint64
	failures     uint64 // starts refused or failed (HostView.Failed)
	pinned       bool   // restored, not attached yet (link.holds)
	// has are the hashes of the stage files the host of this session has: its own (its first
	// load) and those sent to it (stages.go).
	has map[string]bool
	// sendMu keeps a start's stage messages and the start together on the connection.
	sendMu sync.Mutex
	nextID uint64
	games  map[uint64]*RemoteGame
	// away are the games of a connection that failed, kept for RemoteConfig.HostGrace: a
	// running (or ended) for one of them on the next connection takes it back.
	away    map[uint64]*RemoteGame
	pending map[uint64]chan *Msg
	parts   replayParts // of the current session (its reader goroutine's alone)
	// tried is closed once the first connection handed back this lobby's games (attached),
	// or failed, or Run ended before it (Remote.Attached).
	tried     chan struct{}
	triedOnce sync.Once
	down      downLog // run's goroutine's alone
}

func (l *link) view() HostView {
	l.mu.Lock()
	defer l.mu.Unlock()
	return HostView{Addr: l.addr, Up: l.c != nil, Load: l.load, Starting: l.starting,
		Suspect: time.Now().Before(l.suspectUntil), Suspected: l.suspected, Failed: l.failures}
}

func (l *link) run(ctx context.Context) {
	wait := l.r.cfg.Redial
	downSince := time.Now()
	defer l.loseAway(nil, "the lobby stops")
	defer l.markTried()
	for ctx.Err() == nil {
		err := l.session(ctx)
		l.markTried()
		if ctx.Err() != nil {
			return
		}
		if err != nil && errors.Is(err, syscall.ECONNREFUSED) {
			// Nothing listens on the control port: the host's process is gone, and its games
			// with it.
			l.loseAway(nil, "its control port refuses connections")
		}
		now := time.Now()
		if err == nil {
			downSince = now
		}
		if l.dynamic && now.Sub(downSince) >= DynamicGiveUp {
			l.r.log.Info("allocated game host forgotten: unreachable", "host", l.addr, "for", now.Sub(downSince).Round(time.Second),
				"dials_failed", l.down.failed)
			return
		}
		if line, failed := l.down.fail(now, err == nil); line {
			if err == nil {
				l.r.log.Warn("game host down", "host", l.addr, "retry_in", wait)
			} else {
				l.r.log.Warn("game host down", "host", l.addr, "err", err, "for", now.Sub(l.down.since).Round(time.Second),
					"dials_failed", failed, "next_line_in", l.down.every)
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(wait*2, 16*l.r.cfg.Redial)
		if err == nil {
			wait = l.r.cfg.Redial // it was up: retry soon
		}
	}
}

// A host that stays down is logged when it goes down (or its first dial fails), then again
// DownLogEvery later, then twice that after, and so on up to MaxDownLogEvery, each line with
// the dials that failed since it went down; the redials themselves go on every few seconds.
// When it is back, one line says how long it was down and how many dials failed.
const (
	DownLogEvery    = 30 * time.Second
	MaxDownLogEvery = 30 * time.Minute
)

// downLog decides which of a down host's failed dials are logged (a pure state machine: the
// times are given; link.run's goroutine alone uses it).
type downLog struct {
	down   bool
	since  time.Time     // when it went down
	next   time.Time     // the next line is due
	every  time.Duration // the wait before the next line
	failed int           // dials failed since it went down
}

// fail records a failed dial (lost: the host had been up, nothing was dialled) at now and
// reports whether to log it, with the dials failed so far.
func (d *downLog) fail(now time.Time, lost bool) (line bool, failed int) {
	if !d.down {
		*d = downLog{down: true, since: now, next: now.Add(DownLogEvery), every: DownLogEvery}
		if !lost {
			d.failed = 1
		}
		return true, d.failed
	}
	if !lost {
		d.failed++
	}
	if now.Before(d.next) {
		return false, d.failed
	}
	d.every = min(2*d.every, MaxDownLogEvery)
	d.next = now.Add(d.every)
	return true, d.failed
}

// up reports whether the host was down (then how long, and the dials that failed) and
// forgets it.
func (d *downLog) up(now time.Time) (was bool, downFor time.Duration, failed int) {
	was, downFor, failed = d.down, now.Sub(d.since), d.failed
	*d = downLog{}
	return was, downFor, failed
}

// session dials the host, authenticates and reads its messages until the connection fails;
// then the games on it end as aborted and pending requests fail. The error is nil when the
// host had been up.
func (l *link) session(ctx context.Context) error {
	dial := l.r.cfg.Dial
	if dial == nil {
		d := net.Dialer{Timeout: HandshakeTimeout}
		dial = func(ctx context.Context, addr string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
	}
	nc, err := dial(ctx, l.addr)
	if err != nil {
		return err
	}
	if l.r.cfg.TLS != nil {
		tc := l.r.cfg.TLS.Clone()
		if tc.ServerName == "" {
			tc.ServerName = l.udpHost
		}
		nc = tls.Client(nc, tc)
	}
	nc.SetDeadline(time.Now().Add(HandshakeTimeout))
	secret, err := channelSecret(nc, l.r.cfg.Secret)
	if err != nil {
		nc.Close()
		return err
	}
	c, err := ClientHandshake(nc, secret, nil)
	if err != nil {
		nc.Close()
		return err
	}
	stop := context.AfterFunc(ctx, func() {
		if l.r.cfg.ID != "" && !l.r.crashed.Load() {
			_ = c.Write(encode(&Msg{Type: TypeBye})) // the lobby stops: its games end (§4.3)
		}
		c.Close()
	})
	defer stop()
	if l.r.cfg.ID != "" {
		if err := c.Write(encode(&Msg{Type: TypeHello, Lobby: l.r.cfg.ID})); err != nil {
			c.Close()
			return err
		}
	}
	// The host speaks first after the handshake (its load): only then is it up.
	b, err := c.Read(time.Now().Add(5 * l.r.cfg.Ping))
	var m *Msg
	if err == nil {
		m, err = decode(b)
	}
	if err != nil {
		c.Close()
		return err
	}
	l.mu.Lock()
	l.c = c
	l.has = map[string]bool{}
	for _, h := range m.Stages {
		l.has[h] = true
	}
	l.mu.Unlock()
	l.parts = replayParts{}
	if l.r.cfg.ID == "" {
		l.markTried() // no hello, so no games handed back
	}
	if was, downFor, failed := l.down.up(time.Now()); was {
		l.r.log.Info("game host up", "host", l.addr, "was_down_for", downFor.Round(time.Millisecond), "dials_failed", failed)
	} else {
		l.r.log.Info("game host up", "host", l.addr)
	}
	quit := make(chan struct{})
	pinged := make(chan struct{})
	go func() {
		defer close(pinged)
		t := time.NewTicker(l.r.cfg.Ping)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				if c.Write(encode(&Msg{Type: TypePing})) != nil {
					c.Close()
				}
			}
		}
	}()
	for {
		l.handle(m)
		b, err = c.Read(time.Now().Add(5 * l.r.cfg.Ping))
		if err == nil {
			m, err = decode(b)
		}
		if err != nil {
			break
		}
	}
	c.Close()
	close(quit)
	<-pinged
	l.mu.Lock()
	l.c = nil
	games, pending := l.games, l.pending
	l.games, l.pending = map[uint64]*RemoteGame{}, map[uint64]chan *Msg{}
	l.mu.Unlock()
	for _, ch := range pending {
		close(ch)
	}
	l.parts = replayParts{} // a replay being received is dropped with its game
	if len(games) == 0 {
		return nil
	}
	defer l.changed()
	if grace := l.r.cfg.HostGrace; grace > 0 && l.r.cfg.ID != "" && ctx.Err() == nil && !l.r.crashed.Load() {
		// The host keeps them (§4.3): kept here too for the grace, while the lobby redials.
		l.mu.Lock()
		for id, g := range games {
			l.away[id] = g
		}
		l.mu.Unlock()
		l.r.log.Warn("game host connection lost: its games are kept while it is redialled", "host", l.addr, "games", len(games), "grace", grace, "err", err)
		time.AfterFunc(grace, func() { l.loseAway(games, "no answer within the grace") })
		return nil
	}
	l.lose(games, err)
	return nil
}

// loseAway ends as lost the games of which (nil: all) that are still away (a connection
// failed and no later one took them back): their grace is over, or the host is known gone.
func (l *link) loseAway(which map[uint64]*RemoteGame, why string) {
	l.mu.Lock()
	gone := map[uint64]*RemoteGame{}
	for id, g := range l.away {
		if which == nil || which[id] == g {
			gone[id] = g
			delete(l.away, id)
		}
	}
	l.mu.Unlock()
	if len(gone) > 0 {
		l.lose(gone, errors.New(why))
		l.changed()
	}
}

// lose ends games as lost: their host's connection failed (and their grace, if any, is over).
func (l *link) lose(games map[uint64]*RemoteGame, err error) {
	for _, g := range games {
		if l.r.crashed.Load() { // left to the host for the next lobby: not ended here
			g.end(2, true)
			continue
		}
		l.r.markLost(g.spec.ID)
		l.ended(g, GameEnd{Result: 2, Lost: true})
	}
	if len(games) > 0 && !l.r.crashed.Load() {
		l.r.log.Warn("game host lost: its games ended as aborted", "host", l.addr, "games", len(games), "err", err)
	}
}

// takeBack moves game id from away (a connection failed under it) back to l.games: the host
// named it on the connection of now. It returns the game, nil when id is not away. Under l.mu.
func (l *link) takeBack(id uint64) *RemoteGame {
	g := l.away[id]
	if g != nil {
		delete(l.away, id)
		l.games[id] = g
	}
	return g
}

func (l *link) handle(m *Msg) {
	l.mu.Lock()
	if m.Load != nil {
		l.load = *m.Load
	}
	switch m.Type {
	case TypeReply:
		ch := l.pending[m.ID]
		delete(l.pending, m.ID)
		l.mu.Unlock()
		if ch != nil {
			ch <- m
		}
		return
	case TypeRunning:
		if g := l.takeBack(m.Game); g != nil {
			l.mu.Unlock()
			l.r.log.Info("game host back within the grace: its game goes on", "host", l.addr, "code", g.spec.Code, "game", g.spec.ID)
			return
		}
		l.mu.Unlock()
		l.adopt(m)
		return
	case TypeAttached:
		pinned := l.pinned
		l.pinned = false // it holds what it handed back (running), if anything
		l.mu.Unlock()
		l.loseAway(nil, "the host no longer runs them")
		l.markTried()
		if pinned {
			l.changed()
		}
		return
	case TypeReplay:
		if l.games[m.Game] == nil {
			l.takeBack(m.Game) // a game that ended while its host was away
		}
		g := l.games[m.Game]
		l.mu.Unlock()
		if g == nil && l.r.cfg.ID == "" {
			// A lobby that named itself takes the replay of a game it does not know: the
			// ended after it carries the game (a game of its earlier run, §4.3).
			l.r.log.Warn("replay part of no running game ignored", "host", l.addr, "game", m.Game)
			return
		}
		if err := l.parts.add(m.Game, m.Part, m.Parts, m.Data); err != nil && !errors.Is(err, errRefusedBefore) {
			l.r.log.Warn("game host sent a bad replay: the game is kept without it", "host", l.addr, "game", m.Game, "err", err)
		}
		return
	case TypeEnded:
		if l.games[m.Game] == nil {
			l.takeBack(m.Game)
		}
		g := l.games[m.Game]
		delete(l.games, m.Game)
		l.mu.Unlock()
		if g == nil {
			if g = l.adopted(m); g == nil {
				return
			}
		}
		end := GameEnd{Result: m.Result, Record: m.Record}
		rp, err := l.parts.take(m.Game)
		if err != nil && !errors.Is(err, errRefusedBefore) {
			l.r.log.Warn("game host sent a bad replay: the game is kept without it", "host", l.addr, "code", g.spec.Code, "err", err)
		}
		end.Replay = rp
		if end.Record != nil {
			if err := end.Record.Check(len(g.spec.Members)); err != nil {
				l.r.log.Warn("game host sent a bad record: the game is kept without its figures", "host", l.addr, "code", g.spec.Code, "err", err)
				end.Record = nil
			}
		}
		l.ended(g, end)
		l.changed() // its last game, maybe
		return
	case TypeGone:
		g := l.games[m.Game]
		l.mu.Unlock()
		if g != nil {
			g.gone(m.Members)
		}
		return
	}
	l.mu.Unlock()
}

// adopt takes a game the host runs for this lobby's earlier run (running, §4.3): its end
// comes to this lobby (OnGameEnd: the hall of fame keeps it).
func (l *link) adopt(m *Msg) {
	g := l.adopted(m)
	if g == nil {
		return
	}
	g.port, g.host = m.Port, m.Host
	if g.host == "" {
		g.host = l.udpHost
	}
	l.mu.Lock()
	if l.c == nil || l.games[m.Game] != nil {
		l.mu.Unlock()
		return
	}
	l.games[m.Game] = g
	l.nextID = max(l.nextID, m.Game) // not reused
	l.mu.Unlock()
	l.r.log.Info("game of an earlier run of this lobby taken back from its host", "host", l.addr, "code", g.spec.Code, "game", g.spec.ID, "players", len(g.spec.Members))
	if f := l.r.cfg.OnAdopt; f != nil {
		f(g.spec, g)
	}
}

// adopted is the RemoteGame of a game the lobby does not know, from the spec the host sent
// with it (running, ended); nil when there is none, it is bad, or the lobby ended the game
// already (its host was lost meanwhile: it is kept as aborted).
func (l *link) adopted(m *Msg) *RemoteGame {
	if m.Spec == nil || l.r.cfg.ID == "" {
		return nil
	}
	spec, err := m.Spec.gameSpec()
	if err != nil || spec.ID == (uuid.UUID{}) {
		l.r.log.Warn("game of an earlier run from the host refused", "host", l.addr, "game", m.Game, "err", err)
		return nil
	}
	if l.r.wasLost(spec.ID) {
		return nil
	}
	return &RemoteGame{l: l, spec: spec, id: m.Game, adopted: true, done: make(chan struct{}), goneCh: make(chan struct{}, 1)}
}

// ended hands g's end to OnGameEnd, then to the lobby.
func (l *link) ended(g *RemoteGame, end GameEnd) {
	if f := l.r.cfg.OnGameEnd; f != nil && g.claimEnd() {
		f(g.spec, end)
	}
	g.end(end.Result, end.Lost)
}

// request sends m (its ID set here) and waits for the host's reply until deadline; before,
// when set, sends what must precede m on the connection (a start's stages). A host that does
// not answer in time fails this request only.
func (l *link) request(m *Msg, deadline time.Time, reserve func(id uint64), before func(c *Conn) error) (*Msg, error) {
	l.mu.Lock()
	c := l.c
	if c == nil {
		l.mu.Unlock()
		return nil, errHostLost
	}
	l.nextID++
	m.ID = l.nextID
	ch := make(chan *Msg, 1)
	l.pending[m.ID] = ch
	if reserve != nil {
		reserve(m.ID)
	}
	l.mu.Unlock()
	l.sendMu.Lock()
	err := error(nil)
	if before != nil {
		err = before(c)
	}
	if err == nil {
		err = c.Write(encode(m))
	}
	l.sendMu.Unlock()
	if err != nil {
		l.mu.Lock()
		delete(l.pending, m.ID)
		l.mu.Unlock()
		c.Close()
		return nil, errHostLost
	}
	wait := time.Until(deadline)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case rep, ok := <-ch:
		if !ok {
			return nil, errHostLost
		}
		if rep.Error != "" {
			return nil, errors.New(rep.Error)
		}
		return rep, nil
	case <-t.C:
		// The connection stays (its heartbeat tells whether the host is alive; closing it would
		// end every game the host runs for this lobby). A start it carries out late makes a game
		// nobody joins: the host ends it at its HERE timeout.
		l.mu.Lock()
		delete(l.pending, m.ID)
		l.mu.Unlock()
		l.r.log.Warn("game host did not answer in time", "host", l.addr, "request", m.Type, "timeout", wait)
		return nil, errNoAnswer
	}
}

// start hands spec to l's host (after reserve) and waits for its reply until deadline.
func (l *link) start(spec handoff.GameSpec, deadline time.Time) (*RemoteGame, error) {
	defer func() {
		l.mu.Lock()
		l.starting-- // reserve's; the reply's load counts the game (counted twice meanwhile: harmless)
		l.mu.Unlock()
	}()
	g := &RemoteGame{l: l, spec: spec, done: make(chan struct{}), goneCh: make(chan struct{}, 1)}
	var sent []string
	rep, err := l.request(&Msg{Type: TypeStart, Spec: specOf(spec)}, deadline, func(id uint64) {
		g.id = id
		l.games[id] = g // before the reply: an ended right after it finds the game
	}, func(c *Conn) (err error) {
		sent, err = l.sendStages(c, spec)
		return err
	})
	if err != nil {
		l.mu.Lock()
		delete(l.games, g.id)
		for _, h := range sent { // sent again with the next start (the host may have refused it)
			delete(l.has, h)
		}
		l.mu.Unlock()
		return nil, err
	}
	if rep.Port < 1 || rep.Port > 65535 {
		return nil, fmt.Errorf("the host answered port %d", rep.Port)
	}
	g.port, g.host = rep.Port, rep.Host
	if g.host == "" {
		g.host = l.udpHost
	}
	return g, nil
}

// RemoteGame is a game running on a host, as the lobby sees it (handoff.Game, Rejoiner,
// Spectatable, SpectatorReporter, and Host for the START push's host field).
type RemoteGame struct {
	l    *link
	spec handoff.GameSpec
	id   uint64
	port int
	host string

	// adopted: a game of an earlier run of this lobby, handed back by its host (§4.3): its
	// lobby is recreated (RemoteConfig.OnAdopt) and its players may RESUME; its end is kept.
	adopted bool

	mu       sync.Mutex
	ended    bool
	reported bool // handed to OnGameEnd
	result   uint8
	lost     bool // the host's connection failed
	goneList []handoff.Member
	done     chan struct{}
	goneCh   chan struct{}
}

var (
	_ handoff.Game              = (*RemoteGame)(nil)
	_ handoff.Rejoiner          = (*RemoteGame)(nil)
	_ handoff.Spectatable       = (*RemoteGame)(nil)
	_ handoff.SpectatorReporter = (*RemoteGame)(nil)
	_ handoff.HostedGame        = (*RemoteGame)(nil)
)

// Port is the UDP port players send to on Host.
func (g *RemoteGame) Port() int { return g.port }

// Host is the address players send UDP to (handoff.HostedGame).
func (g *RemoteGame) Host() string { return g.host }

// Done is closed when the game is over.
func (g *RemoteGame) Done() <-chan struct{} { return g.done }

// Result is how the game ended (2, aborted, when its host was lost).
func (g *RemoteGame) Result() uint8 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.result
}

// Lost reports whether the game ended because its host stopped answering.
func (g *RemoteGame) Lost() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lost
}

func (g *RemoteGame) end(result uint8, lost bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ended {
		return
	}
	g.ended, g.result, g.lost = true, result, lost
	close(g.done)
}

// claimEnd reports whether this is the first end of g handed to OnGameEnd.
func (g *RemoteGame) claimEnd() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ended || g.reported {
		return false
	}
	g.reported = true
	return true
}

func (g *RemoteGame) gone(ms []Member) {
	g.mu.Lock()
	for _, m := range ms {
		if lm, err := m.lobbyMember(); err == nil {
			g.goneList = append(g.goneList, lm)
		}
	}
	g.mu.Unlock()
	select {
	case g.goneCh <- struct{}{}:
	default:
	}
}

// Drop tells the host to remove the player (sent without waiting: the lobby does not block).
func (g *RemoteGame) Drop(id uuid.UUID, left bool) {
	if g.l.r.crashed.Load() {
		return // the lobby leaves its games to the host: its players' connections close with it
	}
	g.l.mu.Lock()
	c := g.l.c
	g.l.mu.Unlock()
	if c != nil {
		go func() {
			if c.Write(encode(&Msg{Type: TypeDrop, Game: g.id, User: id.String(), Left: left})) != nil {
				c.Close()
			}
		}()
	}
}

// Rejoin asks the host to give the away slot m.Slot to m (handoff.Rejoiner).
func (g *RemoteGame) Rejoin(m handoff.Member) error { return g.member(TypeRejoin, m) }

// Spectate asks the host to add m as a spectator (handoff.Spectatable).
func (g *RemoteGame) Spectate(m handoff.Member) error { return g.member(TypeSpectate, m) }

func (g *RemoteGame) member(typ string, m handoff.Member) error {
	wm := memberOf(m)
	_, err := g.l.request(&Msg{Type: typ, Game: g.id, Member: &wm}, time.Now().Add(g.l.r.cfg.StartTimeout), nil, nil)
	return err
}

// SpectatorsGone is signalled when the host reported spectators it dropped.
func (g *RemoteGame) SpectatorsGone() <-chan struct{} { return g.goneCh }

// TakeSpectatorsGone returns them and forgets them.
func (g *RemoteGame) TakeSpectatorsGone() []handoff.Member {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.goneList
	g.goneList = nil
	return out
}
