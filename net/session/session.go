package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/linksim"
	"github.com/rtype/rtype/net/replication"
	"github.com/rtype/rtype/net/transport"
	"github.com/rtype/rtype/net/wire"
)

// Timing of the client side (docs/PROTOCOL.md §5).
const (
	HereInterval   = 250 * time.Millisecond // HERE is repeated until WELCOME
	PingInterval   = time.Second            // seed 004 asks for at least one PING every 3 s
	ServerTimeout  = 10 * time.Second       // no datagram for this long: disconnected
	WelcomeTimeout = 10 * time.Second       // Dial gives up without WELCOME
	// MaxInputsPerDatagram is how many unacknowledged inputs each datagram repeats.
	MaxInputsPerDatagram = 12
	// EndAckTime is how long a session keeps acknowledging after GAME_END before it closes, and
	// EndAckInterval how often it does.
	EndAckTime     = time.Second
	EndAckInterval = 100 * time.Millisecond
	// SmoothLimit is the largest prediction correction (virtual px) smoothed over frames; larger
	// ones snap.
	SmoothLimit = 64
	// CorrectionMin is the smallest difference (virtual px) between the predicted and the
	// reconciled position that counts as a prediction correction: the server's Position arrives
	// rounded to 1/8 px (Motion, docs/PROTOCOL.md §4), so smaller differences are rounding, taken
	// over silently.
	CorrectionMin = 0.25
)

// ErrNoWelcome is returned by Dial when the server never answered HERE.
var ErrNoWelcome = errors.New("session: no WELCOME from the game instance (wrong port or token?)")

type inputRec struct {
	tick uint32
	b    game.Buttons
}

type impl struct {
	cfg    Config
	sock   transport.Socket
	server netip.AddrPort
	epoch  time.Time

	held atomic.Uint32

	mu        sync.Mutex
	ep        transport.Endpoint
	world     *ecs.World
	comps     *game.Components
	mirror    *replication.Mirror
	qExpire   *ecs.Query2[game.Position, game.Kind]
	qForce    *ecs.Query1[game.Force]
	dying     []dying      // DEL_ENT received, shown until the render timeline reaches it
	expired   []ecs.Entity // scratch of expireOutside
	interp    Interpolator
	clock     RenderClock
	lastView  time.Duration
	self      ecs.Entity
	slot      int
	welcomed  bool
	ended     bool
	servTick  uint32        // newest header tick
	servAt    time.Duration // when it arrived
	haveTick  bool
	inTick    uint32 // tick being stamped on inputs
	inputs    [128]inputRec
	predX     float32
	predY     float32
	predOK    bool
	predAlive bool         // the ship was alive at the last reconciliation
	stepped   game.Buttons // buttons of the last stamped input
	endAt     time.Duration
	advancing bool // Mirror.Advance is running (positions computed, not received)
	offX      float32
	offY      float32
	selfTick  uint32 // server tick of the newest self Position applied
	selfDirty bool
	corrN     uint64
	corrSum   float64
	snapTimes [64]time.Duration
	snapN     int
	pingAt    time.Duration
	curTick   uint32 // header tick of the datagram being applied
	stats     Stats
	rate      rateWindow
	queue     []Event

	events    chan Event
	notify    chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
	buf       [wire.MaxDatagram]byte
	rbuf      [2048]byte
}

type rateWindow struct {
	at                          time.Duration
	bytesIn, bytesOut, dgIn     uint64
	inPS, outPS, snapPS, lossPc float64
	snaps                       uint64
	lostAt, recvAt              uint64
}

// Dial binds a UDP socket, says HERE until WELCOME (or ctx ends) and starts the session's
// goroutines: a 60 Hz input/send loop and a receive loop.
func Dial(ctx context.Context, cfg Config) (*Session, error) {
	ap, err := netip.ParseAddrPort(cfg.Addr)
	if err != nil {
		ua, rerr := net.ResolveUDPAddr("udp", cfg.Addr)
		if rerr != nil {
			return nil, fmt.Errorf("session: server address %q: %w", cfg.Addr, rerr)
		}
		ap = ua.AddrPort()
	}
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	if cfg.Socket != nil {
		return DialSocket(ctx, cfg, cfg.Socket, ap)
	}
	bind := "0.0.0.0:0"
	if ap.Addr().IsLoopback() {
		bind = "127.0.0.1:0"
	}
	us, err := transport.ListenUDP(bind)
	if err != nil {
		return nil, err
	}
	var sock transport.Socket = us
	if cfg.NetSim != "" {
		nc, err := linksim.Parse(cfg.NetSim)
		if err != nil {
			us.Close()
			return nil, err
		}
		sock = linksim.Wrap(us, nc, nc)
	}
	return DialSocket(ctx, cfg, sock, ap)
}

