package instance

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"log/slog"
	"net/netip"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/buildinfo"
	"github.com/rtype/rtype/game/replay"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/replication"
	"github.com/rtype/rtype/net/schema"
	"github.com/rtype/rtype/net/transport"
	"github.com/rtype/rtype/net/wire"
)

// GameConfig configures one game core.
type GameConfig struct {
	Code    string           // lobby code (logs)
	Members []handoff.Member // the players, slot = index (1..rules.MaxPlayers)
	Stage   *game.Stage
	// StageName is the stage's name in the server's catalogue ("stage1", a -stage file's base
	// name): the replay names the stage by it (replay.NewRunHeader).
	StageName string
	// Run, with two or more stages, makes the game an arcade run of them (game.Config.Run; Stage
	// is then its first), named by RunNames in the server's catalogue.
	Run      []*game.Stage
	RunNames []string
	// StartTime is when the game starts, Unix seconds (the replay's Time; 0: unknown).
	StartTime int64
	Seed      uint64
	// Difficulty is the level the lobby chose (zero: Normal).
	Difficulty rules.Difficulty
	// Section is the section a practice game starts at (game.Config.Section; 0: the start).
	Section int
	// InfiniteLives is the practice trainer (game.Config.InfiniteLives): a practice game.
	InfiniteLives bool
	// SilenceTimeout drops a player whose datagrams stop; HereTimeout one who never says HERE.
	SilenceTimeout, HereTimeout time.Duration
	// RejoinWindow keeps a lost player's slot for a rejoin (0: the RejoinWindow constant).
	RejoinWindow time.Duration
	Logger       *slog.Logger
	// OnEvent, when set, is called with each game event the game sends its players reliably
	// (DEATH, MUSIC, GAME_END), in order, as it queues it: a runtime's view of what every
	// client must receive exactly once (the virtual-time tests compare it with what arrived).
	OnEvent func(ev game.Event)
	// Challenges, when set, limits the CHALLENGEs sent per source network (the runtime's games
	// share one); nil: one per datagram from an unbound address, within AmplificationLimit.
	Challenges *ChallengeLimiter
}

// Game is one game instance's protocol and simulation core (docs/PROTOCOL.md §3–§6): the
// players' endpoints, their tick-stamped inputs, the 60 Hz game.Sim and its replication. It owns
// no goroutine, socket or clock: its runtime (Manager, or a virtual-time test) hands it each
// datagram with Receive and calls Tick every 1/60 s, both with the time now, and sends what it
// leaves in Outbox. Times are monotonic durations from any origin fixed by the runtime. Not safe
// for concurrent use.
type Game struct {
	cfg     GameConfig
	log     *slog.Logger
	sim     *game.Sim
	rec     *replay.Recorder // every game is recorded (Replay)
	tracker *replication.Tracker
	peers   []*peer
	dels    DelBatch      // replicateEvents' DEL_ENTS being filled
	now     time.Duration // time of the Receive or Tick being handled

	over     bool
	endAt    time.Duration
	result   rules.Result
	shutdown bool
	paused   bool
	// userPaused: the game's only player paused it (PAUSE, docs/PROTOCOL.md §5.11; players.go).
	userPaused bool
	frame      uint32 // ticks (60 Hz), the snapshot cadence even while paused
	drops      Drops
	dlog       dropLog
	noHeres    int // players dropped because their HERE never came (noHere logs the first)

	start    time.Duration // NewGame's now: challenge nonces count milliseconds from it
	nonceMAC hash.Hash     // HMAC-SHA256 under this game's random secret: CHALLENGE nonces
	nonceIn  [4 + 4 + 16 + 2]byte
	nonceSum [sha256.Size]byte

	out transport.Outbox
	buf [wire.MaxDatagram]byte
	// spectatorsGone are the spectators dropped (silent, BYE, or by the lobby) and not taken
	// by TakeSpectatorsGone yet: the lobby's count follows the game's (handoff.SpectatorReporter).
	spectatorsGone []handoff.Member
}

type inputSlot struct {
	tick  uint32
	b     game.Buttons
	valid bool
}

