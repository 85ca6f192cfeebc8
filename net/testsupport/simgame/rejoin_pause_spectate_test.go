package simgame

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/linksim"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/wire"
)

// calmStage has no enemies and a boss far away: ships live as long as the test needs.
const calmStage = `{
  "name": "calm", "scrollSpeed": 60,
  "sections": [{"at": 0, "song": 1}],
  "waves": [],
  "boss": {"at": 900000, "kind": "small", "hp": 10, "song": 3,
    "phases": [{"below": 100, "pattern": "fan", "interval": 60, "bullets": 5, "speed": 300, "open": 60, "closed": 60}]}
}`

func calm(t *testing.T, players int, cfg Config) *Game {
	t.Helper()
	st, err := game.ParseStage("calm.json", []byte(calmStage))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Stage, cfg.Players, cfg.Seed = st, players, 3
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func member(name string, slot int, token uint32) handoff.Member {
	return handoff.Member{UUID: uuid.NewSHA1(uuid.NameSpaceOID, []byte(name)), Name: name, Slot: slot, Token: token,
		Key: [16]byte(uuid.NewSHA1(uuid.NameSpaceURL, []byte(name)))}
}

// A player whose client crashes keeps its slot: its ship is suspended (not killed), the game goes
// on for the other, and a rejoin within the window resumes the same slot with the score and the
// lives it had; the old token no longer works; a connected slot, or one whose window is over,
// cannot be rejoined.
func TestRejoinResumesTheSlot(t *testing.T) {
	g := calm(t, 2, Config{SilenceTimeout: 2 * time.Second, RejoinWindow: 20 * time.Second})
	sim := g.Server.Sim()
	g.RunFor(time.Second)
	e1 := sim.PlayerEntity(1)
	sim.Components().Player.Mut(e1).Score = 4200
	sim.Components().Player.Mut(e1).Lives = 2
	g.CloseClient(1, false) // crash: no BYE
	if !g.RunUntil(5*time.Second, func() bool { return sim.Suspended(1) }) {
		t.Fatal("the silent player's ship was not suspended")
	}
	if sim.World().Alive(e1) {
		t.Error("the suspended ship is still in the world")
	}
	if away := g.Server.Away(); !slices.Equal(away, []int{1}) {
		t.Errorf("Away() = %v, want [1]", away)
	}
	tick := sim.Tick()
	g.RunFor(2 * time.Second)
	if sim.Tick()-tick < 100 {
		t.Fatalf("the game did not go on for the remaining player: %d ticks in 2 s", sim.Tick()-tick)
	}

	// Rejoin attempts that must fail.
	if _, err := g.Server.Rejoin(g.Now, member("thief", 0, 3000)); !errors.Is(err, instance.ErrNotAway) {
		t.Errorf("rejoin of a connected slot: %v, want ErrNotAway", err)
	}
	rj := member("p2-again", 1, 2001)
	old, err := g.Server.Rejoin(g.Now, rj)
	if err != nil || old != g.Members()[1].Token {
		t.Fatalf("Rejoin = %d, %v; want the old token %d", old, err, g.Members()[1].Token)
	}
	i := g.AddClient(rj)
	if !g.RunUntil(g.Now+2*time.Second, func() bool { return len(g.Events[i]) > 0 }) || g.Events[i][0] != "welcome:1" {
		t.Fatalf("rejoined client events %v, want welcome:1 first", g.Events[i])
	}
	e := sim.PlayerEntity(1)
	if e == ecs.Nil || e == e1 {
		t.Fatalf("rejoined ship %v (old %v)", e, e1)
	}
	if pl := sim.Components().Player.Get(e); pl.Score != 4200 || pl.Lives != 2 {
		t.Errorf("rejoined player %+v, want score 4200 and 2 lives", pl)
	}
	g.RunFor(time.Second)
	var self ecs.Entity
	g.Clients[i].View(g.Now, func(v *session.View) { self = v.Self })
	if self != e {
		t.Errorf("the rejoined client's Self = %v, want %v", self, e)
	}
	// A datagram with the old token is dropped as unknown.
	before := g.Server.Drops()[instance.DropUnknownToken]
	h := wire.Header{Token: g.Members()[1].Token, Seq: 1}
	g.Server.Receive(g.Now, g.ClientAddr[1], wire.Here{UUID: g.Members()[1].UUID}.Append(h.Append(nil)))
	if g.Server.Drops()[instance.DropUnknownToken] != before+1 {
		t.Error("the old token still reaches the game")
	}

	// The window: a slot lost for longer is removed for good.
	g.CloseClient(i, false)
	if !g.RunUntil(g.Now+30*time.Second, func() bool { return !sim.Suspended(1) && sim.PlayerEntity(1) == ecs.Nil }) {
		t.Fatal("the slot was not removed after the rejoin window")
	}
	if _, err := g.Server.Rejoin(g.Now, member("late", 1, 2002)); !errors.Is(err, instance.ErrNotAway) {
		t.Errorf("rejoin after the window: %v, want ErrNotAway", err)
	}
	if over, _ := g.Server.Over(); over {
		t.Error("the game ended while player 1 still plays")
	}
}

// When every player is lost, the game waits (its simulation does not run) until one rejoins.
func TestLoneLostPlayerGameWaits(t *testing.T) {
	g := calm(t, 1, Config{SilenceTimeout: time.Second, RejoinWindow: 10 * time.Second})
	sim := g.Server.Sim()
	g.RunFor(time.Second)
	g.CloseClient(0, false)
	if !g.RunUntil(4*time.Second, func() bool { return sim.Suspended(0) }) {
		t.Fatal("not suspended")
	}
	tick := sim.Tick()
	g.RunFor(3 * time.Second)
	if sim.Tick() != tick {
		t.Errorf("the empty game ran %d ticks while waiting for a rejoin", sim.Tick()-tick)
	}
	if over, _ := g.Server.Over(); over {
		t.Fatal("the game ended within the rejoin window")
	}
	rj := member("back", 0, 2000)
	if _, err := g.Server.Rejoin(g.Now, rj); err != nil {
		t.Fatal(err)
	}
	g.AddClient(rj)
	g.RunFor(time.Second)
	if sim.Tick() <= tick {
		t.Error("the game did not resume after the rejoin")
	}
	// Lost again and never back: aborted once the window is over.
	g.CloseClient(1, false)
	if !g.RunUntil(g.Now+15*time.Second, func() bool { over, _ := g.Server.Over(); return over }) {
		t.Fatal("the game did not end after the rejoin window")
	}
	if _, r := g.Server.Over(); r != rules.ResultAborted {
		t.Errorf("result %v, want aborted", r)
	}
}

// A lone player who paused, crashed and rejoined finds the game running (it froze with no ship
// and "1P ---" until the rejoiner opened the menu and resumed).
func TestRejoinResumesAPausedGame(t *testing.T) {
	g := calm(t, 1, Config{SilenceTimeout: time.Second, RejoinWindow: 10 * time.Second})
	sim := g.Server.Sim()
	g.RunFor(time.Second)
	g.Clients[0].RequestPause(true)
	if !g.RunUntil(g.Now+time.Second, g.Server.Paused) {
		t.Fatal("the lone player's PAUSE was not honoured")
	}
	g.CloseClient(0, false)
	if !g.RunUntil(g.Now+4*time.Second, func() bool { return sim.Suspended(0) }) {
		t.Fatal("not suspended")
	}
	rj := member("back", 0, 2000)
	if _, err := g.Server.Rejoin(g.Now, rj); err != nil {
		t.Fatal(err)
	}
	if g.Server.Paused() {
		t.Fatal("the game is still paused after the rejoin")
	}
	i := g.AddClient(rj)
	tick := sim.Tick()
	g.RunFor(time.Second)
	if sim.Tick()-tick < 50 {
		t.Errorf("the game ran %d ticks in the second after the rejoin", sim.Tick()-tick)
	}
	var self ecs.Entity
	g.Clients[i].View(g.Now, func(v *session.View) { self = v.Self })
	if self == ecs.Nil || self != sim.PlayerEntity(0) {
		t.Errorf("the rejoined client has no ship: Self %v, server's %v", self, sim.PlayerEntity(0))
	}
}

// A spectator follows a whole short game: it is welcomed without a ship, mirrors the players'
// ships, sends no input, is capped at MaxSpectators, and gets RESULTS then GAME_END like the
// player.
func TestSpectatorFollowsAGame(t *testing.T) {
	st, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Stage: st, Players: 1, Seed: 5, Autopilot: true})
	if err != nil {
		t.Fatal(err)
	}
	g.RunFor(3 * time.Second)
	sp := member("watcher", -1, 5000)
	if err := g.Server.Spectate(g.Now, sp); err != nil {
		t.Fatal(err)
	}
	i := g.AddClient(sp)
	for k := 1; k < instance.MaxSpectators; k++ {
		if err := g.Server.Spectate(g.Now, member("w"+string(rune('a'+k)), -1, uint32(5000+k))); err != nil {
			t.Fatalf("spectator %d: %v", k+1, err)
		}
	}
	if err := g.Server.Spectate(g.Now, member("one-too-many", -1, 6000)); !errors.Is(err, instance.ErrTooManyWatch) {
		t.Errorf("spectator %d: %v, want ErrTooManyWatch", instance.MaxSpectators+1, err)
	}
	if n := g.Server.Spectators(); n != instance.MaxSpectators {
		t.Errorf("Spectators() = %d", n)
	}
	g.RunFor(2 * time.Second)
	ship := g.Server.Sim().PlayerEntity(0)
	g.Clients[i].View(g.Now, func(v *session.View) {
		if !v.Spectator || v.Self != ecs.Nil || v.Slot != -1 {
			t.Errorf("spectator view: Spectator %v Self %v Slot %d", v.Spectator, v.Self, v.Slot)
		}
		if v.C.Player.Get(ship) == nil {
			t.Error("the spectator does not see the player's ship")
		}
	})
	if !g.RunUntil(10*time.Minute, func() bool { return g.Closed[0] && g.Closed[i] }) {
		t.Fatalf("the game did not end: player %v spectator %v", g.Events[0], g.Events[i])
	}
	for _, k := range []int{0, i} {
		ev := g.Events[k]
		n := len(ev)
		if n < 2 || !strings.HasPrefix(ev[n-1], "game_end:") || ev[n-2] != "results:1" {
			t.Errorf("client %d events end with %v, want results:1 then game_end", k, ev[max(0, n-3):])
		}
	}
	if g.Events[i][0] != "welcome:255" {
		t.Errorf("spectator's first event %q, want welcome:255", g.Events[i][0])
	}
	res, ok := g.Clients[i].Results()
	want := g.Server.Sim().Stats(0)
	if !ok || res.Count != 1 || res.Entries[0].Score != want.Score || res.Entries[0].Shots != want.Shots || res.Entries[0].Shots == 0 {
		t.Errorf("spectator's RESULTS %+v (ok %v), want slot 0 with %+v", res, ok, want)
	}
	for _, ps := range g.Server.Stats() {
		if ps.Slot == -1 && ps.BytesIn > 0 && ps.DatagramsIn == 0 {
			t.Error("inconsistent spectator stats")
		}
	}
}