// DialSocket is Dial over a given socket (tests use the link simulator); the session owns sock.
func DialSocket(ctx context.Context, cfg Config, sock transport.Socket, server netip.AddrPort) (*Session, error) {
	s := newSession(cfg, sock, server)
	m := &s.impl
	m.wg.Add(3)
	go func() { defer m.wg.Done(); s.receiveLoop() }()
	go func() { defer m.wg.Done(); s.sendLoop() }()
	go func() { defer m.wg.Done(); s.eventLoop() }()
	deadline := time.NewTimer(WelcomeTimeout)
	defer deadline.Stop()
	for {
		m.mu.Lock()
		ok := m.welcomed
		m.mu.Unlock()
		if ok {
			return s, nil
		}
		select {
		case <-ctx.Done():
			s.shutdown(false, "")
			return nil, ctx.Err()
		case <-deadline.C:
			s.shutdown(false, "")
			return nil, ErrNoWelcome
		case <-m.done:
			return nil, ErrNoWelcome
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// newSession builds a session's state without starting its goroutines.
func newSession(cfg Config, sock transport.Socket, server netip.AddrPort) *Session {
	s := &Session{}
	m := &s.impl
	m.cfg, m.sock, m.server, m.epoch, m.slot = cfg, sock, server, time.Now(), -1
	m.world = ecs.NewWorld()
	m.comps = game.RegisterComponents(m.world)
	m.mirror = replication.NewMirror(m.world)
	m.mirror.OnComponent = s.onComponent
	m.mirror.DeadReckon(game.CompPosition, game.CompVelocity, game.TickRate)
	m.mirror.PackSpawn(game.CompKind)
	m.mirror.OnDestroy = func(e ecs.Entity) { m.interp.Forget(e.Index()) }
	m.qExpire = ecs.NewQuery2[game.Position, game.Kind](m.world)
	m.qForce = ecs.NewQuery1[game.Force](m.world)
	m.dying = make([]dying, 0, 64)
	m.expired = make([]ecs.Entity, 0, 64)
	m.events = make(chan Event, 1024)
	m.notify = make(chan struct{}, 1)
	m.done = make(chan struct{})
	return s
}

func (s *Session) now() time.Duration { return time.Since(s.epoch) }

// SetInput sets the buttons held now; the 60 Hz loop stamps them with the tick and sends INPUT.
// A change of buttons is stamped, predicted and sent by the next View (or loop tick), whichever
// comes first, so the local ship's drawn position reacts on the very next frame. SetInput never
// blocks and may be called from inside View's callback.
func (s *Session) SetInput(b game.Buttons) { s.held.Store(uint32(b)) }

// eagerInput stamps, predicts and sends a change of buttons at once. Called with s.mu held.
func (s *Session) eagerInput(now time.Duration) {
	if !s.welcomed || s.ended || game.Buttons(s.held.Load()) == s.stepped {
		return
	}
	if s.stepInput(now, true) {
		s.sendInputs(now)
	}
}

// View calls fn with the mirror world under the session lock; fn must not retain v, and must not
// call View, Stats or Close (SetInput is fine).
func (s *Session) View(fn func(v *View)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	dt := (now - s.lastView).Seconds()
	if s.lastView == 0 || dt > 1 {
		dt = 0
	}
	s.lastView = now
	s.eagerInput(now)
	rt := s.clock.Advance(dt, s.estServerTick(now)-s.interpDelayTicks())
	s.reapDying(rt)
	// decay the prediction smoothing offset (about 6 frames)
	k := float32(math.Pow(0.75, dt*60))
	s.offX *= k
	s.offY *= k
	v := View{World: s.world, C: s.comps, Self: s.self, Slot: s.slot, Tick: ecs.Tick(s.servTick), RenderTick: rt, s: s}
	if s.self != ecs.Nil && !s.world.Alive(s.self) {
		v.Self = ecs.Nil
	}
	fn(&v)
}

// estServerTick is the server's newest tick as seen from here (the newest header tick advanced by
// the local time since it arrived), fractional.
func (s *Session) estServerTick(now time.Duration) float64 {
	if !s.haveTick {
		return 0
	}
	return float64(s.servTick) + (now-s.servAt).Seconds()*game.TickRate
}

// interpDelayTicks is how far behind the newest state remote entities are drawn: two snapshot
// intervals plus twice the jitter, at least 100 ms (6 ticks).
func (s *Session) interpDelayTicks() float64 {
	j := s.ep.Jitter().Seconds() * game.TickRate
	return max(6, 2*2+2*j+1)
}

func (s *Session) pos(e ecs.Entity) (x, y float32, ok bool) {
	if e == s.self && s.predOK && s.selfAlive() {
		return s.predX + s.offX, s.predY + s.offY, true
	}
	if p := s.comps.Position.Get(e); p != nil {
		if f := s.comps.Force.Get(e); f != nil && ecs.Entity(f.Owner) == s.self && f.Mode != game.ForceDetached && s.predOK {
			if sp := s.comps.Position.Get(s.self); sp != nil {
				// an attached Force moves with the predicted ship
				return p.X - sp.X + s.predX + s.offX, p.Y - sp.Y + s.predY + s.offY, true
			}
		}
		if s.interp.Unborn(e.Index(), e.Generation(), s.clock.t) {
			return 0, 0, false // spawned later than the moment being drawn
		}
		if ix, iy, ok := s.interp.At(e.Index(), e.Generation(), s.clock.t); ok {
			return ix, iy, true
		}
		return p.X, p.Y, true
	}
	return 0, 0, false
}

func (s *Session) selfAlive() bool {
	pl := s.comps.Player.Get(s.self)
	return pl != nil && pl.Flags&game.PlayerDead == 0
}

// selfSpeed is the local ship's speed-ups (Player.Speed) as last replicated: prediction moves
// the ship at the speed the server last confirmed.
func (s *Session) selfSpeed() uint8 {
	if pl := s.comps.Player.Get(s.self); pl != nil {
		return pl.Speed
	}
	return 0
}

// Events delivers reliable server events in order; it is closed when the session ends.
func (s *Session) Events() <-chan Event { return s.events }

// Done is closed when the session has ended (GAME_END, BYE, timeout or Close).
func (s *Session) Done() <-chan struct{} { return s.done }

// Close says BYE and releases the socket and goroutines.
func (s *Session) Close() error {
	s.shutdown(true, "closed")
	return nil
}

func (s *Session) shutdown(bye bool, reason string) {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		if s.welcomed {
			// a last datagram or two carrying our acks (so GAME_END counts as delivered), with BYE
			// when we are the ones leaving
			for i := 0; i < 2; i++ {
				b := s.header(s.buf[:0])
				if bye && !s.ended {
					b = wire.Bye{Reason: wire.ByeLeft}.Append(b)
				}
				s.write(b)
			}
		}
		if !s.ended && reason != "" {
			s.queue = append(s.queue, Event{Kind: EventDisconnected, Reason: reason})
		}
		s.ended = true
		s.mu.Unlock()
		close(s.done)
		go func() {
			// let the event loop flush, then release the socket
			s.sock.Close()
		}()
	})
}

// Wait blocks until every goroutine of the session has ended (after Done).
func (s *Session) Wait() { s.wg.Wait() }

// Stats returns the link-quality figures now.
func (s *Session) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.RTTMillis = float64(s.ep.RTT()) / float64(time.Millisecond)
	st.JitterMillis = float64(s.ep.Jitter()) / float64(time.Millisecond)
	st.LossPercent = s.rate.lossPc
	st.SnapshotsPerSec = s.rate.snapPS
	st.BytesInPerSec = s.rate.inPS
	st.BytesOutPerSec = s.rate.outPS
	st.InterpDelayMs = s.interpDelayTicks() * 1000 / game.TickRate
	st.Corrections = s.corrN
	if s.corrN > 0 {
		st.CorrectionPixels = s.corrSum / float64(s.corrN)
	}
	st.ServerTick = s.servTick
	return st
}

