package server

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/linksim"
	"github.com/rtype/rtype/net/testsupport/simgame"
	"github.com/rtype/rtype/net/wire"
)

// attacker is a host on the virtual network that records what the server sends it.
type attacker struct {
	addr         netip.AddrPort
	sent, got    uint64 // bytes
	gotDatagrams uint64
	nonces       [][wire.NonceSize]byte
	notChallenge int // datagrams that were not a lone CHALLENGE
	g            *simgame.Game
}

func newAttacker(g *simgame.Game, addr netip.AddrPort) *attacker {
	a := &attacker{addr: addr, g: g}
	g.Net.Attach(addr, linksim.Config{Latency: 10 * time.Millisecond}, linksim.Config{Latency: 10 * time.Millisecond},
		func(now time.Duration, _ netip.AddrPort, b []byte) {
			a.got += uint64(len(b))
			a.gotDatagrams++
			var h wire.Header
			r, err := wire.Open(b, &h)
			if err != nil || !r.Next() || r.ID() != wire.CmdChallenge {
				a.notChallenge++
				return
			}
			var c wire.Challenge
			if _, err := c.Parse(r.Cmd()); err != nil || r.Next() {
				a.notChallenge++
				return
			}
			a.nonces = append(a.nonces, c.Nonce)
		})
	return a
}

func (a *attacker) send(b []byte) {
	a.sent += uint64(len(b))
	a.g.Net.Send(a.g.Now, a.addr, a.g.ServerAddr, b)
}

// sniffed records every datagram the clients send, per client.
type sniffed struct{ dgs [][][]byte }

func (s *sniffed) hook(players int) func(time.Duration, int, netip.AddrPort, netip.AddrPort, []byte) {
	s.dgs = make([][][]byte, players)
	return func(_ time.Duration, i int, _, _ netip.AddrPort, b []byte) {
		s.dgs[i] = append(s.dgs[i], append([]byte(nil), b...))
	}
}

// withCommand returns the sniffed datagrams of client i that carry a command id.
func (s *sniffed) withCommand(i int, id wire.CmdID) [][]byte {
	var out [][]byte
	for _, b := range s.dgs[i] {
		var h wire.Header
		r, err := wire.Open(b, &h)
		if err != nil {
			continue
		}
		for r.Next() {
			if r.ID() == id {
				out = append(out, b)
				break
			}
		}
	}
	return out
}

