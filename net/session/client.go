package session

import (
	"errors"
	"math"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/net/replication"
	"github.com/rtype/rtype/net/schema"
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

// ErrNoWelcome is what Dial's error is (errors.Is; a *NoWelcomeError, which names the UDP
// address) when the server never answered HERE.
var ErrNoWelcome = errors.New("session: no WELCOME from the game instance")

type inputRec struct {
	tick uint32
	b    game.Buttons
}

// Client is the client side's protocol core (docs/PROTOCOL.md §3, §5): HERE until WELCOME,
// tick-stamped inputs with prediction and reconciliation of the local ship, PING, the reliable
// channel, and the mirror world with interpolation. It owns no goroutine, socket or clock: its
// runtime (Session, or a virtual-time test) hands it each datagram from the server with Receive,
// calls Tick every 1/60 s, both with the time now, and sends what it leaves in Outbox. Times are
// monotonic durations from any origin fixed by the runtime. Not safe for concurrent use, except
// SetInput.
type Client struct {
	cfg    ClientConfig
	t      time.Duration // time of the call being handled
	origin time.Duration // time of NewClient

	held atomic.Uint32

	ep       transport.Endpoint
	world    *ecs.World
	comps    *game.Components
	mirror   *replication.Mirror
	qExpire  *ecs.Query2[game.Position, game.Kind]
	qForce   *ecs.Query1[game.Force]
	qKind    *ecs.Query2[game.Kind, game.Position]
	dying    []dying      // DEL_ENT received, shown until the render timeline reaches it
	expired  []ecs.Entity // scratch of expireOutside
	interp   Interpolator
	clock    RenderClock
	lastView time.Duration
	viewed   bool
	self     ecs.Entity
	slot     int
	welcomed bool
	ended    bool
	closeReq bool   // the session should close now (closeWhy says why, "" = normal end)
	closeWhy string //
	closed   bool
	// lobbyLost: the lobby connection ended at lobbyLostAt (LobbyLost): a short silence ends
	// the session.
	lobbyLost   bool
	lobbyLostAt time.Duration
	hostGone    bool // EndedByLobby: the reason is HostGoneReason
	lastHere    time.Duration
	servTick    uint32        // newest header tick
	servAt      time.Duration // when it arrived
	haveTick    bool
	inTick      uint32 // tick being stamped on inputs
	inputs      [128]inputRec
	predX       float32
	predY       float32
	predOK      bool
	predAlive   bool         // the ship was alive at the last reconciliation
	stepped     game.Buttons // buttons of the last stamped input
	endAt       time.Duration
	advancing   bool // Mirror.Advance is running (positions computed, not received)
	offX        float32
	offY        float32
	selfTick    uint32 // server tick of the newest self Position applied
	selfDirty   bool
	corrN       uint64
	ticks       uint64 // Ticks run since WELCOME (InputEvery)
	corrSum     float64
	pingAt      time.Duration
	curTick     uint32 // header tick of the datagram being applied
	advancedTo  uint32 // server tick of the last Mirror.Advance
	stats       Stats
	rate        rateWindow
	queue       []Event
	// prover answers CHALLENGE with the session key (nil without a key); nonce is the newest
	// CHALLENGE's, to be answered by the next datagram when challenged is set.
	prover     *wire.Prover
	nonce      [wire.NonceSize]byte
	challenged bool
	// spectator: welcomed without a ship (status.go); paused: the server paused the game; results:
	// the RESULTS before GAME_END.
	spectator bool
	paused    bool
	results   wire.Results
	own       ownShots // the local player's predicted shots (ownshots.go)
	view      View     // handed to View's callback

	out transport.Outbox
	buf [wire.MaxDatagram]byte
}

// ClientConfig configures a Client.
type ClientConfig struct {
	Server netip.AddrPort // the game's UDP address (the Outbox destination)
	UUID   uuid.UUID      // from AUTHENTICATE
	Token  uint32         // from the lobby START push (docs/PROTOCOL.md §2)
	// Key is the session key from the START push: with it the client answers CHALLENGE, so its
	// session follows it to a new address (a NAT rebinding, docs/PROTOCOL.md §5.9). Zero: no key
	// (an older server); CHALLENGE is ignored.
	Key [wire.KeySize]byte
	// Terrain is the stage's terrain (the lobby's stage, resolved before the game; nil: open
	// space): lasers crawling along it are placed from it (docs/PROTOCOL.md §5.8).
	Terrain *game.Terrain
	// Run, in an arcade run (docs/PROTOCOL.md §2.4.15), is the terrain of each stage of the run in
	// order (nil entries: open space), picked by the stage singleton's Kind variant (§4.1);
	// Terrain is then unused. Nil: a one-stage game.
	Run []*game.Terrain
	// InputEvery sends INPUT every n-th tick (0 or 1: every tick; 2: 30 Hz, each datagram
	// carrying the two ticks since the last); a change of buttons still goes out at once. The
	// measurement behind keeping 60 Hz is in docs/BENCHMARKS.md ("Upstream cadence").
	InputEvery int
}

type rateWindow struct {
	at                          time.Duration
	bytesIn, bytesOut           uint64
	inPS, outPS, snapPS, lossPc float64
	snaps                       uint64
	lostAt, recvAt              uint64
}

// NewClient returns a client core at time now; its first Tick says HERE.
func NewClient(cfg ClientConfig, now time.Duration) *Client {
	c := &Client{cfg: cfg, t: now, origin: now, slot: -1, lastHere: now - time.Hour, pingAt: now - time.Hour}
	c.rate.at = now
	c.world = ecs.NewWorld()
	c.comps = game.RegisterComponents(c.world)
	c.mirror = schema.NewMirror(c.world)
	c.mirror.OnComponent = c.onComponent
	c.mirror.OnDestroy = func(e ecs.Entity) { c.interp.Forget(e.Index()); c.forgetOwn(e) }
	c.qExpire = ecs.NewQuery2[game.Position, game.Kind](c.world)
	c.qForce = ecs.NewQuery1[game.Force](c.world)
	c.qKind = ecs.NewQuery2[game.Kind, game.Position](c.world)
	c.dying = make([]dying, 0, 64)
	c.expired = make([]ecs.Entity, 0, 64)
	if cfg.Key != ([wire.KeySize]byte{}) {
		c.prover = wire.NewProver(cfg.Key)
	}
	return c
}

// Outbox is what the client wants sent to the server; the runtime sends and resets it after
// each call.
func (c *Client) Outbox() *transport.Outbox { return &c.out }

// Welcomed reports whether the server has answered HERE with WELCOME.
func (c *Client) Welcomed() bool { return c.welcomed }

// CloseRequested reports whether the session is over (GAME_END acknowledged long enough, BYE
// from the server, server silent, no answer) and, if so, why ("" for a normal end). The runtime
// then calls Close.
func (c *Client) CloseRequested() (bool, string) { return c.closeReq, c.closeWhy }

// TakeEvents appends the reliable server events received since the last call to dst, in order.
func (c *Client) TakeEvents(dst []Event) []Event {
	dst = append(dst, c.queue...)
	c.queue = c.queue[:0]
	return dst
}

// PendingEvents is the number of events TakeEvents would return.
func (c *Client) PendingEvents() int { return len(c.queue) }

// SetInput sets the buttons held now; Tick stamps them with the input tick and sends INPUT.
// A change of buttons is stamped, predicted and sent by the next View (or Tick), whichever
// comes first, so the local ship's drawn position reacts on the very next frame. SetInput is
// safe to call from any goroutine, also inside View's callback.
func (c *Client) SetInput(b game.Buttons) { c.held.Store(uint32(b)) }

// eagerInput stamps, predicts and sends a change of buttons at once.
func (c *Client) eagerInput(now time.Duration) {
	if !c.welcomed || c.ended || c.spectator || game.Buttons(c.held.Load()) == c.stepped {
		return
	}
	if c.stepInput(now, true) {
		c.sendInputs(now)
	}
}

// View calls fn with the mirror world at now; fn must not retain v.
func (c *Client) View(now time.Duration, fn func(v *View)) {
	c.t = now
	dt := (now - c.lastView).Seconds()
	if !c.viewed || dt > 1 {
		dt = 0
	}
	c.viewed, c.lastView = true, now
	frozen := c.frozen(now)
	if frozen {
		dt = 0 // paused or interrupted: the world stops where it is
	} else {
		c.eagerInput(now)
	}
	rt := c.clock.t
	if !frozen || !c.clock.valid {
		rt = c.clock.Advance(dt, c.estServerTick(now)-c.interpDelayTicks())
	}
	c.reapDying(rt)
	// decay the prediction smoothing offset (about 6 frames)
	k := float32(math.Pow(0.75, dt*60))
	c.offX *= k
	c.offY *= k
	// the View lives in the Client (fn gets a pointer: a local would escape, one allocation per
	// frame)
	v := &c.view
	*v = View{World: c.world, C: c.comps, Self: c.self, Slot: c.slot, Tick: ecs.Tick(c.servTick), RenderTick: rt, c: c,
		Spectator: c.spectator, Paused: c.paused, Silence: c.Silence(now), Interrupted: c.Interrupted(now)}
	if c.self != ecs.Nil && !c.world.Alive(c.self) {
		v.Self = ecs.Nil
	}
	fn(v)
}

// Close ends the client at now: when welcomed, a last datagram or two carrying our acks (so
// GAME_END counts as delivered), with BYE when bye is set and the game has not ended; a
// disconnect event with reason when the game had not ended. Later calls do nothing.
func (c *Client) Close(now time.Duration, bye bool, reason string) {
	if c.closed {
		return
	}
	c.closed = true
	c.t = now
	if c.welcomed {
		for i := 0; i < 2; i++ {
			b := c.header(c.buf[:0])
			if bye && !c.ended {
				b = wire.Bye{Reason: wire.ByeLeft}.Append(b)
			}
			c.write(b)
		}
	}
	if !c.ended && reason != "" {
		c.queue = append(c.queue, Event{Kind: EventDisconnected, Reason: reason})
	}
	c.ended = true
}

// Stats returns the link-quality figures.
func (c *Client) Stats() Stats {
	st := c.stats
	st.RTTMillis = float64(c.ep.RTT()) / float64(time.Millisecond)
	st.JitterMillis = float64(c.ep.Jitter()) / float64(time.Millisecond)
	st.LossPercent = c.rate.lossPc
	st.SnapshotsPerSec = c.rate.snapPS
	st.BytesInPerSec = c.rate.inPS
	st.BytesOutPerSec = c.rate.outPS
	st.InterpDelayMs = c.interpDelayTicks() * 1000 / game.TickRate
	st.Corrections = c.corrN
	if c.corrN > 0 {
		st.CorrectionPixels = c.corrSum / float64(c.corrN)
	}
	st.ServerTick = c.servTick
	return st
}

func (c *Client) write(b []byte) {
	c.out.Put(b, c.cfg.Server)
	c.stats.BytesOut += uint64(len(b))
	c.stats.DatagramsOut++
}

// Tick is the 60 Hz step at now: it stamps the held buttons with the input tick, predicts the
// local ship, and sends HERE (until WELCOME), INPUT (the unacknowledged recent inputs) and PING;
// after GAME_END it keeps acknowledging for EndAckTime. The first datagram it sends after a
// CHALLENGE carries the RESPONSE (one is sent for it if nothing else is due). It notices a silent
// server (CloseRequested).
func (c *Client) Tick(now time.Duration) {
	c.tick(now)
	if c.challenged && !c.closeReq && !c.closed {
		c.write(c.respond(c.header(c.buf[:0])))
	}
}

// respond appends to b the RESPONSE to the newest CHALLENGE not answered yet, if any
// (docs/PROTOCOL.md §5.9).
func (c *Client) respond(b []byte) []byte {
	if !c.challenged {
		return b
	}
	c.challenged = false
	return wire.Response{Nonce: c.nonce, Proof: c.prover.Proof(c.cfg.Token, &c.nonce)}.Append(b)
}

func (c *Client) tick(now time.Duration) {
	c.t = now
	if c.closeReq || c.closed {
		return
	}
	if c.haveTick && now-c.ep.LastReceive > ServerTimeout && !c.ended {
		c.closeReq, c.closeWhy = true, "server silent for 10 s"
		return
	}
	if c.lobbyLost && c.haveTick && !c.ended && now-c.ep.LastReceive > InterruptedAfter && now-c.lobbyLostAt > InterruptedAfter {
		c.closeReq, c.closeWhy = true, "server gone (lobby connection lost, game silent for 1 s)"
		if c.hostGone {
			c.closeWhy = HostGoneReason + " (game silent for 1 s)"
		}
		return
	}
	if !c.haveTick && now-c.origin > WelcomeTimeout+5*time.Second {
		c.closeReq, c.closeWhy = true, "no answer from the game instance"
		return
	}
	if c.ended {
		// after GAME_END: keep acknowledging (so the server knows it was delivered), then close
		if now-c.endAt > EndAckTime {
			c.closeReq = true
			return
		}
		if now-c.lastHere >= EndAckInterval {
			c.lastHere = now
			c.write(c.respond(c.header(c.buf[:0])))
		}
		return
	}
	if !c.welcomed {
		if now-c.lastHere >= HereInterval {
			c.lastHere = now
			b := c.header(c.buf[:0])
			b = wire.Here{UUID: c.cfg.UUID}.Append(b)
			// PING rides along: it measures the first RTT and makes the request larger than
			// the REL+WELCOME answer (docs/PROTOCOL.md §6)
			b = wire.Ping{Nonce: uint32(now / time.Millisecond)}.Append(b)
			c.write(c.respond(b))
		}
		return
	}
	if !c.spectator && !c.frozen(now) {
		c.stepInput(now, false)
	}
	c.ticks++
	if c.cfg.InputEvery <= 1 || c.ticks%uint64(c.cfg.InputEvery) == 0 {
		c.sendInputs(now)
	}
	c.updateRates(now)
}

// Receive applies one datagram from the server at now; invalid ones are dropped and counted.
func (c *Client) Receive(now time.Duration, b []byte) {
	c.t = now
	var h wire.Header
	r, err := wire.Open(b, &h)
	if err != nil || h.Token != c.cfg.Token {
		c.stats.Dropped++
		return
	}
	c.stats.BytesIn += uint64(len(b))
	c.stats.DatagramsIn++
	if first := r; first.Next() && first.ID() == wire.CmdChallenge {
		// Outside the session's sequence (docs/PROTOCOL.md §5.9): not acknowledged, not a sign
		// of life; the next datagram we send answers it.
		var ch wire.Challenge
		if _, err := ch.Parse(first.Cmd()); err == nil && c.prover != nil && !c.closed {
			c.nonce, c.challenged = ch.Nonce, true
			c.stats.Challenges++
		}
		return
	}
	if c.ep.Receive(h.Seq, h.Ack, h.AckBits, h.RelAck, now) {
		return
	}
	if !c.haveTick || int32(h.Tick-c.servTick) > 0 {
		// a snapshot of a newer tick (the server sends one every snapshot, even with nothing
		// in it: dead reckoning makes most of them small)
		c.servTick, c.servAt, c.haveTick = h.Tick, now, true
		c.rate.snaps++
	}
	c.curTick = h.Tick
	hadEntity := false
	for d := c.ep.Deliver(r); d.Next(); {
		id, cmd := d.ID(), d.Cmd()
		if id == wire.CmdEntity || id == wire.CmdState {
			hadEntity = true
		}
		c.apply(id, cmd, &h)
	}
	c.matchOwn(h.Tick)
	if hadEntity {
		if c.selfDirty {
			c.selfDirty = false
			if p := c.comps.Position.Get(c.self); p != nil {
				c.reconcile(p.X, p.Y, c.selfTick)
			}
		}
	}
	// Entities the server no longer sends move on from their last Position (dead reckoning).
	// Once per server tick, and for a datagram of an older tick that carried state: a datagram
	// that changes nothing costs nothing here.
	if c.advancedTo != c.servTick || (hadEntity && h.Tick != c.servTick) {
		c.advancing, c.curTick, c.advancedTo = true, c.servTick, c.servTick
		c.mirror.Advance(c.servTick)
		c.advancing = false
	}
	c.curTick = c.servTick
	// also when nothing is drawn (bots); 3 ticks later than View would, which usually does it
	c.reapDying(c.estServerTick(now) - c.interpDelayTicks() - 3)
	c.expireOutside()
	c.placeAttached()
	c.placeCrawling()
}

// estServerTick is the server's newest tick as seen from here (the newest header tick advanced by
// the local time since it arrived), fractional.
func (c *Client) estServerTick(now time.Duration) float64 {
	if !c.haveTick {
		return 0
	}
	if c.paused {
		return float64(c.servTick)
	}
	return float64(c.servTick) + (now-c.servAt).Seconds()*game.TickRate
}

// interpDelayTicks is how far behind the newest state remote entities are drawn: two snapshot
// intervals plus twice the jitter, at least 100 ms (6 ticks).
func (c *Client) interpDelayTicks() float64 {
	j := c.ep.Jitter().Seconds() * game.TickRate
	return max(6, 2*2+2*j+1)
}

func (c *Client) pos(e ecs.Entity) (x, y float32, ok bool) {
	if e == c.self && c.predOK && c.selfAlive() {
		return c.predX + c.offX, c.predY + c.offY, true
	}
	if s := c.ownMatched(e); s != nil {
		return c.ownPos(s)
	}
	if p := c.comps.Position.Get(e); p != nil {
		if f := c.comps.Force.Get(e); f != nil && ecs.Entity(f.Owner) == c.self && f.Mode != game.ForceDetached && c.predOK {
			if sp := c.comps.Position.Get(c.self); sp != nil {
				// an attached Force moves with the predicted ship
				return p.X - sp.X + c.predX + c.offX, p.Y - sp.Y + c.predY + c.offY, true
			}
		}
		if c.interp.Unborn(e.Index(), e.Generation(), c.clock.t) {
			return 0, 0, false // spawned later than the moment being drawn
		}
		if ix, iy, ok := c.interp.At(e.Index(), e.Generation(), c.clock.t); ok {
			return ix, iy, true
		}
		return p.X, p.Y, true
	}
	return 0, 0, false
}

func (c *Client) selfAlive() bool {
	pl := c.comps.Player.Get(c.self)
	return pl != nil && pl.Flags&game.PlayerDead == 0
}

// selfSpeed is the local ship's speed-ups (Player.Speed) as last replicated: prediction moves
// the ship at the speed the server last confirmed.
func (c *Client) selfSpeed() uint8 {
	if pl := c.comps.Player.Get(c.self); pl != nil {
		return pl.Speed
	}
	return 0
}

func (c *Client) header(buf []byte) []byte {
	seq, ack, bits, rel := c.ep.HeaderFields(c.t)
	h := wire.Header{Token: c.cfg.Token, Tick: c.servTick, Seq: seq, Ack: ack, AckBits: bits, RelAck: rel}
	return h.Append(buf)
}

// sendInputs sends one datagram with INPUT, a PING when due and due reliable commands.
func (c *Client) sendInputs(now time.Duration) {
	b := c.header(c.buf[:0])
	b = c.appendInputs(b)
	if now-c.pingAt >= PingInterval {
		c.pingAt = now
		b = wire.Ping{Nonce: uint32(now / time.Millisecond)}.Append(b)
	}
	b = c.ep.AppendReliable(b, wire.MaxDatagram-wire.Response{}.Length(), now, func(buf []byte, id uint16) []byte { return wire.Rel{ID: id}.Append(buf) })
	c.write(c.respond(b))
}

// stepInput advances the input tick (aimed to arrive just before the server simulates it: the
// estimated server tick plus one RTT and two ticks of margin), records the held buttons for it
// and predicts the local ship one tick.
func (c *Client) stepInput(now time.Duration, eager bool) bool {
	if !c.haveTick {
		return false
	}
	target := uint32(c.estServerTick(now)+c.ep.RTT().Seconds()*game.TickRate) + 1 + uint32(max(c.cfg.InputEvery, 1))
	next := c.inTick + 1
	if d := int32(target - next); c.inTick != 0 && (d > int32(len(c.inputs)) || d < -int32(len(c.inputs))) {
		// More than the input ring (2 s) away, either way: a resync, not ticks to predict one
		// by one. A broken or hostile header tick (2³¹ ahead) must not make the client predict
		// every tick in between, nor hold its inputs for ever (docs/PROTOCOL.md §6 rule 9).
		next = target
		c.inTick = next - 1
	} else if c.inTick == 0 || int32(target-next) > 6 {
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
	b := game.Buttons(c.held.Load())
	c.stepped = b
	for t := c.inTick + 1; c.inTick != 0 && int32(next-t) >= 0; t++ {
		c.inputs[t%uint32(len(c.inputs))] = inputRec{tick: t, b: b}
		c.predictOne(b)
		c.predictFire(t, b, c.predX, c.predY, c.predOK && c.selfAlive())
	}
	if c.inTick == 0 {
		// the first stamp: the server applies it at tick next, so it is predicted like any other
		c.inputs[next%uint32(len(c.inputs))] = inputRec{tick: next, b: b}
		c.predictOne(b)
		c.predictFire(next, b, c.predX, c.predY, c.predOK && c.selfAlive())
	}
	c.inTick = next
	c.reapOwn()
	return true
}

func (c *Client) predictOne(b game.Buttons) {
	if !c.predOK || !c.selfAlive() {
		return
	}
	c.predX, c.predY = game.MoveShip(c.predX, c.predY, b, c.selfSpeed())
}

// appendInputs writes INPUT with the inputs the server has not yet simulated, newest first.
func (c *Client) appendInputs(b []byte) []byte {
	var cm wire.Input
	for t := c.inTick; cm.Count < MaxInputsPerDatagram && int32(t-c.servTick) > 0; t-- {
		r := c.inputs[t%uint32(len(c.inputs))]
		if r.tick != t {
			break
		}
		cm.Ticks[cm.Count], cm.Buttons[cm.Count] = t, uint8(r.b)
		cm.Count++
	}
	if cm.Count == 0 {
		return b
	}
	return cm.Append(b)
}

// reconcile rewinds the local ship to the server's position at tick st and replays the inputs
// stamped after st; the difference to what was predicted is smoothed if small.
func (c *Client) reconcile(x, y float32, st uint32) {
	alive := c.selfAlive()
	nx, ny := x, y
	if alive && c.inTick != 0 {
		// The server applies, on a tick without an input, the last buttons it applied: replay
		// the same, starting from the newest input at or before st.
		n := uint32(len(c.inputs))
		if d := int32(c.inTick - st); d > int32(n) {
			// older than every input kept (2 s): replay what the ring holds, not 2³¹ ticks
			st = c.inTick - n
		}
		var b game.Buttons
		known := false
		for t, k := st, uint32(0); k < n; t, k = t-1, k+1 {
			if r := c.inputs[t%n]; r.tick == t {
				b, known = r.b, true
				break
			}
		}
		for t := st + 1; int32(c.inTick-t) >= 0; t++ {
			if r := c.inputs[t%n]; r.tick == t {
				b, known = r.b, true
			}
			if known {
				nx, ny = game.MoveShip(nx, ny, b, c.selfSpeed())
			}
		}
	}
	if !c.predOK || !alive || !c.predAlive {
		// first state, dead, or just respawned: take the server's word as it is
		c.predX, c.predY, c.predOK, c.predAlive = nx, ny, true, alive
		c.offX, c.offY = 0, 0
		return
	}
	dx, dy := c.predX-nx, c.predY-ny
	d := math.Hypot(float64(dx), float64(dy))
	if d > CorrectionMin {
		c.corrN++
		c.corrSum += d
		if d <= SmoothLimit {
			c.offX += dx
			c.offY += dy
		} else {
			c.offX, c.offY = 0, 0
		}
	}
	c.predX, c.predY = nx, ny
}

func (c *Client) updateRates(now time.Duration) {
	r := &c.rate
	if now-r.at < time.Second {
		return
	}
	dt := (now - r.at).Seconds()
	r.inPS = float64(c.stats.BytesIn-r.bytesIn) / dt
	r.outPS = float64(c.stats.BytesOut-r.bytesOut) / dt
	r.snapPS = float64(r.snaps) / dt
	recv := float64(c.ep.Received) - float64(r.recvAt)
	lost := max(float64(c.ep.LostIn)-float64(r.lostAt), 0) // LostIn drops when a late datagram arrives
	if recv+lost > 0 {
		r.lossPc = 100 * lost / (recv + lost)
	}
	r.at, r.bytesIn, r.bytesOut, r.snaps, r.recvAt, r.lostAt = now, c.stats.BytesIn, c.stats.BytesOut, 0, c.ep.Received, c.ep.LostIn
}

// apply carries out one server command of a datagram with header h (called with c.mu held).
func (c *Client) apply(id wire.CmdID, cmd []byte, h *wire.Header) {
	if c.applyUX(id, cmd) {
		return
	}
	switch id {
	case wire.CmdEntity:
		var cm wire.Entity
		if _, err := cm.Parse(cmd); err == nil {
			if err := c.mirror.ApplyEntity(&cm, h.Tick); err != nil {
				c.stats.Dropped++
			}
		}
	case wire.CmdState:
		var cm wire.State
		if _, err := cm.Parse(cmd); err == nil {
			c.stats.Dropped += uint64(c.mirror.ApplyState(&cm, h.Tick))
		}
	case wire.CmdDelEnt:
		var cm wire.DelEnt
		if _, err := cm.Parse(cmd); err == nil {
			c.delEnt(cm.Entity, h.Tick)
		}
	case wire.CmdDelEnts:
		var cm wire.DelEnts
		if _, err := cm.Parse(cmd); err == nil {
			for it := cm.Entities(); ; {
				e, ok := it.Next()
				if !ok {
					break
				}
				c.delEnt(e, h.Tick)
			}
		}
	case wire.CmdDelComp:
		var cm wire.DelComp
		if _, err := cm.Parse(cmd); err == nil {
			c.mirror.DelComp(cm.Entity, cm.Component)
		}
	case wire.CmdMusic:
		var cm wire.Music
		if _, err := cm.Parse(cmd); err == nil {
			c.queue = append(c.queue, Event{Kind: EventMusic, Song: cm.Song})
		}
	case wire.CmdDeath:
		var cm wire.Death
		if _, err := cm.Parse(cmd); err == nil {
			c.queue = append(c.queue, Event{Kind: EventDeath, Entity: ecs.Entity(cm.Entity), Slot: cm.Slot, Lives: cm.Lives})
		}
	case wire.CmdGameEnd:
		var cm wire.GameEnd
		if _, err := cm.Parse(cmd); err == nil && !c.ended {
			c.queue = append(c.queue, Event{Kind: EventGameEnd, Result: rules.Result(cm.Result)})
			c.ended, c.endAt = true, c.t // acks go on for EndAckTime, then the session closes
			c.reapDying(math.MaxUint32)
		}
	case wire.CmdWelcome:
		var cm wire.Welcome
		if _, err := cm.Parse(cmd); err == nil && !c.welcomed {
			c.welcomed, c.self, c.slot = true, ecs.Entity(cm.Entity), int(cm.Slot)
			c.queue = append(c.queue, Event{Kind: EventWelcome, Entity: c.self, Slot: cm.Slot})
		}
	case wire.CmdPing:
		var cm wire.Ping
		if _, err := cm.Parse(cmd); err == nil {
			sent := time.Duration(cm.Nonce) * time.Millisecond
			if d := c.t - sent; d >= 0 && d < 10*time.Second {
				c.ep.AddRTTSample(d)
			}
		}
	case wire.CmdBye:
		var cm wire.Bye
		if _, err := cm.Parse(cmd); err == nil && !c.ended {
			c.ended = true
			c.queue = append(c.queue, Event{Kind: EventDisconnected, Reason: byeReason(cm.Reason)})
			c.closeReq = true // the server said BYE: close (no BYE back)
		}
	}
}

func byeReason(r uint8) string {
	switch r {
	case wire.ByeLeft:
		return "left the game"
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
func (c *Client) reapDying(upTo float64) {
	n := 0
	for _, d := range c.dying {
		if float64(d.tick) <= upTo {
			c.mirror.DelEnt(uint64(d.e))
			continue
		}
		c.dying[n] = d
		n++
	}
	c.dying = c.dying[:n]
}

// expireOutside deletes the entities that left the field (bullets, enemies, ... more than 1 px
// outside): the server destroys them there too and sends no DEL_ENT (docs/PROTOCOL.md §5.6).
func (c *Client) expireOutside() {
	c.expired = c.expired[:0]
	for it := c.qExpire.Iter(); it.Next(); {
		p, k := it.Get()
		if schema.SelfExpires(*k, p.X, p.Y) {
			c.expired = append(c.expired, it.Entity())
		}
	}
	for _, e := range c.expired {
		c.mirror.DelEnt(uint64(e))
	}
}

// placeCrawling puts every yellow laser crawling along the terrain on its surface at the
// scroll of the mirror's tick: the server does not send their Position (docs/PROTOCOL.md §5.8).
func (c *Client) placeCrawling() {
	variant, scroll, found := c.stageOf()
	if !found {
		return
	}
	index, _ := game.RunVariant(variant)
	terrain := c.terrainOf(index)
	for it := c.qKind.Iter(); it.Next(); {
		k, p := it.Get()
		if k.Kind != game.KindPlayerBullet {
			continue
		}
		if y, ok := game.CrawlY(terrain, k.Variant, p.X+scroll); ok && p.Y != y {
			e := it.Entity()
			p.Y = y
			c.interp.Add(e.Index(), e.Generation(), c.curTick, p.X, y, 4)
		}
	}
}

// placeAttached puts every Force attached to a ship where its ship carries it: the server does
// not send the Position of an attached Force (docs/PROTOCOL.md §5.7).
func (c *Client) placeAttached() {
	for it := c.qForce.Iter(); it.Next(); {
		f, e := it.Get(), it.Entity()
		sp := c.comps.Position.Get(f.Owner)
		if sp == nil {
			continue
		}
		x, y, ok := game.AttachedForcePos(f.Mode, sp.X, sp.Y)
		if !ok {
			continue
		}
		if p := c.comps.Position.Get(e); p != nil {
			p.X, p.Y = x, y
		} else {
			c.comps.Position.Set(e, game.Position{X: x, Y: y})
		}
		c.interp.Add(e.Index(), e.Generation(), c.curTick, x, y, 4)
	}
}

// delEnt applies a DEL_ENT of entity id (or one id of a DEL_ENTS) from a datagram of header tick
// tick: tombstoned now, removed when the render timeline reaches this tick (reapDying), so an
// entity disappears when it is drawn there, as spawns appear (Interpolator.Unborn).
func (c *Client) delEnt(id uint64, tick uint32) {
	again := c.mirror.Buried(id) // a repeated DEL_ENT: dying already, or gone
	c.mirror.Bury(id)
	if c.ownMatched(ecs.Entity(id)) != nil {
		// an own shot drawn on the predicted timeline (ownshots.go): it hit something already,
		// gone at once
		c.mirror.DelEnt(id)
	} else if again {
	} else if c.world.Alive(ecs.Entity(id)) && !c.ended {
		c.dying = append(c.dying, dying{e: ecs.Entity(id), tick: tick})
	} else {
		c.mirror.DelEnt(id)
	}
}

// onComponent keeps interpolation samples of positions and notes new self positions.
func (c *Client) onComponent(e ecs.Entity, id ecs.ComponentID) {
	if id == game.CompPlayer && e == c.self && int32(c.curTick-c.selfTick) >= 0 {
		if pl := c.comps.Player.Get(e); pl != nil && (pl.Flags&game.PlayerDead == 0) != c.predAlive {
			c.selfTick, c.selfDirty = c.curTick, true // death and respawn
		}
	}
	if id == game.CompKind {
		// Sizes are not sent: they follow from the Kind (docs/PROTOCOL.md §4.1).
		c.comps.DeriveFromKind(e)
		c.noteSpawn(e)
		return
	}
	if id != game.CompPosition {
		return
	}
	p := c.comps.Position.Get(e)
	if p == nil {
		return
	}
	c.interp.Add(e.Index(), e.Generation(), c.curTick, p.X, p.Y, 4)
	if e == c.self && !c.advancing && int32(c.curTick-c.selfTick) >= 0 {
		c.selfTick, c.selfDirty = c.curTick, true
	}
}
