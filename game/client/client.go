// Package client is the Ebitengine desktop client of rtype; it and its subpackage sfx (ebiten's
// audio) are the only code in the repository that imports ebiten. Run opens a resizable window whose logical screen is the 1920×1080 virtual
// playfield (letterboxed by ebiten), runs the scene flow of game/client/scene (title, connect,
// lobby browser, lobby room, game, results, connection lost, settings…: each screen a type in a
// file of its own that registers itself with its scene (screens.go), its flow in package
// scene), talks to the TCP lobby (package lobby) and the UDP game instance (package net/session) on goroutines so Update never
// blocks, draws every entity of the session's mirror world at View.Pos, and plays synthesised
// sound.
//
// Keys: F11 or Alt+Enter toggles fullscreen, F3 the network overlay, Esc the pause menu.
//
// Display-free logic lives in subpackages tested by a plain go test: scene (screen flow),
// controls (actions, default bindings, input → game.Buttons), settings (settings.json), netflow
// (network commands on goroutines, against a real lobbyserver.Server), starfield, fx (particles, hit
// flashes), synth (PCM), art (sprites), sfx (audio probe). This package's own tests link ebiten,
// whose initialisation needs a display, so they carry the build tag "display":
//
//	xvfb-run -a -s "-screen 0 1920x1080x24" go test -tags display ./game/client/
//	xvfb-run -a -s "-screen 0 1920x1080x24" go test -tags display -run '^$' -bench Frame ./game/client/
package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
	input "github.com/quasilyte/ebitengine-input"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/art"
	"github.com/rtype/rtype/game/client/controls"
	"github.com/rtype/rtype/game/client/fx"
	"github.com/rtype/rtype/game/client/netflow"
	"github.com/rtype/rtype/game/client/playback"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/client/settings"
	"github.com/rtype/rtype/game/client/sfx"
	"github.com/rtype/rtype/game/client/starfield"
	"github.com/rtype/rtype/game/client/synth"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/net/session"
)

// Width and Height are the logical screen size: the virtual playfield in px.
const Width, Height = game.Width, game.Height

// maxParticles bounds the debris particles alive at once (a boss death bursts 200, an enemy
// 32): each is one draw, so a storm of explosions cannot multiply the frame's cost.
const maxParticles = 1500

// Config configures Run. The zero value (plus Logger) is a normal interactive start.
type Config struct {
	// Server is the lobby "host:port"; "" uses the address remembered in the settings file
	// (default 127.0.0.1:4242). A non-empty value is also remembered.
	Server string
	// Name is the player name for AUTHENTICATE (1..16 of [A-Za-z0-9_-]); "" uses the settings.
	Name string
	// Fullscreen starts fullscreen (also when the settings say so).
	Fullscreen bool
	// WindowW and WindowH are the initial window size in screen px (0 = 1280×720).
	WindowW, WindowH int
	// Autoplay drives the ship with game.Autopilot instead of the keyboard, and (like Lobby and
	// Start) runs the title → lobby → game flow without keys.
	Autoplay bool
	// Lobby is a lobby code to join without keys; "" with Autoplay or Start creates a lobby.
	Lobby string
	// Start sends START once in the lobby.
	Start bool
	// Stage is the stage of the lobby the keyless flow creates (Autoplay or Start without
	// Lobby); "" = the server's default.
	Stage string
	// Screenshot, when set, writes a PNG of the whole 1920×1080 frame to this path after
	// ScreenshotAfter 60 Hz ticks in game with entities visible (default 300 = 5 s), then Run
	// returns nil. The PNG is the frame drawn right after that tick.
	Screenshot      string
	ScreenshotAfter int
	// Lists are the server lists the server browser reads (its Internet tab); nil uses the
	// settings' "lists". A non-empty value is also remembered.
	Lists []string
	// Replay, when set, opens this replay file at start (rtype-client -replay FILE): the game
	// it recorded plays on the Watching screen; Esc goes to the title.
	Replay string
	// Mute disables audio entirely (no device is opened).
	Mute bool
	// NetSim is passed to session.Config.NetSim ("lat=75ms,loss=5%").
	NetSim string
	// ConfigDir overrides os.UserConfigDir() for settings.json (tests use a temp dir).
	ConfigDir string
	// Logger receives the client's logs; nil uses slog.Default().
	Logger *slog.Logger

	// local, when set (tests, benchmark, harness), replaces the network: the game starts at once
	// on this hand-filled world.
	local *netflow.LocalWorld
	// exitAfter, when > 0, ends Run after that many Update ticks (harness measurements).
	exitAfter int
	// noVsync draws as fast as possible (harness measurements).
	noVsync bool
	// syncTicks runs one Update per drawn frame (ebiten.SyncWithFPS), so a screenshot run's
	// frame depends on the tick count only, not on how fast the machine draws.
	syncTicks bool
	// terrain, when set (harness), is drawn instead of the stage's terrain.
	terrain *game.Terrain
	// viaCanvas draws every frame into an offscreen canvas copied to the screen, so the last
	// frame can be read back (menu screenshots); screenshot runs do it for their last frame only.
	viaCanvas bool
	// shotW and shotH, when set (harness), size the canvas as a window of that many px, so a
	// screenshot shows what a small window shows (text at whole screen pixels, letterbox bars)
	shotW, shotH int
}

