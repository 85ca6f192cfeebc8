// Package instance runs game instances: each started lobby gets its own UDP socket, a receive
// goroutine and a 60 Hz simulation goroutine that steps game.Sim, applies the players' tick-stamped
// inputs and replicates the world to every client (docs/PROTOCOL.md §3–§6). Instances are
// independent of each other and of the lobby: a panic in one ends that game with GAME_END
// (aborted) and is logged; the others carry on.
package instance

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/linksim"
	"github.com/rtype/rtype/net/replication"
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
	// DeadReckonPx is how far (virtual px) a client's dead-reckoned Position may drift from the
	// server's before the Position is sent again (docs/PROTOCOL.md §5.3).
	DeadReckonPx = 0.5
	// EndLinger is how long an ended game keeps sending so GAME_END gets acknowledged.
	EndLinger = 10 * time.Second
	// ShutdownLinger is the same when the server is shutting down.
	ShutdownLinger = 2 * time.Second
)

// Config configures every instance a Manager starts.
type Config struct {
	// Host is the address game sockets bind to ("" = all interfaces, "127.0.0.1" for tests).
	Host string
	// PortMin..PortMax is the UDP port range for instances; 0,0 lets the OS choose.
	PortMin, PortMax int
	// Stages resolves the stage name a lobby starts with (lobby.Starter) to the stage its game
	// plays (the server's game.StageCatalogue). When nil, every game plays Stage.
	Stages func(name string) (*game.Stage, error)
	// Stage is the stage of every game when Stages is nil (nil: game.NewSim's default, stage1).
	Stage *game.Stage
	// NetSim, when not zero, impairs every instance socket (both directions) with the link simulator.
	NetSim linksim.Config
	// SilenceTimeout drops a player whose datagrams stop (seed 004: PING every 3 s; default 10 s).
	SilenceTimeout time.Duration
	// HereTimeout drops a player who never says HERE (default 20 s).
	HereTimeout time.Duration
	// Seed gives each game its PRNG seed (default: from the clock).
	Seed   func() uint64
	Logger *slog.Logger
	// OnGameEnd, when set, is called with each instance after its game ended (tests).
	OnGameEnd func(in *Instance)
}

// Manager starts instances for the lobby (it implements lobby.Starter) and shuts them down.
type Manager struct {
	cfg    Config
	log    *slog.Logger
	mu     sync.Mutex
	live   map[*Instance]struct{}
	closed bool
	wg     sync.WaitGroup
	nextID atomic.Uint64
}

var _ lobby.Starter = (*Manager)(nil)

// NewManager returns a Manager with cfg's zero fields defaulted.
func NewManager(cfg Config) *Manager {
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
	return &Manager{cfg: cfg, log: cfg.Logger, live: map[*Instance]struct{}{}}
}

// ErrShutdown is returned by StartGame once Shutdown has begun.
var ErrShutdown = errors.New("instance: server shutting down")

// StartGame opens a UDP socket and starts a game for the lobby's members (lobby.Starter).
func (m *Manager) StartGame(code, stageName string, members []lobby.Member) (lobby.Game, error) {
	if len(members) == 0 || len(members) > game.MaxPlayers {
		return nil, fmt.Errorf("instance: %d players (want 1..%d)", len(members), game.MaxPlayers)
	}
	stage := m.cfg.Stage
	if m.cfg.Stages != nil {
		var err error
		if stage, err = m.cfg.Stages(stageName); err != nil {
			return nil, fmt.Errorf("instance: %w", err)
		}
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, ErrShutdown
	}
	m.mu.Unlock()
	sock, err := m.listen()
	if err != nil {
		return nil, err
	}
	in := newInstance(m, code, stage, members, sock)
	m.mu.Lock()
	m.live[in] = struct{}{}
	m.mu.Unlock()
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		in.run()
		m.mu.Lock()
		delete(m.live, in)
		m.mu.Unlock()
	}()
	return in, nil
}