// peer is the per-player state of a game: its address, endpoint, replication writer, inputs and
// traffic counters.
type peer struct {
	member            handoff.Member
	slot              int
	addr              netip.AddrPort
	bound             bool
	gone              bool
	w                 *replication.Writer
	last              game.Buttons
	legacyDir         game.Buttons
	legacyShot        bool
	usesInput         bool
	joinedAt          time.Duration
	lastHeard         time.Duration
	bytesIn, bytesOut uint64
	dgIn, dgOut       uint64
	snapTick          uint32 // tick of the last snapshot sent (0: none yet)
	// prover checks RESPONSE proofs under the player's session key (docs/PROTOCOL.md §5.9);
	// nonceAt is the time (ms, Game.start) of the newest nonce it accepted: older ones are replays.
	prover            *wire.Prover
	nonceAt           uint32
	challenges, moves uint64 // CHALLENGEs sent for this player, and moves to a new address
	challengeBytes    uint64 // bytes of those CHALLENGEs
	congested         bool   // its link loses datagrams: snapshots at CongestedSnapshotEvery
	lossAt            uint32 // frame congested was last updated
	// backlog holds the reliable commands (framed, back to back) for a peer not bound yet: its
	// reliable channel starts with WELCOME, then these (docs/PROTOCOL.md §5.5).
	backlog []byte
	// spectator: a peer without a slot (slot -1) that only receives the game (§5.10).
	spectator bool
	// away: a player whose connection was lost (gone is set too): its slot is kept, its ship
	// suspended, until awayAt + RejoinWindow; a rejoin replaces this peer (§5.12; players.go).
	away   bool
	awayAt time.Duration
	// The large parts last, so that the fields above, which every datagram reads, share a few
	// cache lines.
	inputs [InputWindow + 8]inputSlot
	ep     transport.Endpoint
}

// lossEvery is how often (ticks) a client's loss is looked at again to choose its snapshot rate
// (Endpoint.LossOut reads the last 256 datagrams: 4 times a second is enough).
const lossEvery = 15

// maxBacklog bounds the reliable commands kept for a peer that has not said HERE yet (it is
// dropped HereTimeout after the start anyway).
const maxBacklog = 4096

// NewGame creates a game at time now for cfg.Members (1..rules.MaxPlayers).
func NewGame(cfg GameConfig, now time.Duration) (*Game, error) {
	if len(cfg.Members) == 0 || len(cfg.Members) > rules.MaxPlayers {
		return nil, fmt.Errorf("instance: %d players (want 1..%d)", len(cfg.Members), rules.MaxPlayers)
	}
	if cfg.Stage == nil {
		return nil, fmt.Errorf("instance: no stage")
	}
	if cfg.SilenceTimeout <= 0 {
		cfg.SilenceTimeout = 10 * time.Second
	}
	if cfg.HereTimeout <= 0 {
		cfg.HereTimeout = 20 * time.Second
	}
	if cfg.RejoinWindow <= 0 {
		cfg.RejoinWindow = RejoinWindow
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	g := &Game{cfg: cfg, log: cfg.Logger, now: now, start: now}
	var secret [32]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return nil, fmt.Errorf("instance: challenge secret: %w", err)
	}
	g.nonceMAC = hmac.New(sha256.New, secret[:])
	simCfg := game.Config{Seed: cfg.Seed, Players: len(cfg.Members), Stage: cfg.Stage, Difficulty: cfg.Difficulty, Section: cfg.Section, Run: cfg.Run,
		InfiniteLives: cfg.InfiniteLives}
	g.sim = game.NewSim(simCfg)
	names := make([]string, len(cfg.Members))
	for i, m := range cfg.Members {
		names[i] = m.Name
	}
	runNames := cfg.RunNames
	if len(cfg.Run) < 2 {
		runNames = []string{cfg.StageName}
	}
	h := replay.NewRunHeader(simCfg, runNames, names)
	h.Protocol, h.Build, h.Time = wire.Version, buildinfo.Get(), cfg.StartTime
	g.rec = replay.NewRecorder(h)
	g.sim.SetRecorder(g.rec)
	g.tracker = schema.NewTracker(g.sim)
	g.sim.World().ClearEvents()
	for i, mem := range cfg.Members {
		p := &peer{member: mem, slot: i, joinedAt: now, backlog: make([]byte, 0, 256), prover: wire.NewProver(mem.Key)}
		p.w = replication.NewWriter(g.tracker)
		p.ep.OnAck = p.w.Acked
		g.peers = append(g.peers, p)
	}
	return g, nil
}