// Run opens the window and runs the client until the window is closed, Quit is chosen, ctx is
// done, or a screenshot was written. It returns nil on a normal end.
func Run(ctx context.Context, cfg Config) error {
	a, err := newApp(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.close()
	w, h := cfg.WindowW, cfg.WindowH
	if w <= 0 || h <= 0 {
		w, h = 1280, 720
	}
	ebiten.SetWindowTitle("R-Type")
	ebiten.SetWindowIcon(art.MustLoad().Icons()) // ignored where the system has no window icon (macOS)
	ebiten.SetWindowSize(w, h)
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	ebiten.SetFullscreen(a.set.Fullscreen || cfg.Fullscreen)
	ebiten.SetTPS(game.TickRate)
	if cfg.syncTicks {
		ebiten.SetTPS(ebiten.SyncWithFPS)
	}
	ebiten.SetVsyncEnabled(!cfg.noVsync)
	err = ebiten.RunGameWithOptions(a, &ebiten.RunGameOptions{})
	if errors.Is(err, ebiten.Termination) {
		err = nil
	}
	if err == nil && a.shotErr != nil {
		err = a.shotErr
	}
	return err
}

// app is the ebiten.Game.
type app struct {
	pads       []ebiten.GamepadID // reused by steerWhileTyping and followPad
	padList    []controls.Pad     // followPad's candidates
	padID      int                // the gamepad a.h reads (followPad)
	wasFocused bool               // the window had the focus last frame (focusPause)
	cfg        Config
	ctx        context.Context
	log        *slog.Logger
	set        settings.Settings
	m          *scene.Machine
	net        *netflow.Runner
	ui         *ui
	snd        *sfx.Player
	in         input.System
	h          *input.Handler
	keys       input.Keymap

	canvas    *ebiten.Image // offscreen 1920×1080 frame, only for screenshots (Config.viaCanvas, Screenshot)
	viaCanvas bool          // this frame is drawn into canvas
	markOp    ebiten.DrawImageOptions
	world     *ebiten.Image // the game world at the art's native resolution (view.go)
	stars     *starfield.Field
	frameN    int
	tallyTxt  tallyText // the stage-clear tally's lines (tally.go)
	scroll    float32   // stage scroll of the last game frame (or idle drift), px
	menu      int       // selected item of the current scene
	last      scene.ID

	titleSel titleCursor    // the title's item chosen last (titlescreen.go)
	pw       passwordPrompt // a private server's or lobby's password being typed (passwordprompt.go)

	// in game
	link       netflow.Link
	viewer     *playback.Viewer // the replay being watched (scene Watching)
	local      chan func()      // results of the client's own goroutines (replay files), run in Update
	tracker    *fx.Tracker
	parts      fx.Particles
	pauseSel   int
	ux         uxState // death notices, results, rejoin ticket (notices.go)
	showStats  bool
	gameN      int  // Update ticks in game with entities visible (screenshot countdown)
	drawnN     int  // entities drawn by the last Draw
	shotReady  bool // gameN reached ScreenshotAfter: the next Draw with entities triggers the write
	draws      int  // Draw calls (harness FPS measurement)
	scores     [rules.MaxPlayers]playerHUD
	draw       drawList
	collectFn  func(f *netflow.Frame) // draw.collect of this frame (made once: no closure per frame)
	autoFn     func(f *netflow.Frame) // -autoplay: the autopilot's buttons into autoBtns
	autoBtns   game.Buttons
	hud        hudText
	soundState soundWatch // own ship state of the last frame (sounds) and the no-sound notice
	fire       controls.FireGate
	epoch      time.Time     // FireGate clock origin
	heldBtns   atomic.Uint32 // last polled buttons without fire (the tap timer re-sends them)
	fireArmed  time.Duration // end of the tap window the timer is armed for

	// drawing state
	terrFill, terrLip mesh
	meshes            [1]mesh   // scratch meshes (layers, stars, debris), emptied by each draw
	worldB, screenB   batch     // the frame's atlas draws on the world image and on the screen (view.go)
	rest              restState // the menus' animation clock and resting picture (idle.go)
	terrOp            ebiten.DrawTrianglesOptions
	weakOpen          bool // the boss weak point was open last frame
	weakChangedAt     int  // frameN it opened or closed (opening/closing frame)

	// menus
	addr, name, code textField
	rebind           int // settings row being rebound, -1 none
	scanner          *input.KeyScanner
	members          []string
	roomStage        string           // the lobby's stage (STAGE push), refreshed with members
	roomLevel        rules.Difficulty // the lobby's level (DIFFICULTY push), refreshed with members
	roomSection      int              // the section a solo lobby's game starts at (SECTION push; 0 the start)
	roomInfinite     bool             // the lobby's games are played with infinite lives (LIVES push: the practice trainer)
	membersAt        int
	stageSel         int    // browser: index in m.Stages of the stage for "Create lobby"
	msg              string // transient message (settings problems), shown on the title
	msgUntil         int

	chat chatBox // chat panel, in-game overlay, broadcast banner (chat.go)

	wantShot bool
	shotErr  error
	quit     bool
}

func newApp(ctx context.Context, cfg Config) (*app, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	set, err := settings.Load(cfg.ConfigDir)
	a := &app{cfg: cfg, ctx: ctx, log: log, set: set, rebind: -1, epoch: time.Now(), local: make(chan func(), 8)}
	if err != nil {
		log.Warn("settings", "err", err)
		a.msg = err.Error()
		a.msgUntil = 600
	}
	if cfg.Server != "" {
		a.set.ServerAddr = cfg.Server
	}
	if len(cfg.Lists) > 0 {
		a.set.Lists = cfg.Lists
	}
	if cfg.Name != "" {
		if !settings.ValidName(cfg.Name) {
			return nil, fmt.Errorf("client: name %q must be 1..16 of [A-Za-z0-9_-]", cfg.Name)
		}
		a.set.Name = cfg.Name
	}
	if cfg.ScreenshotAfter <= 0 {
		a.cfg.ScreenshotAfter = 300
	}
	if cfg.Screenshot != "" {
		if dir := filepath.Dir(cfg.Screenshot); dir != "" {
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return nil, fmt.Errorf("client: screenshot directory %q does not exist", dir)
			}
		}
	}
	auto := AutoFlow(cfg)
	a.m = scene.New(a.set.ServerAddr, auto)
	a.m.Favourites, a.m.Recent = a.set.Favourites, a.set.Recent
	a.net = netflow.NewRunner(ctx, log, a.set.Name, cfg.NetSim)
	a.net.SetServerSource(netflow.NetSource{URLs: a.set.Lists, LANPorts: []int{settings.DefaultPort}})
	a.addr = textField{Text: a.set.ServerAddr, Max: 64, Allow: allowAddr}
	a.name = textField{Text: a.set.Name, Max: 16, Allow: allowName}
	a.code = textField{Max: 5, Allow: allowCode}
	a.chat = newChatBox()
	a.in.Init(input.SystemConfig{DevicesEnabled: input.KeyboardDevice | input.GamepadDevice})
	km, msgs := buildKeymap(a.set)
	for _, m := range msgs {
		log.Warn("settings: " + m)
	}
	a.keys = km
	a.h = a.in.NewHandler(0, km)
	a.scanner = input.NewKeyScanner(a.h)
	if cfg.viaCanvas || cfg.Screenshot != "" {
		a.canvas = ebiten.NewImage(Width, Height)
		if cfg.shotW > 0 && cfg.shotH > 0 {
			a.canvas = ebiten.NewImage(cfg.shotW, cfg.shotH)
		}
	}
	a.stars = starfield.New(0x5eed, starfield.DefaultLayers, 90)
	a.tracker = fx.NewTracker()
	a.parts.Max = maxParticles
	a.ui = sharedUI()
	// the offscreen ebiten would clear every frame (a full-window pass) is not drawn on:
	// DrawFinalScreen covers the window, letterbox bars included
	ebiten.SetScreenClearedEveryFrame(false)
	sc := int(a.ui.sp.scale)
	a.world = ebiten.NewImageWithOptions(image.Rect(0, 0, Width/sc, Height/sc), &ebiten.NewImageOptions{Unmanaged: true})
	a.collectFn = func(f *netflow.Frame) { a.draw.collect(f, &a.scores) }
	a.markOp.ColorScale.ScaleAlpha(0)
	a.autoFn = func(f *netflow.Frame) {
		if f.Self != 0 {
			var t *game.Terrain
			if f.Stage != nil {
				t = &f.Stage.Terrain
			}
			a.autoBtns = game.Autopilot(f.World, f.C, t, f.Self, f.Tick).Buttons
		}
	}
	if cfg.local == nil {
		a.snd = sfx.New(cfg.Mute, log)
	} else {
		a.snd = sfx.New(true, log)
	}
	a.snd.SetVolumes(a.set.MusicVolume, a.set.EffectsVolume)
	a.musicFor(a.m.Scene) // the first scene is never "entered" (onEnter)
	if cfg.local != nil {
		a.link = cfg.local
		a.m = scene.New("local", scene.Auto{})
		a.m.Scene = scene.Playing
	} else {
		if !auto.On {
			a.loadTicket() // "Rejoin game …" on the title while a lost game keeps the slot
		}
		a.exec(a.m.Begin())
		if cfg.Replay != "" && !auto.On {
			a.handle(scene.Event{Kind: scene.EvWatch, Path: cfg.Replay})
		}
	}
	return a, nil
}

