package instance

import (
	"context"
	"log/slog"
	"net/netip"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func members(n int) []handoff.Member {
	var ms []handoff.Member
	for i := 0; i < n; i++ {
		ms = append(ms, handoff.Member{UUID: uuid.New(), Name: "p", Slot: i, Token: uint32(1000 + i)})
	}
	return ms
}

// A panic inside one game's simulation ends that game as aborted (GAME_END to its players) and
// leaves the other instances running.
func TestPanicEndsOnlyThatGame(t *testing.T) {
	stage, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	testHookStep = func(g *Game) {
		if g.cfg.Code == "BOOM" && g.sim.Tick() == 30 {
			panic("injected fault")
		}
	}
	defer func() { testHookStep = nil }()
	m, err := NewManager(Config{Host: "127.0.0.1", Stage: stage, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := m.StartGame(handoff.GameSpec{Code: "BOOM", Stage: "", Members: members(2)})
	if err != nil {
		t.Fatal(err)
	}
	good, err := m.StartGame(handoff.GameSpec{Code: "FINE", Stage: "", Members: members(2)})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-bad.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("the game that panicked did not end")
	}
	if r := bad.Result(); r != uint8(rules.ResultAborted) {
		t.Errorf("result %d, want aborted (2)", r)
	}
	gi := good.(*Instance)
	waitTicking(t, gi, simTick(gi))
	select {
	case <-good.Done():
		t.Fatal("the other game ended too")
	default:
	}
	if m.Running() != 1 {
		t.Errorf("%d instances running, want 1", m.Running())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := m.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if r := good.Result(); r != uint8(rules.ResultAborted) {
		t.Errorf("shutdown result %d, want aborted", r)
	}
}

// newTestGame is a game core of n players at time 0 with a fixed seed (game events, which are
// logged, happen at fixed ticks).
func newTestGame(t *testing.T, ms []handoff.Member) *Game {
	t.Helper()
	stage, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGame(GameConfig{Code: "TEST", Members: ms, Stage: stage, Seed: 1, Logger: slog.New(slog.DiscardHandler)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// The server's hot path allocates nothing: handling a client's INPUT+PING datagram, and one
// tick of simulation plus snapshots for every client (the outbox included).
func TestHotPathAllocatesNothing(t *testing.T) {
	g := newTestGame(t, members(2))
	from := netip.MustParseAddrPort("127.0.0.1:5000")
	for i, p := range g.peers {
		p.bound, p.addr = true, netip.AddrPortFrom(from.Addr(), from.Port()+uint16(i))
	}
	var seq uint16
	now := time.Duration(0)
	datagram := func() []byte {
		seq++
		h := wire.Header{Token: g.peers[0].member.Token, Tick: uint32(g.sim.Tick()), Seq: seq}
		b := h.Append(nil)
		var c wire.Input
		c.Count = 3
		for i := 0; i < 3; i++ {
			c.Ticks[i], c.Buttons[i] = uint32(g.sim.Tick())+uint32(3-i), uint8(game.BtnFire|game.BtnRight)
		}
		b = c.Append(b)
		return wire.Ping{Nonce: 7}.Append(b)
	}
	tick := func() {
		now += game.TickPeriod
		g.Tick(now)
		g.out.Reset()
	}
	// warm up: grow every buffer to its steady size
	for i := 0; i < 600; i++ {
		g.Receive(now, from, datagram())
		tick()
	}
	dgs := make([][]byte, 200)
	for i := range dgs {
		dgs[i] = datagram()
	}
	i := 0
	if n := testing.AllocsPerRun(100, func() { g.Receive(now, from, dgs[i%len(dgs)]); g.out.Reset(); i++ }); n != 0 {
		t.Errorf("Receive: %v allocs per datagram, want 0", n)
	}
	if n := testing.AllocsPerRun(100, tick); n != 0 {
		t.Errorf("tick + snapshots: %v allocs, want 0", n)
	}
}

// A player's reliable channel starts with WELCOME, even when game events (the stage's MUSIC)
// happened before its HERE: the first answer is REL 1 + WELCOME, no larger than the HERE, and
// the earlier events follow as REL 2... (docs/PROTOCOL.md §3.7, §5.5).
func TestWelcomeIsTheFirstReliableCommand(t *testing.T) {
	ms := members(1)
	g := newTestGame(t, ms)
	now := time.Duration(0)
	for range 5 { // the MUSIC event of tick 1 happens before the player says HERE
		now += game.TickPeriod
		g.Tick(now)
	}
	if g.out.Len() != 0 {
		t.Fatalf("%d datagrams sent before anyone said HERE", g.out.Len())
	}
	client := netip.MustParseAddrPort("127.0.0.1:5000")
	here := wire.Header{Token: ms[0].Token, Seq: 1}.Append(nil)
	here = wire.Here{UUID: ms[0].UUID}.Append(here)
	here = wire.Ping{Nonce: 1}.Append(here)
	g.Receive(now, client, here)
	if g.out.Len() == 0 {
		t.Fatal("no answer to HERE")
	}
	first, to := g.out.At(0)
	if to != client {
		t.Fatalf("answer sent to %v, want %v", to, client)
	}
	var h wire.Header
	r, err := wire.Open(first, &h)
	if err != nil {
		t.Fatal(err)
	}
	var ids []wire.CmdID
	var rels []uint16
	for r.Next() {
		ids = append(ids, r.ID())
		if r.ID() == wire.CmdRel {
			var c wire.Rel
			if _, err := c.Parse(r.Cmd()); err == nil {
				rels = append(rels, c.ID)
			}
		}
	}
	if len(ids) != 2 || ids[0] != wire.CmdRel || ids[1] != wire.CmdWelcome || rels[0] != 1 || len(first) > len(here) {
		t.Fatalf("first answer: commands %v (rel ids %v), %d bytes for a %d-byte HERE; want REL 1 + WELCOME, not larger", ids, rels, len(first), len(here))
	}
	g.out.Reset()
	now += game.TickPeriod
	g.Tick(now)
	found := false
	for i := 0; i < g.out.Len() && !found; i++ {
		b, _ := g.out.At(i)
		if r, err := wire.Open(b, &h); err == nil {
			var rel uint16
			for r.Next() {
				switch r.ID() {
				case wire.CmdRel:
					var c wire.Rel
					_, _ = c.Parse(r.Cmd())
					rel = c.ID
				case wire.CmdMusic:
					if rel != 2 {
						t.Errorf("MUSIC as reliable command %d, want 2", rel)
					}
					found = true
				}
			}
		}
	}
	if !found {
		t.Error("the stage's MUSIC (before HERE) never came")
	}
}

// New games go to the least loaded slot of as many as their number needs (GamesPerSlot each),
// and the slots in use are spread over the tick period (slotOrder): a server with a few games
// wakes for one slot per tick, one with many uses ⌈games/GamesPerSlot⌉ slots within one game of
// each other, no two used slots further apart than twice an even spacing, and from
// 32 × GamesPerSlot games on every slot.
func TestPickSlotSpreadsGames(t *testing.T) {
	var m Manager
	used := func() (n, lo, hi, gap int) {
		lo = 1 << 30
		first, prev := -1, -1
		for s := range m.slots {
			if k := len(m.slots[s]); k > 0 {
				n++
				lo, hi = min(lo, k), max(hi, k)
				if prev >= 0 {
					gap = max(gap, s-prev)
				} else {
					first = s
				}
				prev = s
			}
		}
		gap = max(gap, Slots-prev+first) // around the period
		return
	}
	for g := 1; g <= Slots*GamesPerSlot; g++ {
		s := m.pickSlot()
		m.slots[s] = append(m.slots[s], &Instance{})
		want := min(Slots, (g+GamesPerSlot-1)/GamesPerSlot)
		n, lo, hi, gap := used()
		if n != want || hi > GamesPerSlot || (g%GamesPerSlot == 0 && hi-lo > 1) {
			t.Fatalf("%d games: %d slots in use with %d to %d games; want %d, at most %d each", g, n, lo, hi, want, GamesPerSlot)
		}
		if even := (Slots + n - 1) / n; gap > 2*even {
			t.Fatalf("%d games in %d slots: two used slots %d apart, want at most %d", g, n, gap, 2*even)
		}
	}
	if n, lo, hi, _ := used(); n != Slots || hi-lo > 0 {
		t.Fatalf("%d games: %d slots with %d to %d games; want every slot, %d each", Slots*GamesPerSlot, n, lo, hi, GamesPerSlot)
	}
}

// End to end, in real time, what only the real runtime shows (the schedule's decisions are
// TestSchedule*'s, in virtual time): on a server with one P and one worker, a game whose tick
// never ends by itself (a busy loop) does not stall the other: the Go runtime preempts the
// loop, the schedule adds a worker, and the other game runs 30 ticks while the slow game is
// still in its first. No rate is measured: the bound (60 s for what takes 0.5 s) only ends a
// run where the other game is stalled for good.
func TestSlowGameDoesNotStallOthers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	stage, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	var fineTicks atomic.Int32
	var stalled atomic.Bool
	release, ran30, gaveUp := make(chan struct{}), make(chan struct{}), make(chan struct{})
	testHookStep = func(g *Game) {
		switch g.cfg.Code {
		case "FINE":
			if fineTicks.Add(1) == 30 {
				close(ran30)
			}
		case "SLOW":
			for giveUp := time.Now().Add(60 * time.Second); fineTicks.Load() < 30; {
				select {
				case <-release:
					return
				default:
				}
				if time.Now().After(giveUp) {
					if stalled.CompareAndSwap(false, true) {
						close(gaveUp)
					}
					return
				}
			}
		}
	}
	t.Cleanup(func() { testHookStep = nil }) // after the runtime stops (cleanups run last first)
	m := startManager(t, Config{Host: "127.0.0.1", Stage: stage, Workers: 1, HereTimeout: time.Minute, Logger: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() { close(release) }) // before the runtime stops
	if _, err := m.StartGame(handoff.GameSpec{Code: "SLOW", Stage: "", Members: members(2)}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.StartGame(handoff.GameSpec{Code: "FINE", Stage: "", Members: members(2)}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ran30:
	case <-gaveUp:
		t.Fatalf("the other game ran %d ticks in 60 s beside a game whose tick does not end", fineTicks.Load())
	}
	if m.Stats().ExtraWorkers == 0 {
		t.Error("no extra worker was counted")
	}
}

// waitTicking waits until in's simulation is past tick k: it still runs. The bound (30 s for a
// tick period) only ends a run where it stopped for good.
func waitTicking(t *testing.T, in *Instance, k uint32) {
	t.Helper()
	for giveUp := time.Now().Add(30 * time.Second); simTick(in) <= k; time.Sleep(time.Millisecond) {
		if time.Now().After(giveUp) {
			t.Fatalf("the other game stopped ticking at tick %d", k)
		}
	}
}

// startManager starts a runtime with cfg, shut down when the test ends.
func startManager(t *testing.T, cfg Config) *Manager {
	t.Helper()
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = m.Shutdown(ctx)
	})
	return m
}