// Outbox is what the game wants sent; the runtime sends and resets it after each call.
func (g *Game) Outbox() *transport.Outbox { return &g.out }

// noHere logs, once per game (sampled: the other players whose HERE never came are counted in
// the line of the first), that a player was handed the game's UDP port by START and no datagram
// of theirs ever arrived: their UDP is most likely blocked on the way, while the lobby's TCP got
// through.
func (g *Game) noHere(p *peer) {
	g.noHeres++
	if g.noHeres > 1 {
		return
	}
	missing := 0
	for _, q := range g.peers {
		if !q.bound && !q.gone {
			missing++
		}
	}
	g.log.Warn("player never said HERE: no datagram came on the game's UDP port; is it blocked (firewall, NAT, Docker without -p PORT/udp) or is -public-udp wrong?",
		"slot", p.slot, "name", p.member.Name, "players_without_here", missing, "after", g.cfg.HereTimeout)
}

// Sim is the game's simulation (tests and benchmarks read and change it between calls).
func (g *Game) Sim() *game.Sim { return g.sim }

// Replay returns the replay file (docs/REPLAY.md) of the game: complete once it is over (Over),
// else the game so far, ended as aborted. nil for a game too long to record (replay.MaxTicks).
func (g *Game) Replay() []byte {
	res := rules.ResultAborted
	if g.over {
		res = g.result
	}
	return g.rec.Encode(g.sim, res)
}

// Over reports whether the game has ended (GAME_END sent) and how.
func (g *Game) Over() (bool, rules.Result) { return g.over, g.result }

// Finished reports whether an ended game may be closed at now: every player acknowledged
// GAME_END, or EndLinger (ShutdownLinger when stopped) has passed.
func (g *Game) Finished(now time.Duration) bool {
	linger := EndLinger
	if g.shutdown {
		linger = ShutdownLinger
	}
	return g.over && (now-g.endAt > linger || g.allDelivered())
}

func (g *Game) allDelivered() bool {
	for _, p := range g.peers {
		if !p.gone && p.bound && p.ep.Pending() > 0 {
			return false
		}
	}
	return true
}

// Stop ends the game at once with GAME_END(r), as on a server shutdown (the shorter
// ShutdownLinger applies).
func (g *Game) Stop(now time.Duration, r rules.Result) {
	g.now = now
	g.shutdown = true
	g.broadcastEnd(r)
}

// Abort ends the game as aborted after a fault (a panic in the simulation): GAME_END(aborted) to
// every player, even if the game had already ended otherwise.
func (g *Game) Abort(now time.Duration) {
	g.now = now
	if g.over {
		g.result = rules.ResultAborted
	}
	g.broadcastEnd(rules.ResultAborted)
}

// SetPaused stops (or resumes) the simulation while replication goes on: tests freeze the world
// to compare every client's mirror with it.
func (g *Game) SetPaused(p bool) { g.paused = p }

// Drop removes a player who left the lobby mid-game; the others carry on. The player gets BYE
// reason 0 (left) when it left (LEAVE), 3 (kicked) when its lobby connection closed.
func (g *Game) Drop(now time.Duration, id uuid.UUID, left bool) {
	g.now = now
	if g.over || g.shutdown {
		return // the game is over (or ending): the lobby connection closing is no news
	}
	reason, why := wire.ByeKicked, "lobby connection closed"
	if left {
		reason, why = wire.ByeLeft, "left the lobby"
	}
	for _, p := range g.peers {
		if p.member.UUID == id && !p.gone {
			if !p.bound {
				g.noHere(p) // a client that gave up waiting for WELCOME closes its lobby connection first
			}
			if left {
				g.dropPeer(p, reason, true, why)
			} else {
				g.losePeer(p, reason, why) // the client may have crashed: it may rejoin
			}
		}
	}
}

// Tokens calls fn with each player's session token (the runtime routes datagrams by token).
func (g *Game) Tokens(fn func(token uint32)) {
	for _, p := range g.peers {
		fn(p.member.Token)
	}
}