func (s *Session) header(buf []byte) []byte {
	seq, ack, bits, rel := s.ep.HeaderFields(s.now())
	h := wire.Header{Token: s.cfg.Token, Tick: s.servTick, Seq: seq, Ack: ack, AckBits: bits, RelAck: rel}
	return h.Append(buf)
}

func (s *Session) write(b []byte) {
	if _, err := s.sock.WriteTo(b, s.server); err == nil {
		s.stats.BytesOut += uint64(len(b))
		s.stats.DatagramsOut++
	}
}

// sendLoop runs at 60 Hz: stamps the held buttons with the input tick, predicts the local ship,
// and sends HERE (until WELCOME), INPUT (the unacknowledged recent inputs) and PING.
func (s *Session) sendLoop() {
	t := time.NewTicker(time.Second / game.TickRate)
	defer t.Stop()
	lastHere := time.Duration(-time.Hour)
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
		}
		s.mu.Lock()
		now := s.now()
		if s.haveTick && now-s.ep.LastReceive > ServerTimeout && !s.ended {
			s.mu.Unlock()
			s.shutdown(false, "server silent for 10 s")
			return
		}
		if !s.haveTick && now > WelcomeTimeout+5*time.Second {
			s.mu.Unlock()
			s.shutdown(false, "no answer from the game instance")
			return
		}
		if s.ended {
			// after GAME_END: keep acknowledging (so the server knows it was delivered), then close
			if now-s.endAt > EndAckTime {
				s.mu.Unlock()
				s.shutdown(false, "")
				return
			}
			if now-lastHere >= EndAckInterval {
				lastHere = now
				s.write(s.header(s.buf[:0]))
			}
			s.mu.Unlock()
			continue
		}
		if !s.welcomed {
			if now-lastHere >= HereInterval {
				lastHere = now
				b := s.header(s.buf[:0])
				b = wire.Here{UUID: s.cfg.UUID}.Append(b)
				// PING rides along: it measures the first RTT and makes the request larger than
				// the REL+WELCOME answer (docs/PROTOCOL.md §6)
				b = wire.Ping{Nonce: uint32(now / time.Millisecond)}.Append(b)
				s.write(b)
			}
			s.mu.Unlock()
			continue
		}
		s.stepInput(now, false)
		s.sendInputs(now)
		s.updateRates(now)
		s.mu.Unlock()
	}
}

