// Package simgame is test support: a whole game in virtual time, one server game core
// (net/instance.Game), its players' client cores (net/session.Client) and a virtual network
// (net/testsupport/vnet) between them, driven by one discrete-event loop. Nothing sleeps and
// nothing depends on the scheduler: a game of the short stage runs in a fraction of its real
// length, and the same seeds give the same run. The netcode tests (link matrix, soak, prediction)
// use it; the real-socket end-to-end tests keep the runtimes honest.
package simgame

import (
	"log/slog"
	"net/netip"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/linksim"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/testsupport/vnet"
)

// Config configures a virtual game.
type Config struct {
	Stage *game.Stage
	// Run, with two or more stages, makes the game an arcade run (instance.GameConfig.Run; Stage
	// is then ignored); Section is a practice game's section (instance.GameConfig.Section).
	Run     []*game.Stage
	Section int
	// InfiniteLives is the practice trainer (instance.GameConfig.InfiniteLives).
	InfiniteLives bool
	Players       int    // 1..rules.MaxPlayers
	Seed          uint64 // the game's PRNG seed
	// Difficulty is the lobby's level (zero: Normal).
	Difficulty rules.Difficulty
	// Link gives player i's link (both directions; set a Seed per player for independent loss).
	// nil: a clean link.
	Link func(i int) linksim.Config
	// SilenceTimeout, HereTimeout: see instance.GameConfig.
	SilenceTimeout, HereTimeout time.Duration
	// RejoinWindow: see instance.GameConfig.
	RejoinWindow time.Duration
	// Autopilot drives every ship with game.Autopilot, as net/bot does; otherwise the test sets
	// the buttons with Client.SetInput.
	Autopilot bool
	// InputEvery is session.ClientConfig.InputEvery of every client (0: every tick).
	InputEvery int
	Logger     *slog.Logger
	// Sniff, when set, sees every datagram a client sends (an observer on the path: tests replay
	// them); b is valid only during the call.
	Sniff func(now time.Duration, i int, from, to netip.AddrPort, b []byte)
}

// Game is a virtual game. Its fields may be read (and the cores called) between steps.
type Game struct {
	Now     time.Duration // virtual time (0 at the start)
	Server  *instance.Game
	Clients []*session.Client
	Net     *vnet.Network
	// Events holds each client's reliable events in order (session.Event.String form).
	Events [][]string
	// ServerEvents holds the game events the server sent every client reliably (DEATH, MUSIC,
	// GAME_END), in order, in the same form: what each of Events must contain exactly once.
	ServerEvents []string
	// Closed reports, per client, that its session ended (CloseRequested, then Close).
	Closed     []bool
	ServerAddr netip.AddrPort
	ClientAddr []netip.AddrPort
	// ServerBusy is the wall time spent in the server core's calls (Receive, Tick): the server's
	// work for this game without sockets or runtime (benchmarks divide it by game time).
	ServerBusy time.Duration

	cfg        Config
	members    []handoff.Member
	serverNext time.Duration
	serverDone bool
	clientNext []time.Duration
	evbuf      []session.Event
}

