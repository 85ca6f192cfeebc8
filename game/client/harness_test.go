//go:build display

package client

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/controls"
	"github.com/rtype/rtype/game/client/netflow"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/net/session"
	"github.com/rtype/rtype/net/wire"
)

// harnessEnv makes the test binary run the client itself on the main thread (ebiten requires
// it) instead of the tests: "shot" writes a screenshot of the demo world to RTYPE_SHOT.
const harnessEnv = "RTYPE_CLIENT_HARNESS"

// demoWorld fills a mirror world by hand: 4 players (one with the Force and a charge), every
// enemy variant, the boss with its weak point, bullets, a beam, power-ups, an explosion and the
// stage singleton, plus extra enemies/bullets up to n entities. Step animates it.
func demoWorld(n int) *netflow.LocalWorld {
	lw := netflow.NewLocalWorld()
	c := lw.C
	stage := lw.W.Create()
	c.Kind.Set(stage, game.Kind{Kind: game.KindStage})
	c.Stage.Set(stage, game.StageState{Section: 1})
	c.Position.Set(stage, game.Position{X: 1000})
	var ships [4]ecs.Entity
	for slot := 0; slot < 4; slot++ {
		e := lw.Spawn(game.KindPlayer, uint8(slot), 260+float32(slot%2)*140, 260+float32(slot)*170, 96, 40)
		c.Player.Set(e, game.Player{Slot: uint8(slot), Lives: uint8(3 - slot%3), Score: uint32(1200 * (slot + 1)), ChargeFrom: uint32(max(1, 200-slot*40))})
		ships[slot] = e
	}
	lw.Self, lw.Slot = ships[0], 0
	f := lw.Spawn(game.KindForce, 2, 260+70, 260, 44, 44)
	c.Force.Set(f, game.Force{Owner: ships[0], Mode: game.ForceFront, Level: 2})
	for slot := 1; slot < 4; slot++ { // banking: climbing, level, diving
		c.Velocity.Set(ships[slot], game.Velocity{Y: []float32{0, -480, 0, 340}[slot]})
	}
	lw.Spawn(game.KindBit, 0, 260, 200, 0, 0)
	for v := 0; v <= int(game.EnemyMidboss); v++ {
		// ground kinds at the floor (walker, hopper) or hanging from the ceiling (turret)
		x, y := 820+float32(v%5)*150, 200+float32(v/5)*330+float32(v%5)*40
		switch v {
		case int(game.EnemyTurret):
			y = 150
		case int(game.EnemyWalker), int(game.EnemyHopper):
			y = 900
		case int(game.EnemyMidboss):
			x, y = 1180, 520
		}
		e := lw.Spawn(game.KindEnemy, uint8(v), x, y, 0, 0)
		c.Health.Set(e, game.Health{HP: 10, MaxHP: 10})
	}
	for v := uint8(0); v < game.NumShotVariants; v++ {
		e := lw.Spawn(game.KindPlayerBullet, v, 560+float32(v)*40, 660+float32(v%3)*26, 0, 0)
		c.Velocity.Set(e, game.Velocity{X: 1500, Y: []float32{0, 0, -600}[v%3]})
	}
	for v := uint8(0); v < 4; v++ {
		lw.Spawn(game.KindBossPart, v, 1500+float32(v)*70, 880, 0, 0)
	}
	boss := lw.Spawn(game.KindBoss, game.BossBig, 1620, 540, 420, 680)
	c.Boss.Set(boss, game.Boss{Phase: 1, WeakOpen: 1})
	weak := lw.Spawn(game.KindBossWeakPoint, 1, 1560, 540, 64, 64)
	c.Health.Set(weak, game.Health{HP: 140, MaxHP: 200})
	for i := 0; i < 6; i++ {
		lw.Spawn(game.KindPlayerBullet, uint8(i%4), 450+float32(i)*60, 260+float32(i%2)*170, 32, 8)
		lw.Spawn(game.KindEnemyBullet, uint8(i%2), 800+float32(i)*50, 600+float32(i)*25, 16, 16)
	}
	lw.Spawn(game.KindBeam, 2, 700, 770, 300, 40)
	for v := uint8(0); v <= game.PowerMissile; v++ {
		lw.Spawn(game.KindPowerUp, v, 620+float32(v)*60, 120, 0, 0)
	}
	lw.Spawn(game.KindExplosion, game.ExplosionSmall, 1100, 900, 96, 96)
	for lw.W.Len() < n {
		i := lw.W.Len()
		if i%2 == 0 {
			e := lw.Spawn(game.KindEnemy, []uint8{game.EnemyStraight, game.EnemySine, game.EnemyHoming, game.EnemySnakeBody}[i%4], 600+float32((i*37)%1200), 80+float32((i*53)%900), 0, 0)
			c.Health.Set(e, game.Health{HP: 5, MaxHP: 5})
		} else {
			lw.Spawn(game.KindEnemyBullet, 0, float32((i*71)%1900), float32((i*29)%1000), 16, 16)
		}
	}
	t := 0
	q := ecs.NewQuery2[game.Position, game.Kind](lw.W)
	lw.Step = func(w *netflow.LocalWorld) {
		t++
		w.W.Advance()
		w.C.Position.Mut(stage).X += 2
		for it := q.Iter(); it.Next(); {
			p, k := it.Get()
			switch k.Kind {
			case game.KindEnemyBullet:
				p.X -= 4
				if p.X < 0 {
					p.X += game.Width
				}
			case game.KindPlayerBullet:
				p.X += 12
				if p.X > game.Width {
					p.X = 400
				}
			case game.KindEnemy:
				p.Y += float32(math.Sin(float64(t)/20)) * 1.5
			}
		}
	}
	return lw
}