// sendInputs sends one datagram with INPUT, a PING when due and due reliable commands.
func (s *Session) sendInputs(now time.Duration) {
	b := s.header(s.buf[:0])
	b = s.appendInputs(b)
	if now-s.pingAt >= PingInterval {
		s.pingAt = now
		b = wire.Ping{Nonce: uint32(now / time.Millisecond)}.Append(b)
	}
	b = s.ep.AppendReliable(b, wire.MaxDatagram, now, func(buf []byte, id uint16) []byte { return wire.Rel{ID: id}.Append(buf) })
	s.write(b)
}

// stepInput advances the input tick (aimed to arrive just before the server simulates it: the
// estimated server tick plus one RTT and two ticks of margin), records the held buttons for it
// and predicts the local ship one tick.
func (s *Session) stepInput(now time.Duration, eager bool) bool {
	if !s.haveTick {
		return false
	}
	target := uint32(s.estServerTick(now)+s.ep.RTT().Seconds()*game.TickRate) + 2
	next := s.inTick + 1
	if s.inTick == 0 || int32(target-next) > 6 {
		next = target // start, or far behind (RTT grew): re-aim (the ticks between get b too)
	} else if int32(next-target) > 6 {
		// Far ahead (RTT shrank): hold until the target catches up. Never re-aim backwards: the
		// ticks already stamped were sent, and the server keeps the first input it gets for a
		// tick, so restamping them would make prediction and server disagree.
		return false
	} else if int32(target-next) > 1 {
		next++ // behind: catch up one tick at a time
	} else if int32(next-target) > 1 && !(eager && int32(next-target) <= 4) {
		return false // ahead: hold one tick (a button change may run up to 4 ticks ahead)
	}
	b := game.Buttons(s.held.Load())
	s.stepped = b
	for t := s.inTick + 1; s.inTick != 0 && int32(next-t) >= 0; t++ {
		s.inputs[t%uint32(len(s.inputs))] = inputRec{tick: t, b: b}
		s.predictOne(b)
	}
	if s.inTick == 0 {
		s.inputs[next%uint32(len(s.inputs))] = inputRec{tick: next, b: b}
	}
	s.inTick = next
	return true
}