func (m *Manager) listen() (transport.Socket, error) {
	var s *transport.UDPSocket
	var err error
	if m.cfg.PortMin == 0 {
		s, err = transport.ListenUDP(net.JoinHostPort(m.cfg.Host, "0"))
	} else {
		for p := m.cfg.PortMin; p <= m.cfg.PortMax; p++ {
			if s, err = transport.ListenUDP(net.JoinHostPort(m.cfg.Host, strconv.Itoa(p))); err == nil {
				break
			}
		}
		if s == nil && err == nil {
			err = fmt.Errorf("instance: empty port range %d-%d", m.cfg.PortMin, m.cfg.PortMax)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("instance: no UDP port: %w", err)
	}
	if !m.cfg.NetSim.IsZero() {
		return linksim.Wrap(s, m.cfg.NetSim, m.cfg.NetSim), nil
	}
	return s, nil
}

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

// Shutdown ends every running game with GAME_END (aborted), waits for them to close their
// sockets (or for ctx), and refuses new games.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	for in := range m.live {
		in.stop(game.ResultAborted)
	}
	m.mu.Unlock()
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type inputSlot struct {
	tick  uint32
	b     game.Buttons
	valid bool
}

type peer struct {
	member            lobby.Member
	slot              int
	addr              netip.AddrPort
	bound             bool
	gone              bool
	ep                transport.Endpoint
	w                 *replication.Writer
	inputs            [InputWindow + 8]inputSlot
	last              game.Buttons
	legacyDir         game.Buttons
	legacyShot        bool
	usesInput         bool
	joinedAt          time.Duration
	lastHeard         time.Duration
	bytesIn, bytesOut uint64
	dgIn, dgOut       uint64
	snapTick          uint32 // tick of the last snapshot sent (0: none yet)
	// backlog holds the reliable commands (framed, back to back) for a peer not bound yet: its
	// reliable channel starts with WELCOME, then these (docs/PROTOCOL.md §5.5).
	backlog []byte
}

// maxBacklog bounds the reliable commands kept for a peer that has not said HERE yet (it is
// dropped 20 s after the start anyway).
const maxBacklog = 4096

// Instance is one running game (lobby.Game).
type Instance struct {
	m     *Manager
	code  string
	log   *slog.Logger
	sock  transport.Socket
	epoch time.Time

	mu       sync.Mutex
	sim      *game.Sim
	tracker  *replication.Tracker
	peers    []*peer
	over     bool
	endAt    time.Duration
	result   game.Result
	stopReq  chan game.Result
	dropped  [wire.NumReasons]uint64
	spoofed  uint64
	panics   int
	paused   bool
	shutdown bool
	frame    uint32       // loop iterations (60 Hz), the snapshot cadence even while paused
	events   []game.Event // reliable game events sent, for EventLog

	buf  [wire.MaxDatagram]byte
	rbuf [2048]byte

	done     chan struct{}
	finalRes atomic.Uint32
}

func newInstance(m *Manager, code string, stage *game.Stage, members []lobby.Member, sock transport.Socket) *Instance {
	in := &Instance{
		m: m, code: code, sock: sock, epoch: time.Now(),
		log:     m.log.With("lobby", code, "instance", m.nextID.Add(1), "port", sock.LocalAddr().Port()),
		stopReq: make(chan game.Result, 1),
		events:  make([]game.Event, 0, 64),
		done:    make(chan struct{}),
	}
	in.sim = game.NewSim(game.Config{Seed: m.cfg.Seed(), Players: len(members), Stage: stage})
	in.tracker = NewTracker(in.sim)
	in.sim.World().ClearEvents()
	for i, mem := range members {
		p := &peer{member: mem, slot: i, backlog: make([]byte, 0, 256)}
		p.w = replication.NewWriter(in.tracker)
		pw := p.w
		p.ep.OnAck = pw.Acked
		in.peers = append(in.peers, p)
	}
	return in
}

