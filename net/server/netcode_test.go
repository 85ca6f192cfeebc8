package server

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/net/linksim"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/testsupport/simgame"
)

// linkCase is one row of the Valve GameNetworkingSockets test matrix (bandwidth, loss, latency,
// reorder), applied to each bot's link in both directions, plus the yojimbo-style soak.
type linkCase struct {
	name string
	cfg  linksim.Config
}

var linkMatrix = []linkCase{
	{"lan", linksim.Config{Bandwidth: 2_000_000}},
	{"wifi", linksim.Config{Bandwidth: 1_000_000, Loss: 0.02, Latency: 5 * time.Millisecond, Reorder: 0.02}},
	{"moderate", linksim.Config{Bandwidth: 1_000_000, Loss: 0.05, Latency: 50 * time.Millisecond, Reorder: 0.02}},
	{"terrible_loss", linksim.Config{Bandwidth: 1_000_000, Loss: 0.20, Latency: 100 * time.Millisecond, Reorder: 0.04}},
	{"low_bw_terrible_loss", linksim.Config{Bandwidth: 64_000, Loss: 0.20, Latency: 100 * time.Millisecond, Reorder: 0.04}},
	{"soak", linksim.Config{Latency: 250 * time.Millisecond, Jitter: 250 * time.Millisecond, Loss: 0.10, Dup: 0.50}},
}

// TestLinkMatrix: 4 players (the bots' autopilot) play the short stage over each impaired link,
// in virtual time (net/testsupport/simgame: the server and client cores on the link simulator's virtual
// network, deterministic for a seed). Mid-game the server world is frozen and the links made
// clean: within one second every client's mirror world must equal the server's (no ghost, no
// missing entity, same component values). Then the game goes on to GAME_END for all, and every
// client has seen the reliable events (deaths, music, game end) exactly once and in the server's
// order.
func TestLinkMatrix(t *testing.T) {
	for _, lc := range linkMatrix {
		t.Run(lc.name, func(t *testing.T) {
			t.Parallel()
			runLinkCase(t, lc, 7, 100)
		})
	}
}