func (s *Session) predictOne(b game.Buttons) {
	if !s.predOK || !s.selfAlive() {
		return
	}
	s.predX, s.predY = game.MoveShip(s.predX, s.predY, b, s.selfSpeed())
}

// appendInputs writes INPUT with the inputs the server has not yet simulated, newest first.
func (s *Session) appendInputs(b []byte) []byte {
	var c wire.Input
	for t := s.inTick; c.Count < MaxInputsPerDatagram && int32(t-s.servTick) > 0; t-- {
		r := s.inputs[t%uint32(len(s.inputs))]
		if r.tick != t {
			break
		}
		c.Ticks[c.Count], c.Buttons[c.Count] = t, uint8(r.b)
		c.Count++
	}
	if c.Count == 0 {
		return b
	}
	return c.Append(b)
}

// reconcile rewinds the local ship to the server's position at tick st and replays the inputs
// stamped after st; the difference to what was predicted is smoothed if small.
func (s *Session) reconcile(x, y float32, st uint32) {
	alive := s.selfAlive()
	nx, ny := x, y
	if alive && s.inTick != 0 {
		// The server applies, on a tick without an input, the last buttons it applied: replay
		// the same, starting from the newest input at or before st.
		n := uint32(len(s.inputs))
		var b game.Buttons
		known := false
		for t, k := st, uint32(0); k < n; t, k = t-1, k+1 {
			if r := s.inputs[t%n]; r.tick == t {
				b, known = r.b, true
				break
			}
		}
		speed := s.selfSpeed()
		for t := st + 1; int32(s.inTick-t) >= 0; t++ {
			if r := s.inputs[t%n]; r.tick == t {
				b, known = r.b, true
			}
			if known {
				nx, ny = game.MoveShip(nx, ny, b, speed)
			}
		}
	}
	if !s.predOK || !alive || !s.predAlive {
		// first state, dead, or just respawned: take the server's word as it is
		s.predX, s.predY, s.predOK, s.predAlive = nx, ny, true, alive
		s.offX, s.offY = 0, 0
		return
	}
	dx, dy := s.predX-nx, s.predY-ny
	d := math.Hypot(float64(dx), float64(dy))
	if d > CorrectionMin {
		s.corrN++
		s.corrSum += d
		if d <= SmoothLimit {
			s.offX += dx
			s.offY += dy
		} else {
			s.offX, s.offY = 0, 0
		}
	}
	s.predX, s.predY = nx, ny
}

func (s *Session) updateRates(now time.Duration) {
	r := &s.rate
	if now-r.at < time.Second {
		return
	}
	dt := (now - r.at).Seconds()
	r.inPS = float64(s.stats.BytesIn-r.bytesIn) / dt
	r.outPS = float64(s.stats.BytesOut-r.bytesOut) / dt
	r.snapPS = float64(r.snaps) / dt
	recv := float64(s.ep.Received) - float64(r.recvAt)
	lost := max(float64(s.ep.LostIn)-float64(r.lostAt), 0) // LostIn drops when a late datagram arrives
	if recv+lost > 0 {
		r.lossPc = 100 * lost / (recv + lost)
	}
	r.at, r.bytesIn, r.bytesOut, r.snaps, r.recvAt, r.lostAt = now, s.stats.BytesIn, s.stats.BytesOut, 0, s.ep.Received, s.ep.LostIn
}

// receiveLoop reads and applies the server's datagrams; invalid ones are dropped and counted.
func (s *Session) receiveLoop() {
	transport.ReadLoop(s.sock, s.rbuf[:], s.done, func(b []byte, from netip.AddrPort) {
		if from != s.server {
			s.mu.Lock()
			s.stats.Dropped++
			s.mu.Unlock()
			return
		}
		s.handle(b)
	})
}

