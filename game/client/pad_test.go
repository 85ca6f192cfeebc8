//go:build display

package client

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	input "github.com/quasilyte/ebitengine-input"

	"github.com/rtype/rtype/game/client/controls"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/client/settings"
	"github.com/rtype/rtype/game/client/vpad"
)

// runPadHarness runs the "pad" harness with driver and checks that it played every step.
func runPadHarness(t *testing.T, driver string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), harnessEnv+"=pad", "RTYPE_PAD_DRIVER="+driver)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == padSkip {
		why := ""
		for _, l := range strings.Split(stderr.String(), "\n") {
			if strings.HasPrefix(l, "harness:") {
				why = l
			}
		}
		t.Skipf("pad harness (%s): %s", driver, why)
	}
	steps := 0
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		if strings.HasPrefix(sc.Text(), "pad ") {
			steps++
			t.Log(sc.Text())
		}
	}
	if err != nil || !bytes.Contains(out, []byte("pad done")) {
		t.Fatalf("pad harness (%s): %v after %d steps\n%s", driver, err, steps, stderr.String())
	}
}

// TestPadPlaysMenusAndGame plays the real client against a real server with nothing but gamepad
// buttons (ebitengine-input's simulated pad keys, read by the client's handler as a pad's): the
// fire button rebound in Settings and saved, the title, the connect screen's text fields, the
// browser (down from the join-code field), a lobby created and started, the ship flown with the
// d-pad and the left stick, the rebound fire button firing and the old one not, the pause menu
// and leaving the game. TestVirtualPad plays the same with a kernel device where uinput exists.
func TestPadPlaysMenusAndGame(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("needs a display (make test runs it under xvfb-run)")
	}
	runPadHarness(t, "sim")
}

// TestVirtualPad plays the steps of TestPadPlaysMenusAndGame with a virtual Xbox 360 pad, a
// DualShock 4 and a Steam Deck (vpad: Linux uinput devices that ebiten reads from
// /dev/input/event* like real ones): the standard layouts with no set-up. It skips, saying why,
// where /dev/uinput cannot be opened; vpad's TestStandardLayoutsNeedNoSetup checks the same
// three devices against ebiten's SDL database everywhere.
func TestVirtualPad(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("needs a display (make test runs it under xvfb-run)")
	}
	if err := vpad.Available(); err != nil {
		t.Skipf("no virtual gamepad: %v", err)
	}
	names := make([]string, 0, len(vpad.Profiles))
	for n := range vpad.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Run(n, func(t *testing.T) { runPadHarness(t, n) })
	}
}

// padDriver presses the pad's buttons (names as ebitengine-input's without "gamepad_").
type padDriver interface {
	press(name string, down bool) error
	frame(h *input.Handler) // at the start of each Update
}

// simPad holds ebitengine-input simulated pad keys (a simulated key lasts one frame: it is
// emitted again every frame while held).
type simPad struct{ held []input.Key }

func (s *simPad) press(name string, down bool) error {
	k, err := input.ParseKey(controls.PadPrefix + name)
	if err != nil {
		return err
	}
	if down {
		s.held = append(s.held, k)
		return nil
	}
	for i, h := range s.held {
		if h == k {
			s.held = append(s.held[:i], s.held[i+1:]...)
			break
		}
	}
	return nil
}

func (s *simPad) frame(h *input.Handler) {
	for _, k := range s.held {
		h.EmitKeyEvent(input.SimulatedKeyEvent{Key: k})
	}
}

// kernelPad is a vpad device: ebiten reads its events from /dev/input.
type kernelPad struct{ d *vpad.Pad }

func (k kernelPad) press(name string, down bool) error { return k.d.Press(name, down) }
func (kernelPad) frame(*input.Handler)                 {}

// padStep waits until ready, holds button for hold frames (none: ""), then waits until done.
type padStep struct {
	name   string
	ready  func() bool
	button string
	hold   int
	done   func() bool
	ship   bool // the step needs the ship: it starts again if the ship is shot down meanwhile
}

const (
	padTap      = 3   // frames a button is held for a menu press
	padStepWait = 900 // frames a step may wait for its ready or done condition
)

// padGame plays padSteps on the app with a padDriver.
type padGame struct {
	*app
	drv    padDriver
	steps  []padStep
	i      int
	phase  int // 0 waiting ready, 1 holding, 2 waiting done
	n      int // frames in the phase
	x0, y0 float32
	still  int // drawn frames the ship has stood still
	own    int // own shots in the last drawn frame
	ownMax int // most own shots drawn since the step's button was pressed
	lastX  float32
	lastY  float32
	err    error
}