func (a *app) close() {
	a.net.Close()
	a.snd.StopMusic()
	if a.canvas != nil {
		a.canvas.Deallocate()
	}
	a.world.Deallocate()
}

// Layout is required by ebiten.Game; LayoutF is used instead.
func (a *app) Layout(outsideWidth, outsideHeight int) (int, int) { return outsideWidth, outsideHeight }

// LayoutF makes the screen the window's real size in device pixels, so ebiten's final pass is a
// 1:1 copy; Draw scales and letterboxes the 1920×1080 virtual playfield into it itself.
func (a *app) LayoutF(outsideWidth, outsideHeight float64) (float64, float64) {
	s := ebiten.Monitor().DeviceScaleFactor()
	return math.Ceil(outsideWidth * s), math.Ceil(outsideHeight * s)
}

func (a *app) exec(cmds []scene.Cmd) {
	for _, c := range cmds {
		switch c.Kind {
		case scene.CmdQuit:
			a.quit = true
		case scene.CmdSaveSettings:
			a.saveSettings()
		case scene.CmdCloseSession:
			a.endGame()
			a.net.Exec(c)
		case scene.CmdPause:
			a.net.RequestPause(c.Paused)
		case scene.CmdClearTicket:
			a.clearTicket()
		case scene.CmdListReplays, scene.CmdOpenReplay, scene.CmdCloseReplay:
			a.execReplay(c)
		case scene.CmdFetchReplay, scene.CmdKeepReplay:
			c.Path = a.replayDir() // where the client keeps replays
			a.net.Exec(c)
		default:
			a.net.Exec(c)
		}
	}
}