// Tick runs one 60 Hz tick at now: the simulation step (inputs, events, timeouts) unless the game
// is over, then every client's due reliable commands and, on snapshot ticks, its snapshot.
func (g *Game) Tick(now time.Duration) {
	g.now = now
	if !g.over {
		g.step()
	}
	g.sendAll()
}

// testHookStep, when set (tests only, before any game starts), runs at the start of every step;
// testHookReceive at the start of every ReceiveOpened. They inject faults (a panic) at exactly
// those points; package variables in the manner of net/http's testHook*, nil in production.
var testHookStep, testHookReceive func(g *Game)

// step runs one tick: inputs, simulation, events, timeouts.
func (g *Game) step() {
	if testHookStep != nil {
		testHookStep(g)
	}
	now := g.now
	t := uint32(g.sim.Tick()) + 1 // the tick this step produces
	active := 0
	for _, p := range g.peers {
		if p.gone {
			g.expireAway(p)
			continue
		}
		if !p.bound && now-p.joinedAt > g.cfg.HereTimeout {
			g.noHere(p)
			g.losePeer(p, wire.ByeTimeout, "never said HERE")
			continue
		}
		if p.bound && now-p.lastHeard > g.cfg.SilenceTimeout {
			g.losePeer(p, wire.ByeTimeout, "silent")
			continue
		}
		if p.spectator {
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
		g.sim.SetInput(p.slot, game.Input{Buttons: b})
	}
	if active == 0 {
		if g.awaiting() {
			return // every player is away: the game waits for a rejoin (RejoinWindow)
		}
		g.log.Info("every player left")
		g.broadcastEnd(rules.ResultAborted)
		return
	}
	if g.paused || g.userPaused {
		return
	}
	g.sim.Step()
	g.replicateEvents()
	for _, ev := range g.sim.Events() {
		if g.cfg.OnEvent != nil {
			g.cfg.OnEvent(ev)
		}
		switch ev.Kind {
		case game.EventDeath:
			g.broadcastReliable(wire.Death{Entity: uint64(ev.Entity), Slot: ev.Slot, Lives: ev.Lives}.Append(g.scratch()))
			g.log.Info("player died", "slot", ev.Slot, "lives", ev.Lives)
		case game.EventMusic:
			g.broadcastReliable(wire.Music{Song: ev.Song}.Append(g.scratch()))
		case game.EventStageClear: // an arcade run's tally: the stage's figures
			g.broadcastFigures(g.sim.StageFigures)
		case game.EventGameEnd:
			g.broadcastResults()
			g.broadcastEnd(ev.Result)
		}
	}
}

func (g *Game) scratch() []byte { return g.buf[:0] }

// replicateEvents turns the world's destroy/remove events into reliable DEL_ENTS / DEL_COMP, for
// each client in the order of the events: a tick's deletions in as few DEL_ENTS as fit
// (DelBatch).
func (g *Game) replicateEvents() {
	w := g.sim.World()
	evs := w.Events()
	g.tracker.Observe(evs)
	for _, p := range g.peers {
		if p.gone {
			continue
		}
		d := &g.dels
		for i := 0; i < len(evs) && !p.gone; i++ { // a failed send drops the peer
			ev := &evs[i]
			switch ev.Kind {
			case ecs.EventDestroyed:
				if p.w.Destroyed(ev.Entity) {
					if d.Full(uint64(ev.Entity)) {
						g.sendReliable(p, d.Cmd())
						d.Reset()
					}
					d.Add(uint64(ev.Entity))
				}
			case ecs.EventRemoved:
				if p.w.Removed(ev.Entity, ev.Component) {
					if c := d.Cmd(); c != nil {
						g.sendReliable(p, c)
						d.Reset()
					}
					g.sendReliable(p, wire.DelComp{Entity: uint64(ev.Entity), Component: uint32(ev.Component)}.Append(g.scratch()))
				}
			}
		}
		if c := d.Cmd(); c != nil && !p.gone {
			g.sendReliable(p, c)
		}
		d.Reset()
	}
	w.ClearEvents()
}

func (g *Game) broadcastEnd(r rules.Result) {
	if g.over {
		return
	}
	g.over, g.result, g.endAt = true, r, g.now
	g.broadcastReliable(wire.GameEnd{Result: uint8(r)}.Append(g.scratch()))
}

func (g *Game) broadcastReliable(cmd []byte) {
	for _, p := range g.peers {
		if !p.gone {
			g.sendReliable(p, cmd)
		}
	}
}

func (g *Game) sendReliable(p *peer, cmd []byte) {
	if !p.bound {
		if len(p.backlog)+len(cmd) <= maxBacklog {
			p.backlog = append(p.backlog, cmd...)
		}
		return
	}
	if err := p.ep.SendReliable(cmd); err != nil {
		g.losePeer(p, wire.ByeKicked, err.Error())
	}
}

// dropPeer removes p from the game and, when tell is set, tells it why with a BYE (not when it
// said BYE itself).
func (g *Game) dropPeer(p *peer, reason uint8, tell bool, why string) {
	if p.gone {
		return
	}
	if p.bound && !g.over && tell {
		b := g.header(p, g.scratch())
		b = wire.Bye{Reason: reason}.Append(b)
		g.write(p, b)
	}
	p.gone = true
	if !g.over && !p.spectator {
		g.sim.RemovePlayer(p.slot)
	}
	if p.spectator && !g.over {
		g.spectatorsGone = append(g.spectatorsGone, p.member)
	}
	g.log.Info("player dropped", "slot", p.slot, "name", p.member.Name, "reason", why)
}

// header appends p's next datagram header. Its tick is that of the last snapshot sent to p (the
// simulation tick before the first one), so a newer tick always means a new snapshot
// (docs/PROTOCOL.md §5.2); sendAll sets it on snapshot ticks.
func (g *Game) header(p *peer, buf []byte) []byte {
	seq, ack, bits, rel := p.ep.HeaderFields(g.now)
	tick := p.snapTick
	if tick == 0 {
		tick = uint32(g.sim.Tick())
	}
	h := wire.Header{Token: p.member.Token, Tick: tick, Seq: seq, Ack: ack, AckBits: bits, RelAck: rel}
	return h.Append(buf)
}

func (g *Game) write(p *peer, b []byte) {
	g.out.Put(b, p.addr)
	p.bytesOut += uint64(len(b))
	p.dgOut++
}

func relAppend(buf []byte, id uint16) []byte { return wire.Rel{ID: id}.Append(buf) }

// sendAll sends each bound client its due reliable commands and, on snapshot ticks, a snapshot.
func (g *Game) sendAll() {
	now := g.now
	g.frame++
	tick := g.frame
	for _, p := range g.peers {
		if p.gone || !p.bound {
			continue
		}
		if tick-p.lossAt >= lossEvery || p.lossAt == 0 {
			p.congested, p.lossAt = p.ep.LossOut(now) > 0.1, tick
		}
		every := uint32(SnapshotEvery)
		if p.congested {
			every = CongestedSnapshotEvery
		}
		snapshot := tick%every == 0 || g.over
		if !snapshot && p.ep.Pending() == 0 {
			continue
		}
		// Unacknowledged state goes out again after about one RTT, but at least every
		// MaxStateResend: on a jittery link an ack can take far longer than the mean RTT, and
		// waiting for it would leave a lost spawn missing for a second or more.
		p.w.ResendTicks = min(ecs.Tick(p.ep.RTT()*game.TickRate/time.Second)+4, MaxStateResendTicks)
		p.w.Clock = ecs.Tick(g.frame)
		if snapshot {
			p.snapTick = uint32(g.sim.Tick())
		}
		for d := 0; d < MaxDatagramsPerSnapshot; d++ {
			seq := p.ep.Seq()
			b := g.header(p, g.scratch())
			b = p.ep.AppendReliable(b, wire.MaxDatagram, now, relAppend)
			more := false
			if snapshot {
				b, more = p.w.AppendSnapshot(b, wire.MaxDatagram, seq)
			}
			g.write(p, b)
			if !more {
				break
			}
		}
	}
}

// Receive handles one datagram b from addr at now; an invalid one is dropped and counted
// (Dropped). b is not kept.
func (g *Game) Receive(now time.Duration, from netip.AddrPort, b []byte) {
	var h wire.Header
	r, err := wire.Open(b, &h)
	if err != nil {
		g.drop(now, wire.ReasonIndex(err), from)
		return
	}
	g.ReceiveOpened(now, from, b, &h, r)
}

// ReceiveOpened is Receive for a datagram the runtime already validated with wire.Open (it
// routes by the header's token).
func (g *Game) ReceiveOpened(now time.Duration, from netip.AddrPort, b []byte, h *wire.Header, r wire.Reader) {
	g.now = now
	if testHookReceive != nil {
		testHookReceive(g)
	}
	var p *peer
	for _, q := range g.peers {
		if q.member.Token == h.Token {
			p = q
		}
	}
	if p == nil {
		g.drop(now, DropUnknownToken, from)
		return
	}
	if p.gone {
		g.drop(now, DropGone, from) // mostly a dropped player's last datagrams
		return
	}
	switch {
	case !p.bound:
		// Only HERE with the member's uuid binds an address to the token (docs/PROTOCOL.md §5.5).
		if !isHere(r, p) {
			g.drop(now, DropAddress, from)
			return
		}
		g.log.Info("player here", "slot", p.slot, "name", p.member.Name, "addr", from)
		p.bound, p.addr = true, from
		g.sendReliable(p, g.welcome(p).Append(g.scratch()))
		for b := p.backlog; len(b) >= 2; { // the events before HERE, after WELCOME
			n := 2 + int(binary.LittleEndian.Uint16(b))
			g.sendReliable(p, b[:n])
			b = b[n:]
		}
		p.backlog = p.backlog[:0]
		// Answer at once with REL+WELCOME alone: never larger than the HERE datagram that caused
		// it (docs/PROTOCOL.md §6 rule 4).
		out := g.header(p, g.scratch())
		out = p.ep.AppendReliable(out, len(b), now, relAppend)
		g.write(p, out)
	case p.addr != from:
		// The session moves to a new address only with a valid RESPONSE; anything else (a
		// replayed HERE, a NAT rebinding's first datagrams) gets a CHALLENGE (§5.9).
		if !g.proven(p, from, len(b), r) {
			return
		}
	}
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
			if _, err := c.Parse(cmd); err == nil && !p.spectator {
				g.acceptInput(p, &c)
			}
		case wire.CmdPause:
			var c wire.Pause
			if _, err := c.Parse(cmd); err == nil {
				g.requestPause(p, c.Paused == 1)
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
				out := g.header(p, g.scratch())
				out = c.Append(out)
				g.write(p, out)
			}
		case wire.CmdGetEnt:
			var c wire.GetEnt
			if _, err := c.Parse(cmd); err == nil {
				e := ecs.Entity(c.Entity)
				if g.sim.World().Alive(e) {
					p.w.Forget(e)
				} else {
					g.sendReliable(p, wire.DelEnt(c).Append(g.scratch()))
				}
			}
		case wire.CmdBye:
			g.dropPeer(p, wire.ByeLeft, false, "said BYE")
			return
		}
	}
}