// PAUSE from the only player stops the simulation (ticks still send snapshots) and its view
// holds still; resume goes on. With two players the request is ignored.
func TestPauseSoloOnly(t *testing.T) {
	g := calm(t, 1, Config{})
	sim := g.Server.Sim()
	g.RunFor(time.Second)
	c := g.Clients[0]
	c.SetInput(game.BtnDown)
	g.RunFor(200 * time.Millisecond)
	c.RequestPause(true)
	if !g.RunUntil(g.Now+time.Second, func() bool { return c.Paused() }) {
		t.Fatal("the client was not told the game is paused")
	}
	tick := sim.Tick()
	var x0, y0 float32
	c.View(g.Now, func(v *session.View) { x0, y0, _ = v.Pos(v.Self) })
	in := g.Server.Stats()[0].DatagramsOut
	g.RunFor(3 * time.Second)
	if sim.Tick() != tick {
		t.Errorf("the paused game ran %d ticks", sim.Tick()-tick)
	}
	if g.Server.Stats()[0].DatagramsOut-in < 60 {
		t.Error("the paused game stopped sending")
	}
	c.View(g.Now, func(v *session.View) {
		x, y, _ := v.Pos(v.Self)
		if x != x0 || y != y0 || !v.Paused {
			t.Errorf("paused view moved from (%v,%v) to (%v,%v) (Paused %v)", x0, y0, x, y, v.Paused)
		}
	})
	c.RequestPause(false)
	g.RunFor(time.Second)
	if c.Paused() || sim.Tick()-tick < 30 {
		t.Errorf("resume: Paused %v, %d ticks", c.Paused(), sim.Tick()-tick)
	}
	if want := []string{"pause:true", "pause:false"}; !containsInOrder(g.Events[0], want) {
		t.Errorf("events %v, want %v", g.Events[0], want)
	}

	g2 := calm(t, 2, Config{})
	g2.RunFor(time.Second)
	g2.Clients[0].RequestPause(true)
	tick = g2.Server.Sim().Tick()
	g2.RunFor(time.Second)
	if g2.Clients[0].Paused() || g2.Server.Paused() || g2.Server.Sim().Tick()-tick < 50 {
		t.Error("a two-player game paused")
	}
}

