package instance

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/goleak"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/wire"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func members(n int) []lobby.Member {
	var ms []lobby.Member
	for i := 0; i < n; i++ {
		ms = append(ms, lobby.Member{UUID: uuid.New(), Name: "p", Slot: i, Token: uint32(1000 + i)})
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
	stepHook = func(in *Instance) {
		if in.code == "BOOM" && in.sim.Tick() == 30 {
			panic("injected fault")
		}
	}
	defer func() { stepHook = nil }()
	m := NewManager(Config{Host: "127.0.0.1", Stage: stage, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	bad, err := m.StartGame("BOOM", "", members(2))
	if err != nil {
		t.Fatal(err)
	}
	good, err := m.StartGame("FINE", "", members(2))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-bad.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("the game that panicked did not end")
	}
	if r := bad.Result(); r != uint8(game.ResultAborted) {
		t.Errorf("result %d, want aborted (2)", r)
	}
	gi := good.(*Instance)
	var t1 uint32
	gi.View(func(s *game.Sim) { t1 = uint32(s.Tick()) })
	time.Sleep(200 * time.Millisecond)
	var t2 uint32
	gi.View(func(s *game.Sim) { t2 = uint32(s.Tick()) })
	select {
	case <-good.Done():
		t.Fatal("the other game ended too")
	default:
	}
	if t2 <= t1 {
		t.Errorf("the other game stopped ticking: tick %d then %d", t1, t2)
	}
	if m.Running() != 1 {
		t.Errorf("%d instances running, want 1", m.Running())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := m.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if r := good.Result(); r != uint8(game.ResultAborted) {
		t.Errorf("shutdown result %d, want aborted", r)
	}
}

// The server's hot path allocates nothing: handling a client's INPUT+PING datagram, and one
// tick of simulation plus snapshots for every client.
func TestHotPathAllocatesNothing(t *testing.T) {
	stage, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	// a fixed seed keeps the run deterministic (game events, which are logged, happen at fixed ticks)
	m := NewManager(Config{Host: "127.0.0.1", Stage: stage, Seed: func() uint64 { return 1 }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	sock, err := m.listen()
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	in := newInstance(m, "ALLOC", stage, members(2), sock)
	from := sock.LocalAddr() // datagrams "from" ourselves: the snapshots come back to this socket, unread
	for _, p := range in.peers {
		p.bound, p.addr = true, from
	}
	in.peers[1].addr = netip.AddrPortFrom(from.Addr(), from.Port()+1)
	var seq uint16
	tick := uint32(0)
	datagram := func() []byte {
		seq++
		h := wire.Header{Token: in.peers[0].member.Token, Tick: tick, Seq: seq}
		b := h.Append(nil)
		var c wire.Input
		c.Count = 3
		for i := 0; i < 3; i++ {
			c.Ticks[i], c.Buttons[i] = uint32(in.sim.Tick())+uint32(3-i), uint8(game.BtnFire|game.BtnRight)
		}
		b = c.Append(b)
		return wire.Ping{Nonce: 7}.Append(b)
	}
	// warm up: grow every buffer to its steady size
	for i := 0; i < 600; i++ {
		in.handle(datagram(), from)
		in.mu.Lock()
		in.step(in.now())
		in.sendAll(in.now())
		in.mu.Unlock()
	}
	dgs := make([][]byte, 200)
	for i := range dgs {
		dgs[i] = datagram()
	}
	i := 0
	if n := testing.AllocsPerRun(100, func() { in.handle(dgs[i%len(dgs)], from); i++ }); n != 0 {
		t.Errorf("handle: %v allocs per datagram, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() {
		in.mu.Lock()
		in.step(in.now())
		in.sendAll(in.now())
		in.mu.Unlock()
	}); n != 0 {
		t.Errorf("tick + snapshots: %v allocs, want 0", n)
	}
}

// A player's reliable channel starts with WELCOME, even when game events (the stage's MUSIC)
// happened before its HERE: the first answer is REL 1 + WELCOME, no larger than the HERE, and
// the earlier events follow as REL 2... (docs/PROTOCOL.md §3.7, §5.5).
func TestWelcomeIsTheFirstReliableCommand(t *testing.T) {
	stage, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(Config{Host: "127.0.0.1", Stage: stage, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	sock, err := m.listen()
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	ms := members(1)
	in := newInstance(m, "WELC", stage, ms, sock)
	in.mu.Lock()
	for range 5 { // the MUSIC event of tick 1 happens before the player says HERE
		in.step(in.now())
		in.sendAll(in.now())
	}
	in.mu.Unlock()
	client, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:0")))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	here := wire.Header{Token: ms[0].Token, Seq: 1}.Append(nil)
	here = wire.Here{UUID: ms[0].UUID}.Append(here)
	here = wire.Ping{Nonce: 1}.Append(here)
	in.handle(here, client.LocalAddr().(*net.UDPAddr).AddrPort())
	read := func() []byte {
		buf := make([]byte, 2048)
		_ = client.SetReadDeadline(time.Now().Add(2 * time.Second))
		n, err := client.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		return buf[:n]
	}
	first := read()
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
	in.mu.Lock()
	in.step(in.now())
	in.sendAll(in.now())
	in.mu.Unlock()
	found := false
	for range 4 {
		b := read()
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
		if found {
			break
		}
	}
	if !found {
		t.Error("the stage's MUSIC (before HERE) never came")
	}
}