// demoTerrain is a base-theme cave for the harness: a rolling ceiling and floor sampled every
// 64 px over 20000 px and a few blocks.
func demoTerrain() *game.Terrain {
	t := &game.Terrain{Theme: game.ThemeBase, Step: 64}
	for i := 0; i < 320; i++ {
		x := float64(i)
		t.Ceil = append(t.Ceil, float32(70+40*math.Sin(x/5)+20*math.Sin(x/1.7)))
		t.Floor = append(t.Floor, float32(90+50*math.Sin(x/6+1)+15*math.Sin(x/2.3)))
	}
	for i := 0; i < 40; i++ {
		t.Blocks = append(t.Blocks, game.Block{X: 1400 + float32(i)*500, Y: 700, W: 128, H: 96})
	}
	return t
}

func harnessMain(mode string) int {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	dir, _ := os.MkdirTemp("", "rtype-client-harness")
	defer os.RemoveAll(dir)
	if d := os.Getenv("RTYPE_CONFIG_DIR"); d != "" {
		dir = d // its rtype/settings.json (a shot with the accessibility settings on)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	switch mode {
	case "shot":
		cfg := Config{local: demoWorld(60), Screenshot: os.Getenv("RTYPE_SHOT"), ScreenshotAfter: 20, Mute: true, ConfigDir: dir, Logger: log, terrain: demoTerrain(), syncTicks: true}
		if err := Run(ctx, cfg); err != nil {
			fmt.Fprintln(os.Stderr, "harness:", err)
			return 1
		}
		return 0
	case "menus":
		// one PNG per scene into RTYPE_SHOT_DIR, for a visual check of the menus
		cfg := Config{Mute: true, ConfigDir: dir, Logger: log, Server: "127.0.0.1:1", viaCanvas: true}
		a, err := newApp(ctx, cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "harness:", err)
			return 1
		}
		g := &menuShots{a: a, dir: os.Getenv("RTYPE_SHOT_DIR")}
		if o := os.Getenv("RTYPE_SHOT_ONLY"); o != "" {
			g.only = regexp.MustCompile(o)
		}
		ebiten.SetWindowSize(960, 540)
		if err := ebiten.RunGame(g); err != nil {
			fmt.Fprintln(os.Stderr, "harness:", err)
			return 1
		}
		a.close()
		return 0
	case "gallery":
		// a screenshot of a real game played offline: the stage RTYPE_GALLERY_STAGE simulated by
		// game.Sim with 4 autopilot players (the server's simulation and the bots' autopilot),
		// fast-forwarded to RTYPE_GALLERY_TICK - 90 and drawn by the real client for the last 90
		// ticks, written to RTYPE_SHOT (see docs/gallery/README.md)
		lw, err := galleryWorld(os.Getenv("RTYPE_GALLERY_STAGE"), os.Getenv("RTYPE_GALLERY_TICK"))
		if err != nil {
			fmt.Fprintln(os.Stderr, "harness:", err)
			return 1
		}
		cfg := Config{local: lw, Screenshot: os.Getenv("RTYPE_SHOT"), ScreenshotAfter: galleryLead, Mute: true, ConfigDir: dir, Logger: log, syncTicks: true}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if err := Run(ctx, cfg); err != nil {
			fmt.Fprintln(os.Stderr, "harness:", err)
			return 1
		}
		return 0
	case "latency":
		return latencyMain(log, dir) // latency_test.go
	case "pad":
		return padMain(log, dir) // pad_test.go
	case "browse":
		return browseMain(log, dir) // browse_test.go
	case "fps":
		// frames drawn per second of the real loop (vsync off) on a 4-player 300-entity world,
		// counted from tick 60 (after start-up) to tick 360; window RTYPE_FPS_SIZE (default
		// 1280x720, the default window); RTYPE_CPUPROFILE names a file for a CPU profile of
		// the Go side of the run (the Go threads only: Mesa's rasterizer threads are not
		// sampled, see docs/BENCHMARKS.md for perf)
		if p := os.Getenv("RTYPE_CPUPROFILE"); p != "" {
			f, err := os.Create(p)
			if err != nil {
				fmt.Fprintln(os.Stderr, "harness:", err)
				return 1
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				fmt.Fprintln(os.Stderr, "harness:", err)
				return 1
			}
			defer pprof.StopCPUProfile()
		}
		cfg := Config{local: demoWorld(300), Mute: true, ConfigDir: dir, Logger: log, exitAfter: 360, noVsync: true, terrain: demoTerrain()}
		a, err := newApp(ctx, cfg)
		if err != nil {
			fmt.Fprintln(os.Stderr, "harness:", err)
			return 1
		}
		w, h := 1280, 720
		if sz := os.Getenv("RTYPE_FPS_SIZE"); sz != "" {
			fmt.Sscanf(sz, "%dx%d", &w, &h)
		}
		ebiten.SetWindowSize(w, h)
		ebiten.SetVsyncEnabled(false)
		g := &fpsGame{app: a, empty: os.Getenv("RTYPE_FPS_EMPTY") != ""}
		if err := ebiten.RunGame(g); err != nil {
			fmt.Fprintln(os.Stderr, "harness:", err)
			return 1
		}
		el := g.end.Sub(g.start)
		n := a.draws - g.draws0
		fmt.Printf("window=%dx%d screen=%dx%d ticks=%d draws=%d elapsed=%v fps=%.1f cpu/frame=%.1fms\n", w, h, g.sw, g.sh, a.frameN-60, n, el.Round(time.Millisecond),
			float64(n)/el.Seconds(), float64(g.cpu1-g.cpu0)/float64(time.Millisecond)/float64(max(n, 1)))
		a.close()
		return 0
	}
	fmt.Fprintln(os.Stderr, "harness: unknown mode", mode)
	return 2
}