// Port is the instance's UDP port (lobby.Game).
func (in *Instance) Port() int { return int(in.sock.LocalAddr().Port()) }

// Done is closed when the game has ended and its socket is closed (lobby.Game).
func (in *Instance) Done() <-chan struct{} { return in.done }

// Result is how the game ended, valid after Done (lobby.Game): 0 defeat, 1 victory, 2 aborted.
func (in *Instance) Result() uint8 { return uint8(in.finalRes.Load()) }

// Drop removes a player who left the lobby mid-game (lobby.Game); the others carry on.
func (in *Instance) Drop(id uuid.UUID) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.over || in.shutdown {
		return // the game is over (or ending): the lobby connection closing is no news
	}
	for _, p := range in.peers {
		if p.member.UUID == id && !p.gone {
			in.dropPeer(p, wire.ByeKicked, "left the lobby")
		}
	}
}

func (in *Instance) stop(r game.Result) {
	select {
	case in.stopReq <- r:
	default:
	}
}

func (in *Instance) now() time.Duration { return time.Since(in.epoch) }

// run is the instance's life: the receive goroutine and the simulation loop.
func (in *Instance) run() {
	in.log.Info("game started", "players", len(in.peers))
	var wg sync.WaitGroup
	quit := make(chan struct{})
	wg.Add(1)
	go func() { defer wg.Done(); in.receiveLoop(quit) }()
	res := in.simLoop()
	close(quit)
	_ = in.sock.Close()
	wg.Wait()
	in.finalRes.Store(uint32(res))
	if in.m.cfg.OnGameEnd != nil {
		in.m.cfg.OnGameEnd(in)
	}
	in.log.Info("game ended", "result", res.String(), "tick", in.sim.Tick(), "dropped_datagrams", in.droppedTotal())
	close(in.done)
}

func (in *Instance) droppedTotal() uint64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	t := in.spoofed
	for _, n := range in.dropped {
		t += n
	}
	return t
}

// simLoop steps the simulation at 60 Hz until the game is over and GAME_END is delivered (or
// EndLinger passed). A panic inside the simulation ends the game as aborted; the loop then only
// delivers GAME_END.
func (in *Instance) simLoop() game.Result {
	const tick = time.Second / game.TickRate
	next := time.Now()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case r := <-in.stopReq:
			in.mu.Lock()
			in.shutdown = true
			in.broadcastEnd(r)
			in.mu.Unlock()
		case <-timer.C:
		}
		finished, res := in.safeTick(&next, tick)
		if finished {
			return res
		}
		timer.Reset(time.Until(next))
	}
}

func (in *Instance) safeTick(next *time.Time, tick time.Duration) (finished bool, res game.Result) {
	defer func() {
		if r := recover(); r != nil {
			in.log.Error("game instance panicked; ending the game", "panic", fmt.Sprint(r))
			in.mu.Lock()
			if in.over {
				in.result = game.ResultAborted
			}
			in.broadcastEnd(game.ResultAborted)
			in.panics++
			in.mu.Unlock()
			*next = time.Now().Add(tick)
			finished, res = in.panics > 3, game.ResultAborted
		}
	}()
	return in.tickOnce(next, tick)
}

// tickOnce runs the ticks that are due (at most 5, then skips ahead instead of spiralling) and
// reports whether the ended game may close. The lock is released even if the simulation panics.
func (in *Instance) tickOnce(next *time.Time, tick time.Duration) (finished bool, res game.Result) {
	in.mu.Lock()
	defer in.mu.Unlock()
	now := in.now()
	steps := 0
	for !time.Now().Before(*next) && steps < 5 {
		if !in.over {
			in.step(now)
		}
		in.sendAll(now)
		*next = next.Add(tick)
		steps++
	}
	if steps == 5 {
		*next = time.Now().Add(tick)
	}
	linger := EndLinger
	if in.shutdown {
		linger = ShutdownLinger
	}
	return in.over && (now-in.endAt > linger || in.allDelivered()), in.result
}