func (s *Session) handle(b []byte) {
	var h wire.Header
	r, err := wire.Open(b, &h)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil || h.Token != s.cfg.Token {
		s.stats.Dropped++
		return
	}
	now := s.now()
	s.stats.BytesIn += uint64(len(b))
	s.stats.DatagramsIn++
	if s.ep.Receive(h.Seq, h.Ack, h.AckBits, h.RelAck, now) {
		return
	}
	if !s.haveTick || int32(h.Tick-s.servTick) > 0 {
		// a snapshot of a newer tick (the server sends one every snapshot, even with nothing
		// in it: dead reckoning makes most of them small)
		s.servTick, s.servAt, s.haveTick = h.Tick, now, true
		s.rate.snaps++
	}
	s.curTick = h.Tick
	hadEntity := false
	relPending, relID := false, uint16(0)
	for r.Next() {
		cmd := r.Cmd()
		id := r.ID()
		if id == wire.CmdRel {
			var c wire.Rel
			if _, err := c.Parse(cmd); err == nil {
				relPending, relID = true, c.ID
			}
			continue
		}
		if relPending {
			relPending = false
			if !s.ep.ReceiveReliable(relID, cmd) {
				continue // duplicate, or kept until the gap before it is filled
			}
			s.apply(id, cmd, &h)
			for {
				b, ok := s.ep.PopReliable()
				if !ok {
					break
				}
				s.apply(wire.CmdID(b[2]), b, &h)
			}
			continue
		}
		if id == wire.CmdEntity {
			hadEntity = true
		}
		s.apply(id, cmd, &h)
	}
	if hadEntity {
		if s.selfDirty {
			s.selfDirty = false
			if p := s.comps.Position.Get(s.self); p != nil {
				s.reconcile(p.X, p.Y, s.selfTick)
			}
		}
	}
	// Entities the server no longer sends move on from their last Position (dead reckoning).
	s.advancing, s.curTick = true, s.servTick
	s.mirror.Advance(s.servTick)
	s.advancing = false
	// also when nothing is drawn (bots); 3 ticks later than View would, which usually does it
	s.reapDying(s.estServerTick(s.now()) - s.interpDelayTicks() - 3)
	s.expireOutside()
	s.placeAttached()
	if len(s.queue) > 0 {
		select {
		case s.notify <- struct{}{}:
		default:
		}
	}
}

// apply carries out one server command of a datagram with header h (called with s.mu held).
func (s *Session) apply(id wire.CmdID, cmd []byte, h *wire.Header) {
	switch id {
	case wire.CmdEntity:
		var c wire.Entity
		if _, err := c.Parse(cmd); err == nil {
			if err := s.mirror.ApplyEntity(&c, h.Tick); err != nil {
				s.stats.Dropped++
			}
		}
	case wire.CmdDelEnt:
		var c wire.DelEnt
		if _, err := c.Parse(cmd); err == nil {
			// Tombstoned now, removed when the render timeline reaches this tick (reapDying), so
			// an entity disappears when it is drawn there, as spawns appear (Interpolator.Unborn).
			s.mirror.Bury(c.Entity)
			if s.world.Alive(ecs.Entity(c.Entity)) && !s.ended {
				s.dying = append(s.dying, dying{e: ecs.Entity(c.Entity), tick: h.Tick})
			} else {
				s.mirror.DelEnt(c.Entity)
			}
		}
	case wire.CmdDelComp:
		var c wire.DelComp
		if _, err := c.Parse(cmd); err == nil {
			s.mirror.DelComp(c.Entity, c.Component)
		}
	case wire.CmdMusic:
		var c wire.Music
		if _, err := c.Parse(cmd); err == nil {
			s.queue = append(s.queue, Event{Kind: EventMusic, Song: c.Song})
		}
	case wire.CmdDeath:
		var c wire.Death
		if _, err := c.Parse(cmd); err == nil {
			s.queue = append(s.queue, Event{Kind: EventDeath, Entity: ecs.Entity(c.Entity), Slot: c.Slot, Lives: c.Lives})
		}
	case wire.CmdGameEnd:
		var c wire.GameEnd
		if _, err := c.Parse(cmd); err == nil && !s.ended {
			s.queue = append(s.queue, Event{Kind: EventGameEnd, Result: game.Result(c.Result)})
			s.ended, s.endAt = true, s.now() // acks go on for EndAckTime, then the session closes
			s.reapDying(math.MaxUint32)
		}
	case wire.CmdWelcome:
		var c wire.Welcome
		if _, err := c.Parse(cmd); err == nil && !s.welcomed {
			s.welcomed, s.self, s.slot = true, ecs.Entity(c.Entity), int(c.Slot)
			s.queue = append(s.queue, Event{Kind: EventWelcome, Entity: s.self, Slot: c.Slot})
		}
	case wire.CmdPing:
		var c wire.Ping
		if _, err := c.Parse(cmd); err == nil {
			sent := time.Duration(c.Nonce) * time.Millisecond
			if d := s.now() - sent; d >= 0 && d < 10*time.Second {
				s.ep.AddRTTSample(d)
			}
		}
	case wire.CmdBye:
		var c wire.Bye
		if _, err := c.Parse(cmd); err == nil && !s.ended {
			s.ended = true
			s.queue = append(s.queue, Event{Kind: EventDisconnected, Reason: byeReason(c.Reason)})
			go s.shutdown(false, "")
		}
	}
}