func (a *app) handle(ev scene.Event) {
	before := a.m.Scene
	a.exec(a.m.Handle(ev))
	if a.m.Scene != before {
		a.menu = 0
		a.log.Debug("scene", "from", before, "to", a.m.Scene)
		if a.m.Scene == scene.Lost {
			a.log.Warn("connection lost", "reason", a.m.Reason)
		}
	}
}

func (a *app) saveSettings() {
	a.set.ServerAddr = a.m.Addr
	a.set.Favourites, a.set.Recent = a.m.Favourites, a.m.Recent
	if settings.ValidName(a.name.Text) {
		a.set.Name = a.name.Text
		a.net.SetName(a.name.Text)
	}
	if err := a.set.Save(a.cfg.ConfigDir); err != nil {
		a.log.Warn("settings not saved", "err", err)
	}
}

func (a *app) endGame() {
	a.link = nil
	a.snd.StopMusic()
}

// Update runs one 60 Hz frame: input, network replies, scene logic. It never blocks.
func (a *app) Update() error {
	if a.quit || a.ctx.Err() != nil {
		return ebiten.Termination
	}
	if a.wantShot {
		return a.writeScreenshot()
	}
	a.frameN++
	if a.cfg.exitAfter > 0 && a.frameN > a.cfg.exitAfter {
		return ebiten.Termination
	}
	a.followPad()
	a.in.Update()
	a.noteInput()
	alt := ebiten.IsKeyPressed(ebiten.KeyAlt)
	toggled := false
	if inpututil.IsKeyJustPressed(ebiten.KeyF11) || (alt && inpututil.IsKeyJustPressed(ebiten.KeyEnter)) {
		a.set.Fullscreen = !ebiten.IsFullscreen()
		ebiten.SetFullscreen(a.set.Fullscreen)
		a.saveSettings()
		toggled = true // Alt+Enter must not also activate a menu item
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyF3) {
		a.showStats = !a.showStats
	}
	a.takeReplies()
	if a.m.Scene != a.last {
		a.onEnter(a.m.Scene)
		a.last = a.m.Scene
	}
	chatKeys := a.updateChat() // the chat field has the keyboard: no ship input, no menu keys
	scn, menu := a.m.Scene, a.menu
	if s := screenOf(scn); isGame(s) {
		s.update(a, frame{toggled: toggled, chatKeys: chatKeys})
		if a.m.Scene == scn && a.drawnN > 0 {
			a.gameN++
			if a.cfg.Screenshot != "" && a.gameN >= a.cfg.ScreenshotAfter {
				a.shotReady = true
			}
		}
	} else {
		if a.menuAnimating() {
			a.scroll += 0.8 // idle drift of the menu background
			a.rest.clock++
		}
		if !toggled && !chatKeys {
			s.update(a, frame{})
			a.menuSounds(scn, menu)
		}
	}
	if a.cfg.Screenshot != "" && (a.m.Scene == scene.Lost || a.m.Scene == scene.Results) {
		// an automated screenshot run that cannot reach (or outlived) the game fails instead of
		// waiting forever
		reason := a.m.Reason
		if a.m.Scene == scene.Results {
			reason = fmt.Sprintf("the game ended (%s) after %d of %d ticks", rules.Result(a.m.Result), a.gameN, a.cfg.ScreenshotAfter)
		}
		a.shotErr = fmt.Errorf("client: no screenshot: %s", reason)
		return ebiten.Termination
	}
	a.handle(scene.Event{Kind: scene.EvTick})
	a.parts.Update()
	if a.msgUntil > 0 {
		a.msgUntil--
	}
	return nil
}