func (in *Instance) allDelivered() bool {
	for _, p := range in.peers {
		if !p.gone && p.bound && p.ep.Pending() > 0 {
			return false
		}
	}
	return true
}

// stepHook, when set (tests only, before any instance starts), runs at the start of every step.
var stepHook func(in *Instance)

// step runs one tick: inputs, simulation, events, timeouts. Called with in.mu held.
func (in *Instance) step(now time.Duration) {
	if stepHook != nil {
		stepHook(in)
	}
	t := uint32(in.sim.Tick()) + 1 // the tick this step produces
	active := 0
	for _, p := range in.peers {
		if p.gone {
			continue
		}
		if (!p.bound && now-p.joinedAt > in.m.cfg.HereTimeout) || (p.bound && now-p.lastHeard > in.m.cfg.SilenceTimeout) {
			in.dropPeer(p, wire.ByeTimeout, "silent")
			continue
		}
		active++
		b := p.last
		s := &p.inputs[t%uint32(len(p.inputs))]
		if s.valid && s.tick == t {
			b = s.b
			s.valid = false
		} else if !p.usesInput {
			b = p.legacyDir
			if p.legacyShot {
				b |= game.BtnFire
				p.legacyShot = false
			}
		}
		p.last = b
		in.sim.SetInput(p.slot, game.Input{Buttons: b})
	}
	if active == 0 {
		in.log.Info("every player left")
		in.broadcastEnd(game.ResultAborted)
		return
	}
	if in.paused {
		return
	}
	in.sim.Step()
	in.replicateEvents()
	for _, ev := range in.sim.Events() {
		in.events = append(in.events, ev) // formatted only by EventLog (tests)
		switch ev.Kind {
		case game.EventDeath:
			in.broadcastReliable(wire.Death{Entity: uint64(ev.Entity), Slot: ev.Slot, Lives: ev.Lives}.Append(in.scratch()))
			in.log.Info("player died", "slot", ev.Slot, "lives", ev.Lives)
		case game.EventMusic:
			in.broadcastReliable(wire.Music{Song: ev.Song}.Append(in.scratch()))
		case game.EventGameEnd:
			in.broadcastEnd(ev.Result)
		}
	}
}

func (in *Instance) scratch() []byte { return in.buf[:0] }

// replicateEvents turns the world's destroy/remove events into reliable DEL_ENT / DEL_COMP.
func (in *Instance) replicateEvents() {
	w := in.sim.World()
	evs := w.Events()
	in.tracker.Observe(evs)
	for i := range evs {
		ev := &evs[i]
		switch ev.Kind {
		case ecs.EventDestroyed:
			for _, p := range in.peers {
				if !p.gone && p.w.Destroyed(ev.Entity) {
					in.sendReliable(p, wire.DelEnt{Entity: uint64(ev.Entity)}.Append(in.scratch()))
				}
			}
		case ecs.EventRemoved:
			for _, p := range in.peers {
				if !p.gone && p.w.Removed(ev.Entity, ev.Component) {
					in.sendReliable(p, wire.DelComp{Entity: uint64(ev.Entity), Component: uint32(ev.Component)}.Append(in.scratch()))
				}
			}
		}
	}
	w.ClearEvents()
}

func (in *Instance) broadcastEnd(r game.Result) {
	if in.over {
		return
	}
	in.over, in.result, in.endAt = true, r, in.now()
	in.broadcastReliable(wire.GameEnd{Result: uint8(r)}.Append(in.scratch()))
}

func (in *Instance) broadcastReliable(cmd []byte) {
	for _, p := range in.peers {
		if !p.gone {
			in.sendReliable(p, cmd)
		}
	}
}