// linkGame starts a virtual game of players on stage (stage name) over lc: game seed seed, link
// seed linkSeed+i for player i.
func linkGame(t testing.TB, stage string, players int, lc linksim.Config, seed, linkSeed uint64) *simgame.Game {
	t.Helper()
	st, err := game.LoadStage(stage)
	if err != nil {
		t.Fatal(err)
	}
	g, err := simgame.New(simgame.Config{Stage: st, Players: players, Seed: seed, Autopilot: true,
		Link: func(i int) linksim.Config { c := lc; c.Seed = linkSeed + uint64(i); return c }})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// runLinkCase plays TestLinkMatrix's game over lc (game seed seed, link seeds linkSeed+i), checks
// it and logs each client's figures, which it returns (with the game's length in ticks).
func runLinkCase(t testing.TB, lc linkCase, seed, linkSeed uint64) ([]session.Stats, ecs.Tick) {
	stage := "short"
	if s := os.Getenv("RTYPE_SOAK_STAGE"); s != "" && lc.name == "soak" {
		stage = s // e.g. RTYPE_SOAK_STAGE=stage1: the soak over the whole of stage 1
	}
	const players = 4
	g := linkGame(t, stage, players, lc.cfg, seed, linkSeed)
	sim := g.Server.Sim()
	// Let the game run a few seconds under the impaired link, then freeze it.
	if !g.RunUntil(time.Minute, func() bool { return sim.Tick() >= 360 }) {
		t.Fatalf("the game never reached tick 360 (tick %d at %v)", sim.Tick(), g.Now)
	}
	g.Server.SetPaused(true)
	for i := range players {
		g.SetLink(i, linksim.Config{})
	}
	want := snapshotWorld(sim.World())
	// The links still hold datagrams sent before they became clean (latency, bandwidth queue);
	// count the second from when those have drained.
	g.RunFor(lc.cfg.Latency + lc.cfg.Jitter + 300*time.Millisecond)
	deadline := g.Now + time.Second
	var diff string
	for {
		diff = ""
		for i, c := range g.Clients {
			var got map[ecs.Entity]entitySnap
			c.View(g.Now, func(v *session.View) { got = snapshotWorld(v.World) })
			if d := worldDiff(got, want); d != "" {
				diff += fmt.Sprintf("client %d: %s\n", i, d)
			}
		}
		if diff == "" || g.Now >= deadline {
			break
		}
		g.RunFor(50 * time.Millisecond)
	}
	if diff != "" {
		t.Errorf("mirrors differ from the server world 1 s after the link became clean:\n%s", diff)
	}
	for i := range players {
		g.SetLink(i, lc.cfg)
	}
	g.Server.SetPaused(false)
	if !g.RunUntil(30*time.Minute, func() bool { return g.AllClosed() && g.ServerFinished() }) {
		for i, c := range g.Clients {
			up, down := g.Net.Dropped(g.ClientAddr[i])
			t.Logf("client %d: closed %v events=%v stats=%+v link dropped up=%d down=%d", i, g.Closed[i], g.Events[i], c.Stats(), up, down)
		}
		t.Fatalf("the game did not end (server finished %v) by %v", g.ServerFinished(), g.Now)
	}
	wantEvents := g.ServerEvents
	if len(wantEvents) == 0 || !strings.HasPrefix(wantEvents[len(wantEvents)-1], "game_end:") {
		t.Fatalf("server event log does not end with game_end: %v", wantEvents)
	}
	var stats []session.Stats
	for i, evs := range g.Events {
		var got []string
		for _, e := range evs {
			// RESULTS (before game_end) is checked by the results tests, not against the game's
			// event log.
			if !strings.HasPrefix(e, "welcome") && !strings.HasPrefix(e, "disconnected") && !strings.HasPrefix(e, "results") {
				got = append(got, e)
			}
		}
		if strings.Join(got, " ") != strings.Join(wantEvents, " ") {
			t.Errorf("client %d: reliable events\n got %v\nwant %v", i, got, wantEvents)
		}
		st := g.Clients[i].Stats()
		t.Logf("%s client %d: ticks=%d in=%dB/%ddg out=%dB/%ddg rtt=%.0fms jitter=%.0fms loss=%.1f%% snap/s=%.1f corrections=%d (%.1fpx)",
			lc.name, i, st.ServerTick, st.BytesIn, st.DatagramsIn, st.BytesOut, st.DatagramsOut,
			st.RTTMillis, st.JitterMillis, st.LossPercent, st.SnapshotsPerSec, st.Corrections, st.CorrectionPixels)
		stats = append(stats, st)
	}
	return stats, sim.Tick()
}

// BenchmarkLinkMatrix: TestLinkMatrix's cases (the same game, freeze and checks) over several
// game and link seeds (RTYPE_LINK_SEEDS of them, default 16: seed k is game seed k with link
// seeds 100+1000k+i), every client of every game together. One game says little about
// smoothness: what the clients receive, and when, steers their autopilots, so a change in the
// bytes sent makes another game, whose corrections are another sample. Metrics per client:
// down-B/s and up-B/s (bytes over the game's length), corrections/min and correction-px (mean
// size), rtt-ms, loss-% and snap/s (the client's own measures at the end).
//
//	go test -run '^$' -bench BenchmarkLinkMatrix -benchtime 1x ./net/server
func BenchmarkLinkMatrix(b *testing.B) {
	seeds := 16
	if s := os.Getenv("RTYPE_LINK_SEEDS"); s != "" {
		var err error
		if seeds, err = strconv.Atoi(s); err != nil || seeds < 1 {
			b.Fatalf("RTYPE_LINK_SEEDS=%q", s)
		}
	}
	for _, lc := range linkMatrix {
		b.Run(lc.name, func(b *testing.B) {
			for b.Loop() {
				var secs, down, up, corr, px, rtt, loss, snap, n float64
				for k := 1; k <= seeds; k++ {
					stats, ticks := runLinkCase(b, lc, uint64(k), uint64(100+1000*k))
					for _, st := range stats {
						s := float64(ticks) / game.TickRate
						secs += s
						down += float64(st.BytesIn)
						up += float64(st.BytesOut)
						corr += float64(st.Corrections)
						px += st.CorrectionPixels * float64(st.Corrections)
						rtt += st.RTTMillis
						loss += st.LossPercent
						snap += st.SnapshotsPerSec
						n++
					}
				}
				b.ReportMetric(down/secs, "down-B/s")
				b.ReportMetric(up/secs, "up-B/s")
				b.ReportMetric(corr/(secs/60), "corrections/min")
				b.ReportMetric(px/max(corr, 1), "correction-px")
				b.ReportMetric(rtt/n, "rtt-ms")
				b.ReportMetric(loss/n, "loss-%")
				b.ReportMetric(snap/n, "snap/s")
				b.ReportMetric(secs/n, "game-s")
			}
		})
	}
}

// The link simulator and the cores are deterministic in virtual time: the same seeds give the
// same game, datagram for datagram.
func TestLinkCaseDeterministic(t *testing.T) {
	t.Parallel()
	run := func() string {
		g := linkGame(t, "short", 2, linkMatrix[2].cfg, 7, 100)
		g.RunFor(8 * time.Second)
		var out string
		for i, c := range g.Clients {
			out += fmt.Sprintf("%d: %+v %v\n", i, c.Stats(), g.Events[i])
		}
		return out + fmt.Sprintf("server %#x %v", g.Server.Sim().Hash(), g.Server.Stats())
	}
	a, b := run(), run()
	if a != b {
		t.Errorf("two runs with the same seeds differ:\n%s\n---\n%s", a, b)
	}
}

// worldDiff describes how a mirror differs from the server world ("" when equal).
func worldDiff(got, want map[ecs.Entity]entitySnap) string {
	var missing, ghost, differ int
	var detail string
	for e, w := range want {
		if g, ok := got[e]; !ok {
			missing++
			detail += fmt.Sprintf(" missing %#x %+v;", uint64(e), w)
		} else if !same(g, w) {
			differ++
			detail += fmt.Sprintf(" %#x mirror %+v server %+v;", uint64(e), g, w)
		}
	}
	for e, g := range got {
		if _, ok := want[e]; !ok {
			ghost++
			detail += fmt.Sprintf(" ghost %#x %+v;", uint64(e), g)
		}
	}
	if missing+ghost+differ == 0 {
		return ""
	}
	return fmt.Sprintf("%d missing, %d ghosts, %d with other values (of %d entities):%s", missing, ghost, differ, len(want), detail)
}