// takeReplies hands the scene machine what the network calls and the client's own goroutines
// (replay files) answered since the last frame.
func (a *app) takeReplies() {
	for done := false; !done; {
		select {
		case ne := <-a.net.Events():
			a.net.Accept(ne)
			if ne.Link != nil {
				a.startGame(ne.Link)
			}
			a.handle(ne.Ev)
			if ne.Link != nil && a.m.Scene != scene.Playing {
				// the session came up after the player left the room: close it again
				a.exec([]scene.Cmd{{Kind: scene.CmdCloseSession}})
			}
		default:
			done = true
		}
	}
	for done := false; !done; {
		select {
		case fn := <-a.local:
			fn()
		default:
			done = true
		}
	}
}

func (a *app) onEnter(id scene.ID) {
	a.musicFor(id)
	a.rest.lastInput = a.frameN // a new screen animates (idle.go)
}

func (a *app) startGame(l netflow.Link) {
	a.link = l
	a.tracker.Reset()
	a.parts.P = a.parts.P[:0]
	a.gameN = 0
	a.scores = [rules.MaxPlayers]playerHUD{}
	a.ux.startGame(a)
	a.soundState = soundWatch{notice: a.soundState.notice, noticed: a.soundState.noticed}
	// the menu music plays on until the stage's first MUSIC
}

