package controls

import "strings"

// PadPrefix starts every gamepad key name (ebitengine-input's "gamepad_a", "gamepad_up"...):
// the names the settings screen's Pad column binds (DefaultGamepad, PadKeys).
const PadPrefix = "gamepad_"

// IsPadKey reports whether an ebitengine-input key name is a gamepad button or stick direction.
func IsPadKey(name string) bool { return strings.HasPrefix(name, PadPrefix) }

// PadKeys are the gamepad buttons a gamepad row of the settings screen can bind (the
// standard layout's buttons, Xbox names: a is the bottom face button, x the left one).
var PadKeys = []string{"gamepad_a", "gamepad_b", "gamepad_x", "gamepad_y", "gamepad_l1", "gamepad_l2", "gamepad_r1", "gamepad_r2",
	"gamepad_back", "gamepad_start", "gamepad_up", "gamepad_down", "gamepad_left", "gamepad_right", "gamepad_lstick", "gamepad_rstick"}

// Rebind makes key the first binding of act in b (the rebinding row of the settings screen):
// the key it replaces is dropped, the action's other keys are kept after it, and key is not
// listed twice. The keyboard and gamepad maps are rebound the same way.
func (b Bindings) Rebind(act Action, key string) {
	old := b[act.String()]
	keys := []string{key}
	for i, k := range old {
		if i > 0 && k != key {
			keys = append(keys, k)
		}
	}
	b[act.String()] = keys
}

// Pad is what PickPad knows of a connected gamepad (from ebiten).
type Pad struct {
	ID       int
	Standard bool // ebiten maps it to the standard layout
	Buttons  int  // buttons the device reports
}

// PickPad chooses the gamepad the player's input follows among the connected ones (in ebiten's
// order): the one with a standard layout that has the most buttons (ties: the first), else the
// first. Ebiten opens every input device with axes as a pad, and a DualShock 4's touchpad and
// motion sensors share the pad's USB id, so SDL's mapping gives them a standard layout too:
// they have a few buttons or none, the pad has a dozen or more. -1: no pad.
func PickPad(pads []Pad) int {
	best := -1
	for i, p := range pads {
		if p.Standard && (best < 0 || p.Buttons > pads[best].Buttons) {
			best = i
		}
	}
	if best < 0 && len(pads) > 0 {
		best = 0
	}
	if best < 0 {
		return -1
	}
	return pads[best].ID
}