func (in *Instance) sendReliable(p *peer, cmd []byte) {
	if !p.bound {
		if len(p.backlog)+len(cmd) <= maxBacklog {
			p.backlog = append(p.backlog, cmd...)
		}
		return
	}
	if err := p.ep.SendReliable(cmd); err != nil {
		in.dropPeer(p, wire.ByeKicked, err.Error())
	}
}

// dropPeer removes p from the game and tells it why with a BYE, unless it left by itself
// (reason ByeLeft: it said BYE).
func (in *Instance) dropPeer(p *peer, reason uint8, why string) {
	if p.gone {
		return
	}
	if p.bound && !in.over && reason != wire.ByeLeft {
		b := in.header(p, in.scratch())
		b = wire.Bye{Reason: reason}.Append(b)
		in.write(p, b)
	}
	p.gone = true
	if !in.over {
		in.sim.RemovePlayer(p.slot)
	}
	in.log.Info("player dropped", "slot", p.slot, "name", p.member.Name, "reason", why)
}

// header appends p's next datagram header. Its tick is that of the last snapshot sent to p (the
// simulation tick before the first one), so a newer tick always means a new snapshot
// (docs/PROTOCOL.md §5.2); sendAll sets it on snapshot ticks.
func (in *Instance) header(p *peer, buf []byte) []byte {
	seq, ack, bits, rel := p.ep.HeaderFields(in.now())
	tick := p.snapTick
	if tick == 0 {
		tick = uint32(in.sim.Tick())
	}
	h := wire.Header{Token: p.member.Token, Tick: tick, Seq: seq, Ack: ack, AckBits: bits, RelAck: rel}
	return h.Append(buf)
}

func (in *Instance) write(p *peer, b []byte) {
	if _, err := in.sock.WriteTo(b, p.addr); err == nil {
		p.bytesOut += uint64(len(b))
		p.dgOut++
	}
}

func relAppend(buf []byte, id uint16) []byte { return wire.Rel{ID: id}.Append(buf) }

// sendAll sends each bound client its due reliable commands and, on snapshot ticks, a snapshot.
func (in *Instance) sendAll(now time.Duration) {
	in.frame++
	tick := in.frame
	for _, p := range in.peers {
		if p.gone || !p.bound {
			continue
		}
		every := uint32(SnapshotEvery)
		if p.ep.LossOut(now) > 0.1 {
			every = CongestedSnapshotEvery
		}
		snapshot := tick%every == 0 || in.over
		if !snapshot && p.ep.Pending() == 0 {
			continue
		}
		// Unacknowledged state goes out again after about one RTT, but at least every
		// MaxStateResend: on a jittery link an ack can take far longer than the mean RTT, and
		// waiting for it would leave a lost spawn missing for a second or more.
		p.w.ResendTicks = min(ecs.Tick(p.ep.RTT()*game.TickRate/time.Second)+4, MaxStateResendTicks)
		p.w.Clock = ecs.Tick(in.frame)
		if snapshot {
			p.snapTick = uint32(in.sim.Tick())
		}
		for d := 0; d < MaxDatagramsPerSnapshot; d++ {
			seq := p.ep.Seq()
			b := in.header(p, in.scratch())
			b = p.ep.AppendReliable(b, wire.MaxDatagram, now, relAppend)
			more := false
			if snapshot {
				b, more = p.w.AppendSnapshot(b, wire.MaxDatagram, seq)
			}
			in.write(p, b)
			if !more {
				break
			}
		}
	}
}

// receiveLoop reads datagrams until quit, dropping (and counting) every invalid one.
func (in *Instance) receiveLoop(quit <-chan struct{}) {
	transport.ReadLoop(in.sock, in.rbuf[:], quit, in.handle)
}