// gateFire passes the polled buttons through the FireGate (a tap is sent held for at most
// controls.TapTicks whatever the frame rate) and, while a press is unconfirmed, arms a timer
// that releases fire at the end of the tap window even if no frame is drawn by then.
func (a *app) gateFire(l netflow.Link, raw game.Buttons) game.Buttons {
	now := time.Since(a.epoch)
	on := a.fire.Poll(raw&game.BtnFire != 0, a.draws, now)
	rest := raw &^ game.BtnFire
	a.heldBtns.Store(uint32(rest))
	if at, pending := a.fire.Expires(); pending && on && at != a.fireArmed {
		a.fireArmed = at
		time.AfterFunc(at-now, func() {
			b := game.Buttons(a.heldBtns.Load())
			if a.fire.Level(time.Since(a.epoch)) {
				b |= game.BtnFire
			}
			l.SetInput(b)
		})
	}
	if on {
		return rest | game.BtnFire
	}
	return rest
}

func (a *app) sessionEvent(ev session.Event) {
	switch ev.Kind {
	case session.EventDeath:
		a.snd.Play(synth.ExplosionLarge)
		a.ux.death(a, int(ev.Slot), int(ev.Lives))
	case session.EventResults:
		a.ux.results, a.ux.haveResults = ev.Results, true
	case session.EventMusic:
		a.snd.Music(int(ev.Song)) // an unknown song id keeps the current music
	case session.EventGameEnd:
		a.handle(scene.Event{Kind: scene.EvGameEnd, Result: uint8(ev.Result)})
	case session.EventDisconnected:
		reason := ev.Reason
		if reason == "" {
			reason = "disconnected from the game server"
		}
		a.keepTicket(reason)
		a.handle(scene.Event{Kind: scene.EvDisconnected, Reason: reason})
	}
}

// Draw draws a frame that may be read back (the screenshot's frame, the menu harness) into the
// 1920×1080 offscreen canvas and copies it to screen. Any other frame is drawn straight onto
// ebiten's final screen by DrawFinalScreen (view.go); Draw then only marks the offscreen as
// drawn (ebiten skips the final screen when the offscreen is left untouched).
func (a *app) Draw(screen *ebiten.Image) {
	a.draws++
	pageFrame(a.draws, a.m.Scene)
	a.pageReport()
	a.viaCanvas = a.canvas != nil && (a.cfg.viaCanvas || a.shotReady)
	if !a.viaCanvas {
		if a.inMenus() && !a.menuPresent(screen.Bounds()) {
			return // the menu picture rests: ebiten keeps the last frame on the window (idle.go)
		}
		screen.DrawImage(a.ui.sp.white, &a.markOp) // alpha 0: nothing visible
		return
	}
	a.drawnN = a.compose(a.canvas, a.world)
	if a.shotReady && a.drawnN > 0 {
		a.wantShot = true
	}
	screen.Clear()
	b := screen.Bounds()
	a.ui.xf = fit(b.Dx(), b.Dy())
	op := resetOp(&drawOp)
	op.GeoM.Scale(float64(a.ui.xf.k), float64(a.ui.xf.k))
	op.GeoM.Translate(float64(a.ui.xf.ox), float64(a.ui.xf.oy))
	if a.ui.xf.k < 1 {
		op.Filter = ebiten.FilterLinear
	}
	screen.DrawImage(a.canvas, op)
	a.drawSoundNotice(screen)
}