// After a second without datagrams the link is interrupted: the view holds still and Silence
// counts; when datagrams come back the world moves again.
func TestInterruptedLinkHoldsTheView(t *testing.T) {
	g := calm(t, 1, Config{})
	g.RunFor(time.Second)
	c := g.Clients[0]
	c.SetInput(game.BtnDown)
	g.SetLink(0, linksim.Config{Loss: 1})
	g.RunFor(1500 * time.Millisecond)
	if !c.Interrupted(g.Now) || c.Silence(g.Now) < time.Second {
		t.Fatalf("Interrupted %v Silence %v after 1.5 s of total loss", c.Interrupted(g.Now), c.Silence(g.Now))
	}
	var y0, rt0 float64
	c.View(g.Now, func(v *session.View) { _, y, _ := v.Pos(v.Self); y0, rt0 = float64(y), v.RenderTick })
	g.RunFor(time.Second)
	c.View(g.Now, func(v *session.View) {
		_, y, _ := v.Pos(v.Self)
		if float64(y) != y0 || v.RenderTick != rt0 || !v.Interrupted || v.Silence < 2*time.Second {
			t.Errorf("interrupted view moved: y %v→%v, render tick %v→%v, Interrupted %v, Silence %v", y0, y, rt0, v.RenderTick, v.Interrupted, v.Silence)
		}
	})
	g.SetLink(0, linksim.Config{})
	g.RunFor(time.Second)
	if c.Interrupted(g.Now) || c.Silence(g.Now) > 100*time.Millisecond {
		t.Errorf("after the link came back: Interrupted %v Silence %v", c.Interrupted(g.Now), c.Silence(g.Now))
	}
}

