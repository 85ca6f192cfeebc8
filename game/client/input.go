package client

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
	input "github.com/quasilyte/ebitengine-input"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/controls"
	"github.com/rtype/rtype/game/client/settings"
)

// buildKeymap turns the settings' key names into an ebitengine-input Keymap. Unknown key names
// are reported (one message each) and skipped; an action left without keys gets its defaults.
func buildKeymap(s settings.Settings) (input.Keymap, []string) {
	km := input.Keymap{}
	var msgs []string
	defKB, defPad := controls.DefaultKeyboard(), controls.DefaultGamepad()
	for a := controls.Action(0); a < controls.NumActions; a++ {
		var keys []input.Key
		add := func(src string, names []string) {
			for _, n := range names {
				k, err := input.ParseKey(n)
				if err != nil {
					msgs = append(msgs, fmt.Sprintf("%s binding %s=%q: %v", src, a, n, err))
					continue
				}
				keys = append(keys, k)
			}
		}
		add("keyboard", s.Keyboard[a.String()])
		n := len(keys)
		if n == 0 {
			add("keyboard", defKB[a.String()])
		}
		before := len(keys)
		add("gamepad", s.Gamepad[a.String()])
		if len(keys) == before {
			add("gamepad", defPad[a.String()])
		}
		km[input.Action(a)] = keys
	}
	return km, msgs
}

// padJustPressed reports whether act was just pressed on the gamepad rather than the keyboard:
// the screens with a text field take the pad's navigation, confirm and back while the keyboard's
// letters go into the field (a pad types nothing).
func padJustPressed(h *input.Handler, act controls.Action) bool {
	info, ok := h.JustPressedActionInfo(input.Action(act))
	return ok && info.IsGamepadEvent()
}

// maxPadID bounds the pads ebitengine-input v0.9.1 reads (its System keeps 8).
const maxPadID = 8

// followPad points the input handler at the gamepad controls.PickPad chooses: an
// ebitengine-input handler reads the one pad whose ebiten.GamepadID is its player id, and the
// first pad ebiten opens need not be the player's (it opens every /dev/input device with axes,
// in name order: event10 before event2). The handler holds no state but its keymap, so a new
// one is made when the choice changes. (ebitengine-input indexes its per-pad state by the pad's
// place in the list of connected pads: a pad left alone at id 1 after pad 0 was unplugged is
// read without its standard layout until it is plugged in again.)
func (a *app) followPad() {
	a.pads = ebiten.AppendGamepadIDs(a.pads[:0])
	a.padList = a.padList[:0]
	for _, id := range a.pads {
		if int(id) < maxPadID {
			a.padList = append(a.padList, controls.Pad{ID: int(id), Standard: ebiten.IsStandardGamepadLayoutAvailable(id), Buttons: ebiten.GamepadButtonCount(id)})
		}
	}
	if id := controls.PickPad(a.padList); id >= 0 && id != a.padID {
		a.padID = id
		a.h = a.in.NewHandler(uint8(id), a.keys)
	}
}

// pressed adapts an input handler to controls.Buttons.
func pressedFunc(h *input.Handler) func(controls.Action) bool {
	return func(a controls.Action) bool { return h.ActionIsPressed(input.Action(a)) }
}

// gameButtons converts the controls bits to game.Buttons.
func gameButtons(bits uint8) game.Buttons { return game.Buttons(bits) }

// textField is a one-line text entry for the connect and lobby-code fields.
type textField struct {
	Text  string
	Max   int
	Allow func(r rune) bool
	buf   []rune
}

// update appends typed characters and handles Backspace (held Backspace repeats).
func (t *textField) update() {
	t.buf = ebiten.AppendInputChars(t.buf[:0])
	for _, r := range t.buf {
		if t.Allow != nil && !t.Allow(r) {
			continue
		}
		if t.Max > 0 && len([]rune(t.Text)) >= t.Max {
			break
		}
		t.Text += string(r)
	}
	if d := inpututil.KeyPressDuration(ebiten.KeyBackspace); d == 1 || (d > 20 && d%3 == 0) {
		if r := []rune(t.Text); len(r) > 0 {
			t.Text = string(r[:len(r)-1])
		}
	}
}

func allowAddr(r rune) bool {
	return r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(".:-[]_", r))
}

func allowName(r rune) bool {
	return r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-')
}

func allowCode(r rune) bool { return r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

// padScanKeymap has one action per bindable pad button (controls.PadKeys, in order).
var padScanKeymap = func() input.Keymap {
	km := input.Keymap{}
	for i, name := range controls.PadKeys {
		k, err := input.ParseKey(name)
		if err != nil {
			panic(fmt.Sprintf("controls.PadKeys: %q: %v", name, err))
		}
		km[input.Action(i)] = []input.Key{k}
	}
	return km
}()

// scanPadButton returns the name of the pad button just pressed on the pad the input follows
// (followPad), read through ebitengine-input as in play (ebitengine-input's KeyScanner only
// scans the keyboard).
func (a *app) scanPadButton() (string, bool) {
	h := a.in.NewHandler(uint8(a.padID), padScanKeymap)
	for i, name := range controls.PadKeys {
		if h.ActionIsJustPressed(input.Action(i)) {
			return name, true
		}
	}
	return "", false
}

// steerWhileTyping is the ship's input while the chat field has the keyboard: the arrow keys and
// the gamepads' d-pads still steer (they type nothing), so chatting never leaves the ship
// standing in the line of fire; letters, Space and the other bound keys go to the field, so
// the ship does not fire.
func steerWhileTyping(pads []ebiten.GamepadID) uint8 {
	pad := func(b ebiten.StandardGamepadButton) bool {
		for _, id := range pads {
			if ebiten.IsStandardGamepadButtonPressed(id, b) {
				return true
			}
		}
		return false
	}
	return controls.Buttons(func(a controls.Action) bool {
		switch a {
		case controls.Up:
			return ebiten.IsKeyPressed(ebiten.KeyArrowUp) || pad(ebiten.StandardGamepadButtonLeftTop)
		case controls.Down:
			return ebiten.IsKeyPressed(ebiten.KeyArrowDown) || pad(ebiten.StandardGamepadButtonLeftBottom)
		case controls.Left:
			return ebiten.IsKeyPressed(ebiten.KeyArrowLeft) || pad(ebiten.StandardGamepadButtonLeftLeft)
		case controls.Right:
			return ebiten.IsKeyPressed(ebiten.KeyArrowRight) || pad(ebiten.StandardGamepadButtonLeftRight)
		}
		return false
	})
}

// focusPollFrames is how often (frames) the client looks at the window's focus (focusPause).
const focusPollFrames = 60

// focusPause reports whether the in-game menu opens by itself this frame: a solo player's window
// lost the focus (it had it last frame), the menu is closed and no autopilot flies. Opening the
// menu asks the server to pause a lone player's game (docs/PROTOCOL.md §5.11). A window that never
// had the focus (a headless display) never pauses.
func focusPause(wasFocused, focused, solo, menuOpen, autoplay bool) bool {
	return wasFocused && !focused && solo && !menuOpen && !autoplay
}