func (g *padGame) Update() error {
	if g.err != nil {
		return g.err
	}
	if g.i == len(g.steps) {
		fmt.Println("pad done")
		return ebiten.Termination
	}
	st := &g.steps[g.i]
	g.n++
	if _, _, alive := g.selfPos(); st.ship && g.phase > 0 && !alive {
		if g.phase == 1 && st.button != "" {
			if err := g.drv.press(st.button, false); err != nil {
				g.err = err
				return err
			}
		}
		fmt.Printf("pad step=%s again: the ship was shot down\n", st.name)
		g.phase, g.n = 0, 0
	}
	switch g.phase {
	case 0:
		if st.ready == nil || st.ready() {
			g.phase, g.n, g.ownMax = 1, 0, 0
			g.x0, g.y0, _ = g.selfPos()
			if st.button != "" {
				if err := g.drv.press(st.button, true); err != nil {
					g.err = err
					return err
				}
			}
		} else if g.n > padStepWait {
			g.err = fmt.Errorf("pad step %d %s: not ready after %d frames (scene %v, menu %d, busy %q, error %q)", g.i, st.name, g.n, g.m.Scene, g.menu, g.m.Busy, g.m.Error)
		}
	case 1:
		if g.n >= max(st.hold, padTap) || st.button == "" {
			if st.button != "" {
				if err := g.drv.press(st.button, false); err != nil {
					g.err = err
					return err
				}
			}
			g.phase, g.n = 2, 0
		}
	case 2:
		if st.done == nil || st.done() {
			fmt.Printf("pad step=%s ok (scene %v)\n", st.name, g.m.Scene)
			g.i++
			g.phase, g.n = 0, 0
		} else if g.n > padStepWait {
			g.err = fmt.Errorf("pad step %d %s: not done %d frames after the press (scene %v, menu %d, rebind %d, busy %q, error %q)", g.i, st.name, g.n, g.m.Scene, g.menu, g.rebind, g.m.Busy, g.m.Error)
		}
	}
	g.drv.frame(g.h)
	return g.app.Update()
}

func (g *padGame) DrawFinalScreen(screen ebiten.FinalScreen, offscreen *ebiten.Image, geoM ebiten.GeoM) {
	g.app.DrawFinalScreen(screen, offscreen, geoM)
	if g.m.Scene != scene.Playing {
		g.still, g.own = 0, 0
		return
	}
	g.own = 0
	for i := range g.draw.items {
		if g.draw.items[i].own {
			g.own++
		}
	}
	if g.phase >= 1 {
		g.ownMax = max(g.ownMax, g.own)
	}
	x, y, ok := g.selfPos()
	switch {
	case !ok:
		g.still = 0
	case x == g.lastX && y == g.lastY:
		g.still++
	default:
		g.lastX, g.lastY, g.still = x, y, 0
	}
}