// handle processes one datagram from addr.
func (in *Instance) handle(b []byte, from netip.AddrPort) {
	var h wire.Header
	r, err := wire.Open(b, &h)
	in.mu.Lock()
	defer in.mu.Unlock()
	if err != nil {
		i := wire.ReasonIndex(err)
		in.dropped[i]++
		in.log.Debug("datagram dropped", "reason", wire.Reasons[i], "from", from)
		return
	}
	var p *peer
	for _, q := range in.peers {
		if q.member.Token == h.Token {
			p = q
		}
	}
	if p == nil {
		in.dropped[wire.ReasonIndex(wire.ErrToken)]++
		return
	}
	if p.gone {
		return // a dropped player's last datagrams: expected, not an attack
	}
	// Only HERE with the member's uuid may bind (or rebind) an address to the token.
	if !p.bound || p.addr != from {
		if !in.isHere(r, p) {
			in.spoofed++
			in.log.Debug("datagram dropped", "reason", "spoofed source", "from", from)
			return
		}
		if !p.bound {
			in.log.Info("player here", "slot", p.slot, "name", p.member.Name, "addr", from)
		}
		first := !p.bound
		p.bound, p.addr = true, from
		if first {
			in.sendReliable(p, wire.Welcome{Entity: uint64(in.sim.PlayerEntity(p.slot)), Slot: uint8(p.slot), Tick: uint32(in.sim.Tick()), TickRate: game.TickRate}.Append(in.scratch()))
			for b := p.backlog; len(b) >= 2; { // the events before HERE, after WELCOME
				n := 2 + int(binary.LittleEndian.Uint16(b))
				in.sendReliable(p, b[:n])
				b = b[n:]
			}
			p.backlog = p.backlog[:0]
		}
		// Answer at once with REL+WELCOME alone: never larger than the HERE datagram that caused
		// it (docs/PROTOCOL.md §6).
		out := in.header(p, in.scratch())
		out = p.ep.AppendReliable(out, len(b), in.now(), relAppend)
		in.write(p, out)
	}
	now := in.now()
	p.lastHeard = now
	p.bytesIn += uint64(len(b))
	p.dgIn++
	if p.ep.Receive(h.Seq, h.Ack, h.AckBits, h.RelAck, now) {
		return // duplicate datagram
	}
	skip := false
	for r.Next() {
		if skip {
			skip = false
			continue
		}
		cmd := r.Cmd()
		switch r.ID() {
		case wire.CmdRel:
			var c wire.Rel
			if _, err := c.Parse(cmd); err == nil && !p.ep.AcceptReliable(c.ID) {
				skip = true
			}
		case wire.CmdInput:
			var c wire.Input
			if _, err := c.Parse(cmd); err == nil {
				in.acceptInput(p, &c)
			}
		case wire.CmdActMove:
			var c wire.ActMove
			if _, err := c.Parse(cmd); err == nil {
				p.legacyDir = game.Buttons(c.Dir)
			}
		case wire.CmdActShoot:
			p.legacyShot = true
		case wire.CmdPing:
			var c wire.Ping
			if _, err := c.Parse(cmd); err == nil {
				out := in.header(p, in.scratch())
				out = c.Append(out)
				in.write(p, out)
			}
		case wire.CmdGetEnt:
			var c wire.GetEnt
			if _, err := c.Parse(cmd); err == nil {
				e := ecs.Entity(c.Entity)
				if in.sim.World().Alive(e) {
					p.w.Forget(e)
				} else {
					in.sendReliable(p, wire.DelEnt{Entity: c.Entity}.Append(in.scratch()))
				}
			}
		case wire.CmdBye:
			in.dropPeer(p, wire.ByeLeft, "said BYE")
			return
		}
	}
}

func (in *Instance) isHere(r wire.Reader, p *peer) bool {
	for r.Next() {
		if r.ID() == wire.CmdHere {
			var c wire.Here
			if _, err := c.Parse(r.Cmd()); err == nil && uuid.UUID(c.UUID) == p.member.UUID {
				return true
			}
		}
	}
	return false
}