func byeReason(r uint8) string {
	switch r {
	case wire.ByeLeft:
		return "the server closed the game"
	case wire.ByeTimeout:
		return "timed out by the server"
	case wire.ByeShutdown:
		return "server shutting down"
	case wire.ByeKicked:
		return "removed from the game"
	}
	return "disconnected"
}

// dying is an entity whose DEL_ENT arrived in a datagram of server tick tick.
type dying struct {
	e    ecs.Entity
	tick uint32
}

// reapDying removes from the mirror the dying entities whose tick the render timeline has
// reached (upTo: the render tick).
func (s *Session) reapDying(upTo float64) {
	n := 0
	for _, d := range s.dying {
		if float64(d.tick) <= upTo {
			s.mirror.DelEnt(uint64(d.e))
			continue
		}
		s.dying[n] = d
		n++
	}
	s.dying = s.dying[:n]
}

// expireOutside deletes the entities that left the field (bullets, enemies, ... more than 1 px
// outside): the server destroys them there too and sends no DEL_ENT (docs/PROTOCOL.md §5.6).
func (s *Session) expireOutside() {
	s.expired = s.expired[:0]
	for it := s.qExpire.Iter(); it.Next(); {
		p, k := it.Get()
		if game.ExpiresOutsideField(k.Kind) && game.OutsideField(p.X, p.Y, game.ExpirySlack) {
			s.expired = append(s.expired, it.Entity())
		}
	}
	for _, e := range s.expired {
		s.mirror.DelEnt(uint64(e))
	}
}

// placeAttached puts every Force attached to a ship where its ship carries it: the server does
// not send the Position of an attached Force (docs/PROTOCOL.md §5.7).
func (s *Session) placeAttached() {
	for it := s.qForce.Iter(); it.Next(); {
		f, e := it.Get(), it.Entity()
		sp := s.comps.Position.Get(f.Owner)
		if sp == nil {
			continue
		}
		x, y, ok := game.AttachedForcePos(f.Mode, sp.X, sp.Y)
		if !ok {
			continue
		}
		if p := s.comps.Position.Get(e); p != nil {
			p.X, p.Y = x, y
		} else {
			s.comps.Position.Set(e, game.Position{X: x, Y: y})
		}
		s.interp.Add(e.Index(), e.Generation(), s.curTick, x, y, 4)
	}
}

// onComponent keeps interpolation samples of positions and notes new self positions.
func (s *Session) onComponent(e ecs.Entity, id ecs.ComponentID) {
	if id == game.CompPlayer && e == s.self && int32(s.curTick-s.selfTick) >= 0 {
		if pl := s.comps.Player.Get(e); pl != nil && (pl.Flags&game.PlayerDead == 0) != s.predAlive {
			s.selfTick, s.selfDirty = s.curTick, true // death and respawn
		}
	}
	if id == game.CompKind {
		// Sizes are not sent: they follow from the Kind (docs/PROTOCOL.md §4.1).
		s.comps.DeriveFromKind(e)
		return
	}
	if id != game.CompPosition {
		return
	}
	p := s.comps.Position.Get(e)
	if p == nil {
		return
	}
	s.interp.Add(e.Index(), e.Generation(), s.curTick, p.X, p.Y, 4)
	if e == s.self && !s.advancing && int32(s.curTick-s.selfTick) >= 0 {
		s.selfTick, s.selfDirty = s.curTick, true
	}
}

// eventLoop moves queued events to the Events channel in order, then closes it.
func (s *Session) eventLoop() {
	defer close(s.events)
	for {
		s.mu.Lock()
		q := s.queue
		s.queue = nil
		s.mu.Unlock()
		for _, ev := range q {
			s.events <- ev // a reader that never reads blocks only this goroutine
		}
		select {
		case <-s.notify:
		case <-s.done:
			s.mu.Lock()
			q := s.queue
			s.queue = nil
			s.mu.Unlock()
			for _, ev := range q {
				select {
				case s.events <- ev:
				default:
				}
			}
			return
		}
	}
}