func takeoverGame(t *testing.T, sn *sniffed) *simgame.Game {
	t.Helper()
	st, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	g, err := simgame.New(simgame.Config{Stage: st, Players: 2, Seed: 11, Autopilot: true, Sniff: sn.hook(2),
		Link: func(i int) linksim.Config {
			return linksim.Config{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Seed: uint64(30 + i)}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !g.RunUntil(time.Minute, func() bool { return g.Server.Sim().Tick() >= 300 }) {
		t.Fatalf("the game never reached tick 300")
	}
	return g
}

// playsToEnd runs g to its end and checks that every client saw GAME_END and was never
// disconnected.
func playsToEnd(t *testing.T, g *simgame.Game) {
	t.Helper()
	if !g.RunUntil(10*time.Minute, g.AllClosed) {
		t.Fatalf("the game did not end (server tick %d)", g.Server.Sim().Tick())
	}
	for i, evs := range g.Events {
		ended := false
		for _, e := range evs {
			if strings.HasPrefix(e, "disconnected") {
				t.Errorf("client %d: %s", i, e)
			}
			ended = ended || strings.HasPrefix(e, "game_end:")
		}
		if !ended {
			t.Errorf("client %d never got GAME_END: %v", i, evs)
		}
	}
	t.Logf("game over at tick %d, %v of virtual time; events of client 0: %v", g.Server.Sim().Tick(), g.Now, g.Events[0])
}

// TestReplayedHereNeverMovesSession (docs/PROTOCOL.md §5.9): an observer replays client 0's
// HERE datagram (and its latest datagram) from another port of the same host, for 3 seconds, then
// answers the server's CHALLENGEs with forged RESPONSEs. The session never moves; the attacker's
// port gets nothing but CHALLENGEs, never more than 3 times the bytes it sent; every datagram is
// counted (address, response); client 0 plays on to GAME_END.
func TestReplayedHereNeverMovesSession(t *testing.T) {
	t.Parallel()
	var sn sniffed
	g := takeoverGame(t, &sn)
	home := g.ClientAddr[0]
	heres := sn.withCommand(0, wire.CmdHere)
	if len(heres) == 0 {
		t.Fatal("no HERE sniffed")
	}
	a := newAttacker(g, netip.AddrPortFrom(home.Addr(), home.Port()+1))
	replays := 0
	for range 150 { // 3 s at 50 datagrams/s
		a.send(heres[0])
		a.send(sn.dgs[0][len(sn.dgs[0])-1])
		replays += 2
		g.RunFor(20 * time.Millisecond)
	}
	if len(a.nonces) == 0 {
		t.Fatal("the attacker got no CHALLENGE")
	}
	// forged answers: a random proof, and a proof for another token's nonce
	forged := 0
	for i, n := range a.nonces[:20] {
		h := wire.Header{Token: g.Members()[0].Token, Seq: uint16(1000 + i)}
		b := wire.Response{Nonce: n, Proof: [16]byte{byte(i), 1, 2, 3}}.Append(h.Append(nil))
		a.send(b)
		forged++
		g.RunFor(10 * time.Millisecond)
	}
	g.RunFor(200 * time.Millisecond)

	st := g.Server.Stats()[0]
	if st.Addr != home || st.Moves != 0 {
		t.Errorf("session of slot 0 at %v after %d moves, want %v and none", st.Addr, st.Moves, home)
	}
	if a.notChallenge > 0 {
		t.Errorf("the attacker got %d datagrams that are not a lone CHALLENGE", a.notChallenge)
	}
	if a.got > instance.AmplificationLimit*a.sent || a.got == 0 {
		t.Errorf("the attacker sent %d bytes and got %d (want 0 < got <= 3x)", a.sent, a.got)
	}
	d := g.Server.Drops()
	if d[instance.DropAddress] != uint64(replays) || d[instance.DropResponse] != uint64(forged) {
		t.Errorf("drops address %d, response %d; want %d and %d", d[instance.DropAddress], d[instance.DropResponse], replays, forged)
	}
	if c := g.Clients[0].Stats().Challenges; c != 0 {
		t.Errorf("client 0 got %d CHALLENGEs, want 0 (they went to the attacker)", c)
	}
	t.Logf("attacker: %d bytes in %d datagrams sent, %d bytes in %d CHALLENGEs back", a.sent, replays+forged, a.got, a.gotDatagrams)
	playsToEnd(t, g)
}

// TestClientKeepsPlayingAcrossRebinding (docs/PROTOCOL.md §5.9): client 0's NAT gives it a new
// source port mid-game (its old one is gone), and later another. Each time the server challenges
// the new address, the client answers with its session key, the session moves, and the client
// plays on to GAME_END without a timeout. The client's RESPONSEs, replayed by an observer from
// another address or from the old one, do not move the session again.
func TestClientKeepsPlayingAcrossRebinding(t *testing.T) {
	t.Parallel()
	var sn sniffed
	g := takeoverGame(t, &sn)
	home := g.ClientAddr[0]
	moves := []netip.AddrPort{netip.AddrPortFrom(home.Addr(), 61001), netip.AddrPortFrom(netip.MustParseAddr("10.0.9.9"), 40000)}
	for k, to := range moves {
		before := g.Clients[0].Stats().ServerTick
		g.MoveClient(0, to)
		g.RunFor(time.Second)
		st := g.Server.Stats()[0]
		if st.Addr != to || st.Moves != uint64(k+1) {
			t.Fatalf("move %d: session at %v after %d moves, want %v", k+1, st.Addr, st.Moves, to)
		}
		if after := g.Clients[0].Stats().ServerTick; after < before+50 {
			t.Errorf("move %d: client 0's server tick went from %d to %d in 1 s", k+1, before, after)
		}
		if g.Closed[0] {
			t.Fatalf("move %d: client 0's session ended: %v", k+1, g.Events[0])
		}
	}
	if c := g.Clients[0].Stats().Challenges; c == 0 {
		t.Error("client 0 answered no CHALLENGE")
	}
	resps := sn.withCommand(0, wire.CmdResponse)
	if len(resps) == 0 {
		t.Fatal("no RESPONSE sniffed")
	}
	// Replays: from an observer's address, and from the first address the client left (freed).
	drops := g.Server.Drops()[instance.DropResponse]
	obs := newAttacker(g, netip.MustParseAddrPort("10.0.6.6:5000"))
	old := newAttacker(g, netip.AddrPortFrom(home.Addr(), 61001))
	for _, b := range resps {
		obs.send(b)
		old.send(b)
		g.RunFor(5 * time.Millisecond)
	}
	g.RunFor(100 * time.Millisecond)
	if st := g.Server.Stats()[0]; st.Addr != moves[1] || st.Moves != 2 {
		t.Errorf("replayed RESPONSEs moved the session to %v (%d moves)", st.Addr, st.Moves)
	}
	if got := g.Server.Drops()[instance.DropResponse] - drops; got != uint64(2*len(resps)) {
		t.Errorf("%d replayed RESPONSEs dropped as bad, want %d", got, 2*len(resps))
	}
	for _, x := range []*attacker{obs, old} {
		if x.got > instance.AmplificationLimit*x.sent || x.notChallenge > 0 {
			t.Errorf("replayer %v: sent %d bytes, got %d (%d not CHALLENGE)", x.addr, x.sent, x.got, x.notChallenge)
		}
	}
	playsToEnd(t, g)
	if slices.ContainsFunc(g.Events[1], func(e string) bool { return strings.HasPrefix(e, "disconnected") }) {
		t.Errorf("client 1: %v", g.Events[1])
	}
}