func containsInOrder(have, want []string) bool {
	j := 0
	for _, h := range have {
		if j < len(want) && h == want[j] {
			j++
		}
	}
	return j == len(want)
}

// Spectators the game drops on its own are reported to the lobby (TakeSpectatorsGone): one that
// never says HERE after the HERE timeout (20 s), one that said BYE; a watching one is not.
func TestSilentSpectatorsReported(t *testing.T) {
	st, err := game.LoadStage("short")
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Stage: st, Players: 1, Seed: 5, Autopilot: true})
	if err != nil {
		t.Fatal(err)
	}
	g.RunFor(time.Second)
	watcher, silent, quitter := member("watcher", -1, 5000), member("silent", -1, 5001), member("quitter", -1, 5002)
	for _, m := range []handoff.Member{watcher, silent, quitter} {
		if err := g.Server.Spectate(g.Now, m); err != nil {
			t.Fatal(err)
		}
	}
	g.AddClient(watcher)
	q := g.AddClient(quitter)
	g.RunFor(2 * time.Second)
	g.CloseClient(q, true) // BYE
	g.RunFor(2 * time.Second)
	if gone := g.Server.TakeSpectatorsGone(); len(gone) != 1 || gone[0].Token != quitter.Token {
		t.Fatalf("spectators gone after a BYE: %+v, want the quitter", gone)
	}
	g.RunFor(17 * time.Second) // past the HERE timeout
	gone := g.Server.TakeSpectatorsGone()
	if len(gone) != 1 || gone[0].Token != silent.Token || gone[0].UUID != silent.UUID {
		t.Fatalf("spectators gone after the HERE timeout: %+v, want the silent one", gone)
	}
	if n := g.Server.Spectators(); n != 1 {
		t.Fatalf("Spectators() = %d, want 1 (the watcher)", n)
	}
	if gone := g.Server.TakeSpectatorsGone(); len(gone) != 0 {
		t.Fatalf("reported twice: %+v", gone)
	}
}