func isHere(r wire.Reader, p *peer) bool {
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
func (g *Game) acceptInput(p *peer, c *wire.Input) {
	p.usesInput = true
	cur := uint32(g.sim.Tick())
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

// PeerStats are one client's traffic figures, for tests and benchmarks.
type PeerStats struct {
	Slot              int
	BytesOut, BytesIn uint64
	DatagramsOut      uint64
	DatagramsIn       uint64
	Resends           uint64
	Gone              bool // dropped from the game (left, silent, never said HERE)
	// Addr is the address the session is bound to (zero before HERE); Moves counts the times it
	// moved (§5.9), Challenges the CHALLENGEs sent for it and ChallengeBytes their bytes.
	Addr              netip.AddrPort
	Moves, Challenges uint64
	ChallengeBytes    uint64
}

// Stats returns per-client traffic figures.
func (g *Game) Stats() []PeerStats {
	var out []PeerStats
	for _, p := range g.peers {
		out = append(out, PeerStats{Slot: p.slot, BytesOut: p.bytesOut, BytesIn: p.bytesIn, DatagramsOut: p.dgOut, DatagramsIn: p.dgIn,
			Resends: p.ep.Resends, Gone: p.gone, Addr: p.addr, Moves: p.moves, Challenges: p.challenges, ChallengeBytes: p.challengeBytes})
	}
	return out
}

// Drops returns the count of datagrams this game dropped, per reason (DropReasons).
func (g *Game) Drops() Drops { return g.drops }

// drop counts a dropped datagram and logs it, sampled (dropLog).
func (g *Game) drop(now time.Duration, reason int, from netip.AddrPort) {
	g.drops[reason]++
	g.dlog.note(g.log, now, reason, from)
}

// Session moves (docs/PROTOCOL.md §5.9).
const (
	// ChallengeLifetime is how long a CHALLENGE nonce may be answered.
	ChallengeLifetime = 5 * time.Second
	// AmplificationLimit: until an address proves the session key, the server sends it at most
	// this many times the bytes it received from it (as QUIC does, RFC 9000 §8).
	AmplificationLimit = 3
)

// nonce computes the CHALLENGE nonce for p's token at address to, issued at (ms since the game's
// start): at u32 little-endian, then the first 12 bytes of HMAC-SHA256(secret, token u32 || at u32
// || the address's 16 bytes (IPv4 mapped) || port u16), all little-endian. Only this game can make
// one; it names the address it was sent to and its age.
func (g *Game) nonce(token uint32, to netip.AddrPort, at uint32) [wire.NonceSize]byte {
	in := g.nonceIn[:]
	binary.LittleEndian.PutUint32(in, token)
	binary.LittleEndian.PutUint32(in[4:], at)
	a := to.Addr().As16()
	copy(in[8:], a[:])
	binary.LittleEndian.PutUint16(in[24:], to.Port())
	g.nonceMAC.Reset()
	g.nonceMAC.Write(in)
	sum := g.nonceMAC.Sum(g.nonceSum[:0])
	var n [wire.NonceSize]byte
	binary.LittleEndian.PutUint32(n[:], at)
	copy(n[4:], sum)
	return n
}

// sinceStart is now in whole milliseconds since the game's start (nonce times).
func (g *Game) sinceStart(now time.Duration) uint32 {
	return uint32((now - g.start) / time.Millisecond)
}

// proven handles a datagram of p's token (n bytes, commands r) from from, an address p is not
// bound to. With a valid RESPONSE (a nonce this game made for from, younger than
// ChallengeLifetime and newer than the last one p used, and a proof under p's session key) the
// session moves to from and proven reports true: the caller handles the datagram as usual.
// Otherwise the datagram is dropped and from gets a CHALLENGE, never more than AmplificationLimit
// times n bytes. The old address gets nothing more (no BYE: it is most likely gone, and one
// from an attacker would end an honest player's session).
func (g *Game) proven(p *peer, from netip.AddrPort, n int, r wire.Reader) bool {
	var c wire.Response
	found := false
	for r.Next() {
		if r.ID() == wire.CmdResponse {
			if _, err := c.Parse(r.Cmd()); err == nil {
				found = true
			}
		}
	}
	nowMs := g.sinceStart(g.now)
	if found {
		at := binary.LittleEndian.Uint32(c.Nonce[:])
		want := g.nonce(p.member.Token, from, at)
		fresh := int32(nowMs-at) >= 0 && nowMs-at <= uint32(ChallengeLifetime/time.Millisecond) &&
			(p.nonceAt == 0 || int32(at-p.nonceAt) > 0)
		if fresh && hmac.Equal(want[:], c.Nonce[:]) && p.prover.Check(p.member.Token, &c.Nonce, &c.Proof) {
			g.log.Info("player moved", "slot", p.slot, "name", p.member.Name, "from", p.addr.String(), "to", from.String())
			p.addr, p.nonceAt = from, at
			p.moves++
			return true
		}
		g.drop(g.now, DropResponse, from)
	} else {
		g.drop(g.now, DropAddress, from)
	}
	h := wire.Header{Token: p.member.Token, Tick: uint32(g.sim.Tick())}
	out := wire.Challenge{Nonce: g.nonce(p.member.Token, from, nowMs)}.Append(h.Append(g.scratch()))
	if len(out) <= AmplificationLimit*n && (g.cfg.Challenges == nil || g.cfg.Challenges.Allow(g.now, from.Addr())) {
		g.out.Put(out, from)
		p.challenges++
		p.challengeBytes += uint64(len(out))
	}
	return false
}