// New creates the game at virtual time 0: the server core with one member per player, and each
// player's client core attached to the network (clients tick a little after the server, each at
// its own phase; their first tick says HERE).
func New(cfg Config) (*Game, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	g := &Game{cfg: cfg, Net: vnet.New(), ServerAddr: netip.MustParseAddrPort("10.0.0.1:4242")}
	members := make([]handoff.Member, cfg.Players)
	for i := range members {
		members[i] = handoff.Member{UUID: uuid.NewSHA1(uuid.NameSpaceOID, []byte{byte(i), byte(cfg.Seed)}), Name: "p" + string(rune('1'+i)), Slot: i, Token: uint32(1000 + i)}
		members[i].Key = [16]byte(uuid.NewSHA1(uuid.NameSpaceOID, []byte{'k', byte(i), byte(cfg.Seed)}))
	}
	var runTerrains []*game.Terrain
	if len(cfg.Run) >= 2 {
		cfg.Stage = cfg.Run[0]
		g.cfg.Stage = cfg.Stage
		for _, st := range cfg.Run {
			runTerrains = append(runTerrains, &st.Terrain)
		}
	}
	srv, err := instance.NewGame(instance.GameConfig{Code: "VIRT", Members: members, Stage: cfg.Stage, Seed: cfg.Seed, Run: cfg.Run, Section: cfg.Section, InfiniteLives: cfg.InfiniteLives, Difficulty: cfg.Difficulty,
		SilenceTimeout: cfg.SilenceTimeout, HereTimeout: cfg.HereTimeout, RejoinWindow: cfg.RejoinWindow, Logger: cfg.Logger,
		OnEvent: g.serverEvent}, 0)
	if err != nil {
		return nil, err
	}
	g.Server = srv
	g.members = members
	g.serverNext = game.TickPeriod
	g.Net.Attach(g.ServerAddr, linksim.Config{}, linksim.Config{}, func(now time.Duration, from netip.AddrPort, b []byte) {
		if g.serverDone {
			return
		}
		t0 := time.Now()
		g.Server.Receive(now, from, b)
		g.ServerBusy += time.Since(t0)
		g.flushServer(now)
	})
	for i := range members {
		addr := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 1, byte(i + 1)}), 50000)
		var terrain *game.Terrain
		if cfg.Stage != nil {
			terrain = &cfg.Stage.Terrain
		}
		c := session.NewClient(session.ClientConfig{Server: g.ServerAddr, UUID: members[i].UUID, Token: members[i].Token, Key: members[i].Key, Terrain: terrain, Run: runTerrains, InputEvery: cfg.InputEvery}, 0)
		g.Clients = append(g.Clients, c)
		g.ClientAddr = append(g.ClientAddr, addr)
		g.Events = append(g.Events, nil)
		g.Closed = append(g.Closed, false)
		g.clientNext = append(g.clientNext, game.TickPeriod+time.Duration(i+1)*3*time.Millisecond)
		g.attachClient(i, addr)
	}
	return g, nil
}

// Members returns the lobby members the server game was made for (tests read tokens and keys).
func (g *Game) Members() []handoff.Member { return g.members }

func (g *Game) attachClient(i int, addr netip.AddrPort) {
	var lc linksim.Config
	if g.cfg.Link != nil {
		lc = g.cfg.Link(i)
	}
	c := g.Clients[i]
	g.Net.Attach(addr, lc, lc, func(now time.Duration, _ netip.AddrPort, b []byte) {
		if g.Closed[i] {
			return
		}
		c.Receive(now, b)
		g.flushClient(i, now)
	})
}

// MoveClient gives client i a new source address from now on, as a NAT rebinding does: its old
// address is gone (what the server sends there is lost), and its datagrams come from addr.
func (g *Game) MoveClient(i int, addr netip.AddrPort) {
	g.Net.Detach(g.ClientAddr[i])
	g.ClientAddr[i] = addr
	g.attachClient(i, addr)
}

// SetLink changes player i's link (both directions) for datagrams sent from now on.
func (g *Game) SetLink(i int, c linksim.Config) { g.Net.SetConfig(g.ClientAddr[i], c, c) }

func (g *Game) flushServer(now time.Duration) {
	g.Server.Outbox().Flush(func(b []byte, to netip.AddrPort) { g.Net.Send(now, g.ServerAddr, to, b) })
}

func (g *Game) flushClient(i int, now time.Duration) {
	c := g.Clients[i]
	c.Outbox().Flush(func(b []byte, to netip.AddrPort) { g.sendFrom(now, i, to, b) })
	if end, why := c.CloseRequested(); end && !g.Closed[i] {
		c.Close(now, false, why)
		c.Outbox().Flush(func(b []byte, to netip.AddrPort) { g.sendFrom(now, i, to, b) })
		g.Closed[i] = true
	}
	g.evbuf = c.TakeEvents(g.evbuf[:0])
	for _, ev := range g.evbuf {
		g.Events[i] = append(g.Events[i], ev.String())
	}
}