// DrawFinalScreen implements ebiten.FinalScreenDrawer: the frame is composed straight onto the
// window's framebuffer, with no offscreen copy (one full-window pass less, which is what a
// software renderer pays for).
func (a *app) DrawFinalScreen(screen ebiten.FinalScreen, offscreen *ebiten.Image, geoM ebiten.GeoM) {
	if a.viaCanvas {
		op := resetOp(&drawOp)
		op.GeoM = geoM
		screen.DrawImage(offscreen, op)
		return
	}
	a.drawnN = a.drawFrame(screen, a.world)
}

// drawFrame is what DrawFinalScreen draws: compose and the sound notice.
func (a *app) drawFrame(screen, world surface) int {
	n := a.compose(screen, world)
	a.drawSoundNotice(screen)
	return n
}

// compose draws the whole frame into screen, letterboxed to its size, with the world drawn
// into world first (the world image; a keySurface for a menu frame's key, idle.go), and
// returns the number of entities drawn (0 outside a game).
func (a *app) compose(screen, world surface) int {
	dst := a.screenB.on(screen, a.ui.sp)
	defer dst.flush()
	b := dst.Bounds()
	v := fit(b.Dx(), b.Dy())
	a.ui.xf = v
	if v.ox > 0 || v.oy > 0 { // letterbox bars (the screen is not cleared)
		p := painter{dst: dst}
		vw, vh := round32(Width*v.k), round32(Height*v.k)
		fw, fh := float32(b.Dx()), float32(b.Dy())
		p.pxRect(0, 0, fw, v.oy, black)
		p.pxRect(0, v.oy+vh, fw, fh-v.oy-vh, black)
		p.pxRect(0, 0, v.ox, fh, black)
		p.pxRect(v.ox+vw, 0, fw-v.ox-vw, fh, black)
	}
	w := painter{a.worldB.on(world, a.ui.sp), xf{k: 1 / a.ui.sp.scale}}
	n := 0
	playing := !a.inMenus()
	if playing {
		n = a.drawWorld(w)
	} else {
		a.drawBackdrop(w, 0, a.snapScroll(w))
	}
	a.worldB.flush() // the world image is complete: drawn onto the screen next
	op := &scaleOp
	op.Blend = ebiten.BlendCopy // opaque: no blending, the cheapest fill for a software renderer
	ws := float64(v.k * a.ui.sp.scale)
	op.GeoM.Reset()
	op.GeoM.Scale(ws, ws)
	op.GeoM.Translate(float64(v.ox), float64(v.oy))
	op.Images[0] = a.world
	wb := a.world.Bounds()
	dst.DrawRectShader(wb.Dx(), wb.Dy(), a.ui.sp.copyProg, op) // the cheapest program (view.go)
	op.Images[0] = nil
	switch s := screenOf(a.m.Scene); {
	case playing:
		a.drawGameUI(dst)
		s.draw(a, dst)
	case !isGame(s): // a game screen before its link is up draws nothing
		s.draw(a, dst)
	}
	a.drawBanner(dst)
	return n
}

// scaleOp draws the world image onto the screen (compose).
var scaleOp ebiten.DrawRectShaderOptions

// writeScreenshot saves the canvas (the last drawn frame) as PNG and ends the game loop.
func (a *app) writeScreenshot() error {
	img := image.NewRGBA(a.canvas.Bounds())
	a.canvas.ReadPixels(img.Pix)
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		a.shotErr = err
		return ebiten.Termination
	}
	if err := os.WriteFile(a.cfg.Screenshot, buf.Bytes(), 0o644); err != nil {
		a.shotErr = fmt.Errorf("client: screenshot: %w", err)
		return ebiten.Termination
	}
	a.log.Info("screenshot written", "file", a.cfg.Screenshot, "ticks_in_game", a.gameN, "frames_drawn", a.draws)
	return ebiten.Termination
}

// AutoFlow is the keyless flow the flags ask for: -autoplay alone creates a lobby and starts it
// (the game without keys, as its help says); -autoplay -lobby CODE joins and waits for the
// owner's START; -start starts the lobby it is in.
func AutoFlow(cfg Config) scene.Auto {
	return scene.Auto{On: cfg.Autoplay || cfg.Lobby != "" || cfg.Start, Lobby: strings.ToUpper(cfg.Lobby),
		Start: cfg.Start || (cfg.Autoplay && cfg.Lobby == ""), Stage: cfg.Stage}
}