// galleryLead is how many ticks the client draws before the gallery screenshot (explosions,
// particles and animations under way).
const galleryLead = 90

// galleryWorld plays stage name offline with 4 autopilot players up to tick-galleryLead and
// returns it as a local world that steps the simulation once per client tick. The players'
// lives are topped up so the game does not end before the shot (the picture is of the stage).
func galleryWorld(name, tickStr string) (*netflow.LocalWorld, error) {
	var tick int
	if _, err := fmt.Sscan(tickStr, &tick); err != nil || tick < galleryLead {
		return nil, fmt.Errorf("RTYPE_GALLERY_TICK %q: want a tick >= %d", tickStr, galleryLead)
	}
	cfg := game.Config{Seed: 0x5eed, Players: rules.MaxPlayers}
	if name == stagefile.Arcade { // the arcade run of the embedded stages: its tallies too
		for _, n := range stagefile.DefaultRun {
			st, err := game.LoadStage(n)
			if err != nil {
				return nil, err
			}
			cfg.Run = append(cfg.Run, st)
		}
	} else {
		st, err := game.LoadStage(name)
		if err != nil {
			return nil, err
		}
		cfg.Stage = st
	}
	sim := game.NewSim(cfg)
	c := sim.Components()
	lw := netflow.NewLocalWorld()
	step := func() {
		for slot := 0; slot < rules.MaxPlayers; slot++ {
			e := sim.PlayerEntity(slot)
			if p := c.Player.Get(e); p != nil && p.Lives < 3 {
				c.Player.Mut(e).Lives = 3
			}
			sim.SetInput(slot, game.Autopilot(sim.World(), c, &sim.Stage().Terrain, e, sim.Tick()))
		}
		sim.Step()
		for _, ev := range sim.Events() {
			if ev.Kind == game.EventStageClear { // the stage's figures, as the server sends them
				var r wire.Results
				for slot := 0; slot < rules.MaxPlayers; slot++ {
					f := sim.StageFigures(slot)
					r.Entries[r.Count] = wire.ResultEntry{Slot: uint8(slot), Score: f.Score, Kills: f.Kills, Deaths: f.Deaths,
						BeamHits: f.BeamHits, Shots: f.Shots, Hits: f.Hits}
					r.Count++
				}
				lw.Post(session.Event{Kind: session.EventResults, Results: r})
			}
		}
		if cfg.Run != nil {
			lw.Stage, lw.RunIndex, lw.RunLen, lw.Tally = sim.Stage(), sim.RunIndex(), len(cfg.Run), sim.Tally() > 0
		}
	}
	for int(sim.Tick()) < tick-galleryLead {
		step()
	}
	lw.W, lw.C, lw.Self, lw.Slot, lw.Stage = sim.World(), c, sim.PlayerEntity(0), 0, sim.Stage()
	lw.Step = func(*netflow.LocalWorld) { step() }
	return lw, nil
}