// CloseClient closes client i now (bye: it says BYE, as Session.Close does).
func (g *Game) CloseClient(i int, bye bool) {
	if g.Closed[i] {
		return
	}
	g.Clients[i].Close(g.Now, bye, "closed")
	g.Closed[i] = true
	g.Clients[i].Outbox().Flush(func(b []byte, to netip.AddrPort) { g.sendFrom(g.Now, i, to, b) })
}

// sendFrom sends client i's datagram b to to at now, past the sniffer.
func (g *Game) sendFrom(now time.Duration, i int, to netip.AddrPort, b []byte) {
	if g.cfg.Sniff != nil {
		g.cfg.Sniff(now, i, g.ClientAddr[i], to, b)
	}
	g.Net.Send(now, g.ClientAddr[i], to, b)
}

// ServerFinished reports whether the server game ended and may close (Game.Finished): the
// loop stops ticking it then.
func (g *Game) ServerFinished() bool { return g.serverDone }

// Step advances virtual time to the next event (a datagram arriving, a server or client tick)
// and runs it. It reports false when nothing is left to happen.
func (g *Game) Step() bool {
	next, ok := g.Net.Next()
	if !g.serverDone && (!ok || g.serverNext < next) {
		next, ok = g.serverNext, true
	}
	for i, t := range g.clientNext {
		if !g.Closed[i] && (!ok || t < next) {
			next, ok = t, true
		}
	}
	if !ok {
		return false
	}
	g.Now = next
	g.Net.Deliver(next)
	if !g.serverDone && g.serverNext == next {
		t0 := time.Now()
		g.Server.Tick(next)
		g.ServerBusy += time.Since(t0)
		g.flushServer(next)
		g.serverNext += game.TickPeriod
		if g.Server.Finished(next) {
			g.serverDone = true
		}
	}
	for i, c := range g.Clients {
		if g.Closed[i] || g.clientNext[i] != next {
			continue
		}
		if g.cfg.Autopilot {
			c.View(next, func(v *session.View) {
				var b game.Buttons
				if v.Self != ecs.Nil {
					_, _, t := v.Stage() // the run's stage's terrain (Config.Stage's in a one-stage game)
					b = game.Autopilot(v.World, v.C, t, v.Self, v.Tick).Buttons
				}
				c.SetInput(b)
			})
		}
		c.Tick(next)
		g.flushClient(i, next)
		g.clientNext[i] += game.TickPeriod
	}
	return true
}

// RunUntil steps until cond holds (checked after every step) or virtual time reaches limit; it
// reports whether cond held.
func (g *Game) RunUntil(limit time.Duration, cond func() bool) bool {
	for !cond() {
		if g.Now >= limit || !g.Step() {
			return cond()
		}
	}
	return true
}

// RunFor steps for d of virtual time.
func (g *Game) RunFor(d time.Duration) {
	end := g.Now + d
	g.RunUntil(end, func() bool { return g.Now >= end })
}

// AllClosed reports whether every client's session has ended.
func (g *Game) AllClosed() bool {
	for _, c := range g.Closed {
		if !c {
			return false
		}
	}
	return true
}

// serverEvent records a game event the server queued for every client (GameConfig.OnEvent),
// in the clients' session.Event.String form.
func (g *Game) serverEvent(ev game.Event) {
	e := session.Event{Slot: ev.Slot, Lives: ev.Lives, Song: ev.Song, Result: ev.Result}
	switch ev.Kind {
	case game.EventDeath:
		e.Kind = session.EventDeath
	case game.EventMusic:
		e.Kind = session.EventMusic
	case game.EventGameEnd:
		e.Kind = session.EventGameEnd
	default:
		return
	}
	g.ServerEvents = append(g.ServerEvents, e.String())
}