// padSteps is the play: Settings (rebind fire to Y), then a game, then back to the title.
func (g *padGame) padSteps(kernel bool) []padStep {
	var s []padStep
	scn := func(id scene.ID) func() bool { return func() bool { return g.m.Scene == id && g.m.Busy == "" } }
	if kernel {
		s = append(s, padStep{name: "pad-seen", done: func() bool {
			for _, p := range g.padList {
				if p.ID == g.padID && p.Standard {
					fmt.Printf("pad seen: %q sdl=%s buttons=%d standard layout\n", ebiten.GamepadName(ebiten.GamepadID(p.ID)), ebiten.GamepadSDLID(ebiten.GamepadID(p.ID)), p.Buttons)
					return true
				}
			}
			return false
		}})
	}
	menuTo := func(name string, sc scene.ID, to int) {
		for i := 1; i <= to; i++ {
			want := i
			s = append(s, padStep{name: fmt.Sprintf("%s-down-%d", name, i), ready: scn(sc), button: "down", done: func() bool { return g.menu == want }})
		}
	}
	fireRow := generalRows + int(controls.NumActions) + int(controls.Fire) // the Pad column's fire row
	menuTo("title", scene.Title, 4)
	s = append(s, padStep{name: "title-settings", button: "a", done: scn(scene.Settings)})
	menuTo("settings", scene.Settings, fireRow)
	s = append(s,
		padStep{name: "settings-rebind-fire", button: "a", done: func() bool { return g.rebind == fireRow }},
		padStep{name: "settings-press-y", button: "y", done: func() bool { return g.rebind < 0 && g.set.Gamepad["fire"][0] == "gamepad_y" }},
		padStep{name: "settings-back", button: "b", done: scn(scene.Title)},
		padStep{name: "title-play", ready: func() bool { return scn(scene.Title)() && g.menu == 0 }, button: "a", done: func() bool { return g.m.Scene == scene.Servers }},
		// the server browser (no list set, nothing on the LAN): up wraps to Back, Refresh, Direct connect
		padStep{name: "servers-up", ready: func() bool { return g.m.Busy == "" }, button: "up", done: func() bool { return g.menu == serversHeadRows+2 }},
		padStep{name: "servers-up-2", button: "up", done: func() bool { return g.menu == serversHeadRows+1 }},
		padStep{name: "servers-up-3", button: "up", done: func() bool { return g.menu == serversHeadRows }},
		padStep{name: "servers-direct", button: "a", done: scn(scene.Connect)},
		padStep{name: "connect", ready: scn(scene.Connect), button: "a", done: scn(scene.Browser)},
		// the join-code field has the focus: the pad's down leaves it (the keyboard types there)
		padStep{name: "browser-down", ready: func() bool { return scn(scene.Browser)() && g.menu == len(g.m.Lobbies) }, button: "down",
			done: func() bool { return g.menu == len(g.m.Lobbies)+1 }},
		padStep{name: "browser-create", button: "a", done: func() bool { return g.m.Scene == scene.Room }},
		padStep{name: "room-start", ready: func() bool { return scn(scene.Room)() && g.roomItems()[0] == "Start" && g.menu == 0 }, button: "a",
			done: func() bool { return g.m.Scene == scene.Playing }},
		padStep{name: "fly-right-dpad", ship: true, ready: func() bool { return g.still >= 10 }, button: "right", hold: 20,
			done: func() bool { x, _, _ := g.selfPos(); return x > g.x0+20 }},
		padStep{name: "fly-down-stick", ship: true, ready: func() bool { return g.still >= 10 }, button: "lstick_down", hold: 20,
			done: func() bool { _, y, _ := g.selfPos(); return y > g.y0+20 }},
		// A no longer fires (rebound to Y): nothing of ours on screen 30 frames after it
		padStep{name: "a-no-longer-fires", ship: true, ready: func() bool { _, _, ok := g.selfPos(); return ok && g.own == 0 }, button: "a", hold: 20,
			done: func() bool {
				if g.ownMax > 0 {
					g.err = fmt.Errorf("pad: A still fires after fire was rebound to Y")
				}
				return g.n > 30
			}},
		padStep{name: "fire-y", ship: true, ready: func() bool { _, _, ok := g.selfPos(); return ok && g.own == 0 }, button: "y", hold: 20, done: func() bool { return g.ownMax > 0 }},
		padStep{name: "pause-start", button: "start", done: func() bool { return g.m.MenuOpen }},
		padStep{name: "pause-up", button: "up", done: func() bool { _, c := g.pauseMenu(); return c[g.pauseSel] == pauseLeave }}, // the last item (after Retry in a solo game)
		padStep{name: "pause-leave", button: "a", done: func() bool { return g.m.Scene == scene.Browser }},
		padStep{name: "browser-back", ready: scn(scene.Browser), button: "b", done: func() bool { return g.m.Scene == scene.Servers }},
		padStep{name: "servers-back", button: "b", done: func() bool { return g.m.Scene == scene.Title }},
	)
	return s
}

// padSkip is padMain's exit status when the virtual pad cannot reach ebiten here.
const padSkip = 3

// padMain is the "pad" harness: a real server in this process, the real client, and
// RTYPE_PAD_DRIVER ("sim", or a vpad profile: xbox360, ds4, steamdeck) playing padSteps; then
// the settings file must hold the rebound fire button.
func padMain(log *slog.Logger, dir string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	addr, stop, err := harnessServer(ctx, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "harness: server:", err)
		return 1
	}
	defer stop()
	var drv padDriver = &simPad{}
	name := os.Getenv("RTYPE_PAD_DRIVER")
	kernel := name != "sim"
	if kernel {
		p, ok := vpad.Profiles[name]
		if !ok {
			fmt.Fprintln(os.Stderr, "harness: no vpad profile", name)
			return 2
		}
		d, err := vpad.Open(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "harness:", err)
			return 1
		}
		defer d.Close()
		// ebiten reads /dev/input/event*: without the node (no devtmpfs or udev) or without the
		// right to read it, the pad cannot reach the client, which is no fault of the client
		f, err := os.Open(d.Node())
		if err != nil {
			fmt.Fprintf(os.Stderr, "harness: the virtual pad's event node %q cannot be read: %v\n", d.Node(), err)
			return padSkip
		}
		f.Close()
		fmt.Printf("pad device %s at %s\n", p.Name, d.Node())
		drv = kernelPad{d}
	}
	a, err := newApp(ctx, Config{Server: addr, Mute: true, ConfigDir: dir, Logger: log})
	if err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		return 1
	}
	defer a.close()
	g := &padGame{app: a, drv: drv}
	g.steps = g.padSteps(kernel)
	ebiten.SetWindowSize(960, 540)
	if err := ebiten.RunGame(g); err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		return 1
	}
	saved, err := settings.Load(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "harness: settings:", err)
		return 1
	}
	if got := saved.Gamepad["fire"]; len(got) == 0 || got[0] != "gamepad_y" {
		fmt.Fprintf(os.Stderr, "harness: the saved gamepad fire binding is %v, want gamepad_y first\n", got)
		return 1
	}
	fmt.Printf("pad saved: gamepad fire=%v\n", saved.Gamepad["fire"])
	return 0
}