// fpsGame is the app with a stopwatch from tick 60 to the end (the fps harness). With empty
// (RTYPE_FPS_EMPTY=1) it updates the game but draws nothing: the floor of the loop (ebiten,
// the driver's screen clear and buffer swap, Xvfb) at that window size.
type fpsGame struct {
	*app
	empty      bool
	start, end time.Time
	cpu0, cpu1 time.Duration
	draws0     int
	sw, sh     int
}

func (g *fpsGame) Update() error {
	if g.frameN == 60 {
		g.start, g.draws0, g.cpu0 = time.Now(), g.draws, cpuTime()
	}
	err := g.app.Update()
	if err != nil {
		g.end, g.cpu1 = time.Now(), cpuTime()
	}
	return err
}

func (g *fpsGame) Draw(screen *ebiten.Image) {
	g.sw, g.sh = screen.Bounds().Dx(), screen.Bounds().Dy()
	g.app.Draw(screen)
}

func (g *fpsGame) DrawFinalScreen(screen ebiten.FinalScreen, offscreen *ebiten.Image, geoM ebiten.GeoM) {
	if !g.empty {
		g.app.DrawFinalScreen(screen, offscreen, geoM)
	}
}

// testLoop runs the tests inside ebiten's game loop so benchmarks can draw (ebiten's
// internal/testing.MainWithRunLoop pattern).
type testLoop struct {
	m    *testing.M
	code int
}

func (g *testLoop) Update() error {
	g.code = g.m.Run()
	return ebiten.Termination
}
func (g *testLoop) Draw(*ebiten.Image)         {}
func (g *testLoop) Layout(int, int) (int, int) { return 320, 180 }

func TestMain(m *testing.M) {
	if mode := os.Getenv(harnessEnv); mode != "" {
		os.Exit(harnessMain(mode))
	}
	if os.Getenv("DISPLAY") == "" {
		os.Exit(m.Run()) // display-free tests; the display tests skip
	}
	g := &testLoop{m: m, code: 1}
	if err := ebiten.RunGame(g); err != nil {
		fmt.Fprintln(os.Stderr, "ebiten:", err)
		os.Exit(1)
	}
	os.Exit(g.code)
}

// menuShots draws each scene once and saves the canvas.
type menuShots struct {
	a       *app
	dir     string
	i       int
	pending string
	only    *regexp.Regexp // RTYPE_SHOT_ONLY: the states shot (all when nil)
	drawn   int            // Draw calls since the pending state was set (ebiten may Update twice per Draw)
}