// acceptInput stores tick-stamped inputs within the window: past ticks are ignored (never
// rewrite the past), far-future ticks are dropped, so a flood cannot queue unbounded input.
func (in *Instance) acceptInput(p *peer, c *wire.Input) {
	p.usesInput = true
	cur := uint32(in.sim.Tick())
	for i := 0; i < int(c.Count); i++ {
		t := c.Ticks[i]
		if int32(t-cur) <= 0 || t-cur > InputWindow {
			continue
		}
		s := &p.inputs[t%uint32(len(p.inputs))]
		if !s.valid || s.tick != t {
			*s = inputSlot{tick: t, b: game.Buttons(c.Buttons[i]), valid: true}
		}
	}
}

func eventString(ev game.Event) string {
	switch ev.Kind {
	case game.EventDeath:
		return fmt.Sprintf("death:%d:%d", ev.Slot, ev.Lives)
	case game.EventMusic:
		return fmt.Sprintf("music:%d", ev.Song)
	case game.EventGameEnd:
		return "game_end:" + ev.Result.String()
	}
	return "?"
}

// EventLog lists the game events this instance sent reliably, in order ("death:slot:lives",
// "music:song", "game_end:result"), for tests that check exactly-once, in-order delivery.
func (in *Instance) EventLog() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([]string, len(in.events))
	for i, ev := range in.events {
		out[i] = eventString(ev)
	}
	return out
}

// Pause stops (or resumes) the simulation while replication goes on: a test freezes the world to
// compare every client's mirror with it.
func (in *Instance) Pause(p bool) {
	in.mu.Lock()
	in.paused = p
	in.mu.Unlock()
}

// Stats of one client, for tests and benchmarks.
type PeerStats struct {
	Slot              int
	BytesOut, BytesIn uint64
	DatagramsOut      uint64
	DatagramsIn       uint64
	Resends           uint64
}

// Stats returns per-client traffic figures.
func (in *Instance) Stats() []PeerStats {
	in.mu.Lock()
	defer in.mu.Unlock()
	var out []PeerStats
	for _, p := range in.peers {
		out = append(out, PeerStats{Slot: p.slot, BytesOut: p.bytesOut, BytesIn: p.bytesIn, DatagramsOut: p.dgOut, DatagramsIn: p.dgIn, Resends: p.ep.Resends})
	}
	return out
}

// Dropped returns the count of datagrams dropped per wire.Reasons index, plus those from a
// source address not bound to their token (spoofed).
func (in *Instance) Dropped() (byReason [wire.NumReasons]uint64, spoofed uint64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.dropped, in.spoofed
}

// View runs fn with the server world under the instance lock (tests compare mirrors with it).
func (in *Instance) View(fn func(sim *game.Sim)) {
	in.mu.Lock()
	defer in.mu.Unlock()
	fn(in.sim)
}

// NewTracker prepares the replication of sim's world as an instance does it (docs/PROTOCOL.md
// §5.3–5.6): dead reckoning within DeadReckonPx, Position and Velocity packed as Motion, and no
// DEL_ENT for entities that clients delete by themselves when they leave the field.
func NewTracker(sim *game.Sim) *replication.Tracker {
	tr := replication.NewTracker(sim.World())
	tr.DeadReckon(game.CompPosition, game.CompVelocity, DeadReckonPx, game.TickRate)
	tr.PackMotion()
	tr.PackSpawn(game.CompKind)
	c := sim.Components()
	tr.Derived(func(e ecs.Entity) bool {
		f := c.Force.Get(e)
		return f != nil && f.Mode != game.ForceDetached
	})
	tr.SelfExpiry(func(e ecs.Entity) bool {
		k := c.Kind.Get(e)
		return k != nil && game.ExpiresOutsideField(k.Kind)
	}, func(x, y float32) bool { return game.OutsideField(x, y, game.ExpirySlack) })
	return tr
}
