package vpad

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtype/rtype/game/client/controls"
)

// TestSDLID: the id ebiten's Linux gamepad code builds from EVIOCGID (bus, vendor, product,
// version little-endian, two zero bytes after each), for the ids of SDL's own database lines.
func TestSDLID(t *testing.T) {
	for p, want := range map[*Profile]string{
		&Xbox360:    "030000005e0400008e02000014010000",
		&DualShock4: "030000004c050000cc09000011810000",
		&SteamDeck:  "03000000de2800000512000011010000",
	} {
		if got := p.SDLID(); got != want {
			t.Errorf("%s: SDLID = %s, want %s", p.Name, got, want)
		}
	}
}

// ebitenDB reads the SDL game controller database ebiten embeds for Linux, from the module this
// repository pins (go.mod), as mapping lines by SDL id.
func ebitenDB(t *testing.T) map[string]map[string]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/hajimehoshi/ebiten/v2").Output()
	if err != nil {
		t.Skipf("go list -m ebiten: %v (the module's source is needed to read its database)", err)
	}
	path := filepath.Join(strings.TrimSpace(string(out)), "internal", "gamepaddb", "gamecontrollerdb_linbsd.txt")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("ebiten's Linux gamepad database: %v", err)
	}
	defer f.Close()
	db := map[string]map[string]string{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, ",")
		m := map[string]string{"name": fields[1]}
		for _, kv := range fields[2:] {
			if k, v, ok := strings.Cut(kv, ":"); ok {
				m[k] = v
			}
		}
		db[fields[0]] = m
	}
	return db
}

// sdlName is the SDL mapping name of an ebitengine-input gamepad key name of the defaults.
var sdlName = map[string]string{
	"gamepad_a": "a", "gamepad_b": "b", "gamepad_x": "x", "gamepad_y": "y",
	"gamepad_l1": "leftshoulder", "gamepad_r1": "rightshoulder", "gamepad_back": "back", "gamepad_start": "start",
	"gamepad_up": "dpup", "gamepad_down": "dpdown", "gamepad_left": "dpleft", "gamepad_right": "dpright",
	"gamepad_lstick_up": "lefty", "gamepad_lstick_down": "lefty", "gamepad_lstick_left": "leftx", "gamepad_lstick_right": "leftx",
}

// want is the mapping entry a standard button must have on p: the b/a/h number of the physical
// control that sits where the standard layout puts it.
func want(p Profile, sdl string) string {
	b := func(code uint16) string { return fmt.Sprintf("b%d", p.Button(code)) }
	hat := func(dir int) string { return fmt.Sprintf("h%d.%d", p.HatIndex(AbsHat0X), dir) }
	sony := p.Vendor == 0x054c
	switch sdl {
	case "a":
		return b(BtnSouth)
	case "b":
		return b(BtnEast)
	case "x": // the left face button: Xbox X (BTN_X = BTN_NORTH's code), PlayStation square (BTN_WEST)
		if sony {
			return b(BtnWest)
		}
		return b(BtnNorth)
	case "y":
		if sony {
			return b(BtnNorth)
		}
		return b(BtnWest)
	case "leftshoulder":
		return b(BtnTL)
	case "rightshoulder":
		return b(BtnTR)
	case "back":
		return b(BtnSelect)
	case "start":
		return b(BtnStart)
	case "leftx":
		return fmt.Sprintf("a%d", p.AxisIndex(AbsX))
	case "lefty":
		return fmt.Sprintf("a%d", p.AxisIndex(AbsY))
	}
	dpad := map[string]struct {
		dir int
		btn uint16
	}{"dpup": {1, BtnDpadUp}, "dpright": {2, BtnDpadRight}, "dpdown": {4, BtnDpadDown}, "dpleft": {8, BtnDpadLeft}}[sdl]
	if p.Hat {
		return hat(dpad.dir)
	}
	return b(dpad.btn)
}

// TestStandardLayoutsNeedNoSetup: ebiten maps the Xbox 360 pad, the DualShock 4 and the Steam
// Deck, as their Linux drivers report them, to the standard layout from SDL's database, and
// every pad button the default bindings use lands on the control a player expects (A the bottom
// face button, the d-pad the d-pad, the left stick its axes) with no set-up. On a machine with
// uinput, TestVirtualPad (game/client) plays the real client with these same devices.
func TestStandardLayoutsNeedNoSetup(t *testing.T) {
	db := ebitenDB(t)
	used := map[string]bool{}
	for _, keys := range controls.DefaultGamepad() {
		for _, k := range keys {
			used[k] = true
		}
	}
	for short, p := range Profiles {
		m, ok := db[p.SDLID()]
		if !ok {
			t.Errorf("%s (%s): no line in ebiten's database: the pad would need a mapping", short, p.SDLID())
			continue
		}
		for k := range used {
			sdl, ok := sdlName[k]
			if !ok {
				t.Errorf("default gamepad binding %q: no SDL name known to this test", k)
				continue
			}
			if got, w := m[sdl], want(p, sdl); got != w {
				t.Errorf("%s (%s): %s (%s) maps to %q, want %q", short, m["name"], k, sdl, got, w)
			}
		}
	}
}

// TestEventLayout: struct input_event is a struct timeval, then type, code and value.
func TestEventLayout(t *testing.T) {
	b := AppendEvent(nil, Event{Type: EvKey, Code: BtnSouth, Value: 1})
	tv := len(b) - 8
	if tv != 8 && tv != 16 {
		t.Fatalf("input_event is %d bytes, want 16 or 24", len(b))
	}
	for _, x := range b[:tv] {
		if x != 0 {
			t.Fatalf("the time is not zero: % x", b)
		}
	}
	if got := fmt.Sprintf("% x", b[tv:]); got != "01 00 30 01 01 00 00 00" {
		t.Errorf("type/code/value = %s, want 01 00 30 01 01 00 00 00 (little-endian)", got)
	}
}

// TestPress: the d-pad of a hat pad moves the hat, a Deck's d-pad is buttons; every press ends
// with a SYN_REPORT; a release puts the control back.
func TestPress(t *testing.T) {
	evs, err := Xbox360.Press("left", true)
	if err != nil || len(evs) != 2 || evs[0] != (Event{EvAbs, AbsHat0X, -1}) || evs[1] != (Event{EvSyn, SynReport, 0}) {
		t.Errorf("Xbox 360 left: %v %v", evs, err)
	}
	if evs, _ := Xbox360.Press("left", false); evs[0] != (Event{EvAbs, AbsHat0X, 0}) {
		t.Errorf("Xbox 360 left released: %v", evs)
	}
	if evs, _ := SteamDeck.Press("down", true); evs[0] != (Event{EvKey, BtnDpadDown, 1}) {
		t.Errorf("Steam Deck down: %v", evs)
	}
	if evs, _ := DualShock4.Press("x", true); evs[0] != (Event{EvKey, BtnWest, 1}) {
		t.Errorf("DualShock 4 x (square): %v", evs)
	}
	if _, err := Xbox360.Press("turbo", true); err == nil {
		t.Error("an unknown button is not refused")
	}
}