var menuStates = []struct {
	name string
	set  func(a *app)
}{
	{"title", func(a *app) { a.m.Scene = scene.Title }},
	{"servers", func(a *app) {
		a.m.Scene, a.m.Busy, a.m.Error, a.menu = scene.Servers, "", "", serversHeadRows
		a.m.View = scene.ServerView{Tab: scene.TabInternet, Sort: scene.SortPing}
		a.m.Favourites = []string{"rtype.example.org:4242"}
		ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
		a.m.Servers = []scene.Server{
			{Name: "Bydo Front (EU)", MOTD: "Friendly co-op, stage 1 to 3. Be nice.", Addr: "rtype.example.org:4242", Version: "v1.4.0", Protocol: wire.Version, Players: 5, Capacity: 16, Region: "eu", Ping: ms(23), Pinged: true},
			{Name: "Force Pod Club", Addr: "203.0.113.7:4242", Version: "v1.4.0", Protocol: wire.Version, Players: 16, Capacity: 16, Region: "eu", Ping: ms(41), Pinged: true},
			{Name: "Private practice", Addr: "198.51.100.20:5000", Version: "v1.4.0", Protocol: wire.Version, Players: 1, Capacity: 4, Password: true, Region: "us", Ping: ms(112), Pinged: true},
			{Name: "Old timers", Addr: "198.51.100.33:4242", Version: "v0.9.2", Protocol: wire.Version - 1, Players: 2, Capacity: 8, Region: "us", Ping: ms(130), Pinged: true},
			{Name: "Far away", Addr: "192.0.2.99:4242", Version: "v1.4.0", Protocol: wire.Version, Players: 0, Capacity: 8, Region: "asia", NoAnswer: true},
		}
	}},
	{"connect", func(a *app) { a.m.Scene, a.m.Busy = scene.Connect, "Connecting" }},
	{"browser", func(a *app) {
		a.m.Scene, a.m.Busy, a.menu = scene.Browser, "", 1
		a.m.Lobbies = []scene.Lobby{{Code: "K7QF2", Players: 2, Stage: "stage1"}, {Code: "ABCD3", Players: 4, Running: true, Stage: "short", Difficulty: rules.DifficultyHard},
			{Code: "XY2ZW", Players: 1, Stage: "stage1"}}
		a.m.Stages, a.stageSel = []string{"stage1", "short"}, 1
	}},
	{"room", func(a *app) {
		a.m.Scene, a.m.Code, a.menu = scene.Room, "K7QF2", 0
		a.members, a.membersAt, a.roomStage = []string{"alice", "bob", "carol"}, 1<<30, "short"
		a.m.Stages = []string{"stage1", "short"}
	}},
	{"room-difficulty", func(a *app) {
		a.m.Scene, a.m.Code, a.menu = scene.Room, "K7QF2", 1
		a.members, a.membersAt, a.roomStage, a.roomLevel = []string{"alice", "bob"}, 1<<30, "stage1", rules.DifficultyEasy
		a.m.Stages = []string{"stage1", "stage2", "short"}
		a.net.SetName("alice")
	}},
	{"room-practice", func(a *app) {
		a.m.Scene, a.m.Code, a.menu = scene.Room, "K7QF2", 3
		a.members, a.membersAt, a.roomStage, a.roomLevel, a.roomSection, a.roomInfinite = []string{"alice"}, 1<<30, "stage1", rules.DifficultyNormal, 2, true
		a.m.Stages = []string{"stage1", "stage2", "short"}
		a.net.SetName("alice")
	}},
	{"room-chat", func(a *app) {
		a.roomSection, a.roomInfinite = 0, false
		a.m.Scene, a.m.Code, a.menu = scene.Room, "K7QF2", 0
		a.members, a.membersAt, a.roomStage = []string{"alice", "Pilot-3F2A", "carol"}, 1<<30, "short"
		a.net.SetName("Pilot-3F2A")
		a.chat.lines = []chatLine{{from: "alice", text: "hi all, ready? 100% ✈", at: a.frameN},
			{from: "Pilot-3F2A", text: "almost: this line is long enough to wrap inside the chat panel instead of running off the screen", at: a.frameN},
			{broadcast: true, text: "Restart in 5 minutes", at: a.frameN}}
		a.chat.open, a.chat.field.Text = true, "on my way"
		a.chat.banner, a.chat.bannerUntil = "Restart in 5 minutes", time.Now().Add(time.Minute)
	}},
	{"lost-words", func(a *app) {
		a.chat.banner = ""
		a.m.Scene, a.m.Reason = scene.Lost, "The server at 127.0.0.1:5999 is not answering. Is it running? This sentence goes on long enough to need a second line on the screen."
		a.m.Detail = "dial tcp 127.0.0.1:5999: connect: connection refused"
	}},
	{"results", func(a *app) {
		a.m.Scene, a.m.Result = scene.Results, 1
		a.scores[0] = playerHUD{present: true, score: 42100}
		a.scores[2] = playerHUD{present: true, score: 13700}
	}},
	{"lost", func(a *app) { a.m.Scene, a.m.Reason = scene.Lost, "server timeout: no datagram for 5 s" }},
	{"settings", func(a *app) { a.m.Scene, a.menu = scene.Settings, 7 }},
	{"paused-stats", func(a *app) {
		a.startGame(demoWorld(80))
		a.m.Scene, a.m.MenuOpen, a.showStats = scene.Playing, true, true
	}},
	// issue 13's screens
	{"pause-solo", func(a *app) {
		a.chat.lines, a.chat.open, a.chat.banner = nil, false, ""
		lw := demoWorld(80)
		lw.Paused = true
		a.startGame(lw)
		a.m.Scene, a.m.MenuOpen, a.showStats = scene.Playing, true, false
	}},
	{"pause-retry", func(a *app) { a.ux.names, a.pauseSel = []string{"alice"}, 1 }},
	{"death-notice", func(a *app) {
		a.startGame(demoWorld(80))
		a.m.Scene, a.m.MenuOpen, a.draw.self = scene.Playing, false, 0
		a.ux.death(a, 1, 1)
	}},
	{"death-own", func(a *app) {
		a.startGame(demoWorld(80))
		a.m.Scene, a.draw.self = scene.Playing, 0
		a.ux.death(a, 0, 2)
	}},
	{"gameover", func(a *app) {
		lw := demoWorld(80)
		setLives(lw, 0, 0)
		setLives(lw, 2, 0)
		a.startGame(lw)
		a.m.Scene, a.draw.self = scene.Playing, 0
		a.ux.death(a, 0, 0)
	}},
	{"continue", func(a *app) {
		lw := demoWorld(80)
		setLives(lw, 0, 0)
		setFlags(lw, 0, game.PlayerDead|game.PlayerContinue)
		a.startGame(lw)
		a.m.Scene, a.draw.self = scene.Playing, 0
		a.ux.death(a, 0, 0)
	}},
	{"spectating", func(a *app) {
		lw := demoWorld(80)
		lw.Spectator, lw.Self, lw.Slot = true, 0, -1
		a.startGame(lw)
		a.m.Scene, a.draw.self = scene.Playing, -1
	}},
	{"interrupted", func(a *app) {
		lw := demoWorld(80)
		lw.Interrupted, lw.Silence = true, 3400*time.Millisecond
		a.startGame(lw)
		a.m.Scene = scene.Playing
	}},
	{"results-table", func(a *app) {
		a.endGame()
		a.m.Scene, a.m.Result, a.draw.self = scene.Results, 0, 2
		a.ux.names, a.ux.byOrder = []string{"alice", "bob", "Pilot-3F2A"}, true
		var r wire.Results
		r.Count = 3
		r.Entries[0] = wire.ResultEntry{Slot: 0, Score: 42100, Kills: 57, Deaths: 1, BeamHits: 9, Shots: 812, Hits: 533}
		r.Entries[1] = wire.ResultEntry{Slot: 1, Flags: wire.ResultLeft, Score: 3300, Kills: 4, Deaths: 0, Shots: 90, Hits: 21}
		r.Entries[2] = wire.ResultEntry{Slot: 2, Flags: wire.ResultOut | wire.ResultContinued, Score: 13700, Kills: 22, Deaths: 3, BeamHits: 2, Shots: 400, Hits: 150}
		a.ux.results, a.ux.haveResults = r, true
	}},
	{"results-infinite", func(a *app) {
		a.m.Result, a.m.Reason, a.draw.self, a.ux.infinite = uint8(rules.ResultVictory), "", 0, true
		a.ux.names, a.ux.stage = []string{"alice"}, "stage1"
		var r wire.Results
		r.Count = 1
		r.Entries[0] = wire.ResultEntry{Slot: 0, Flags: wire.ResultPractice, Score: 18400, Kills: 31, Deaths: 7, BeamHits: 3, Shots: 600, Hits: 280}
		a.ux.results = r
	}},
	{"lost-rejoin", func(a *app) {
		a.ux.infinite = false
		a.ux.haveResults = false
		a.ux.ticket = netflow.Ticket{Server: "127.0.0.1:4242", Code: "XYZ12", Slot: 1, Key: make([]byte, 16), Expires: time.Now().Add(45 * time.Second)}
		a.ux.haveTicket = true
		a.m.Scene, a.menu = scene.Lost, 0
		a.m.Reason, a.m.Detail = scene.LostWords("server silent for 10 s"), "server silent for 10 s"
	}},
	{"lost-checking", func(a *app) {
		a.m.Reason, a.m.Detail = scene.LostWords("server silent for 10 s"), "server silent for 10 s"
		a.m.Busy, a.m.Error, a.m.LobbyAnswers = scene.CheckingServer, "", false
	}},
	{"lost-noanswer", func(a *app) {
		a.m.Busy, a.m.Error = "", scene.NoAnswer+"Is it running? (dial tcp 127.0.0.1:4242: connect: connection refused)"
	}},
	{"lost-answers", func(a *app) { a.m.Busy, a.m.Error, a.m.LobbyAnswers = "", "", true }},
	{"title-rejoin", func(a *app) { a.m.Scene, a.menu, a.m.LobbyAnswers = scene.Title, 0, false }},
	{"settings-rebind", func(a *app) {
		a.ux.haveTicket = false
		a.set.Keyboard["fire"] = []string{"bogus_key", "j"}
		a.m.Scene, a.menu, a.rebind = scene.Settings, 3+int(controls.Force), 3+int(controls.Force)
	}},
	{"settings-badkey", func(a *app) { a.m.Scene, a.menu, a.rebind = scene.Settings, 3+int(controls.Fire), -1 }},
	{"controls", func(a *app) { a.m.Scene, a.menu = scene.Controls, 0 }},
	{"replays", func(a *app) {
		a.m.Scene, a.menu = scene.Replays, 0
		a.m.Replays = []scene.ReplayInfo{{Path: "/r/a.rtr", Stage: "stage1", Difficulty: rules.DifficultyHard, Names: []string{"alice", "bob"},
			Ticks: 7260, Result: rules.ResultVictory, Score: 42100}, {Path: "/r/b.rtr", Stage: "unreadable: bad header"}}
	}},
	{"hall", func(a *app) {
		a.m.Scene, a.menu, a.m.Replays = scene.HallOfFame, 1, nil
		a.m.Hall, a.m.Addr = scene.Hall{View: scene.HallRecent, Stage: "stage2", Players: 2}, "127.0.0.1:4242"
	}},
}

// setLives sets the lives of slot's ship in a hand-filled world.
func setLives(lw *netflow.LocalWorld, slot int, lives uint8) {
	setPlayer(lw, slot, func(p *game.Player) { p.Lives = lives })
}

// setFlags sets the Player flags of slot's ship in a hand-filled world.
func setFlags(lw *netflow.LocalWorld, slot int, flags uint8) {
	setPlayer(lw, slot, func(p *game.Player) { p.Flags = flags })
}

// setPlayer changes the Player record of slot's ship in a hand-filled world.
func setPlayer(lw *netflow.LocalWorld, slot int, change func(*game.Player)) {
	lw.W.Each(func(e ecs.Entity) {
		if p := lw.C.Player.Get(e); p != nil && int(p.Slot) == slot {
			q := *p
			change(&q)
			lw.C.Player.Set(e, q)
		}
	})
}

func (g *menuShots) Update() error {
	if g.pending != "" && g.drawn < 2 {
		return nil // not drawn yet: the canvas still holds the previous state
	}
	if g.pending != "" {
		img := image.NewRGBA(image.Rect(0, 0, Width, Height))
		g.a.canvas.ReadPixels(img.Pix)
		f, err := os.Create(filepath.Join(g.dir, g.pending+".png"))
		if err != nil {
			return err
		}
		png.Encode(f, img)
		f.Close()
		g.i++
		g.pending = ""
	}
	g.a.frameN += 7
	g.a.rest.clock, g.a.rest.lastInput = g.a.frameN, g.a.frameN // the menus animate at frameN (idle.go)
	for ; g.i < len(menuStates) && g.only != nil && !g.only.MatchString(menuStates[g.i].name); g.i++ {
		menuStates[g.i].set(g.a) // not shot (RTYPE_SHOT_ONLY), but the later states build on it
	}
	if g.i >= len(menuStates) {
		return ebiten.Termination
	}
	menuStates[g.i].set(g.a)
	g.pending, g.drawn = menuStates[g.i].name, 0
	return nil
}

func (g *menuShots) Draw(screen *ebiten.Image)  { g.a.Draw(screen); g.drawn++ }
func (g *menuShots) Layout(int, int) (int, int) { return Width, Height }
