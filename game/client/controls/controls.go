// Package controls names the player's input actions, their default keyboard and gamepad
// bindings (as ebitengine-input key names, e.g. "left", "space", "gamepad_a") and maps the
// set of held actions to the game.Buttons bits sent to the server. It does not import ebiten,
// so the mapping is unit-tested without a display; game/client turns the names into an
// ebitengine-input Keymap.
package controls

import (
	"fmt"
	"sort"
)

// Action is one thing the player can do. The value is the ebitengine-input Action id.
type Action uint8

// The actions. Movement doubles as menu navigation.
const (
	Up      Action = iota // move up (menus: previous item)
	Down                  // move down (menus: next item)
	Left                  // move left (menus: decrease a value)
	Right                 // move right (menus: increase a value)
	Fire                  // hold to fire; holding charges the beam (the server counts the held ticks)
	Force                 // detach / recall the Force (the server reacts to the press edge)
	Menu                  // pause menu in game, back elsewhere
	Confirm               // menus: activate the selected item
	Back                  // menus: go back
	NumActions
)

var names = [NumActions]string{"up", "down", "left", "right", "fire", "force", "menu", "confirm", "back"}

// String is the action's stable name used as the key of the settings file's binding maps.
func (a Action) String() string {
	if a < NumActions {
		return names[a]
	}
	return fmt.Sprintf("action(%d)", uint8(a))
}

// Label is a human-readable name for the settings screen.
func (a Action) Label() string {
	switch a {
	case Up:
		return "Move up"
	case Down:
		return "Move down"
	case Left:
		return "Move left"
	case Right:
		return "Move right"
	case Fire:
		return "Fire (hold to charge)"
	case Force:
		return "Force detach/recall"
	case Menu:
		return "Pause / menu"
	case Confirm:
		return "Confirm"
	case Back:
		return "Back"
	}
	return a.String()
}

// ByName returns the action with the given String name.
func ByName(name string) (Action, bool) {
	for i, n := range names {
		if n == name {
			return Action(i), true
		}
	}
	return 0, false
}

// Bindings maps action names to ebitengine-input key names; an action may have several keys.
type Bindings map[string][]string

// Clone returns a deep copy.
func (b Bindings) Clone() Bindings {
	out := make(Bindings, len(b))
	for k, v := range b {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// Actions returns the bound action names in a stable order (for display and tests).
func (b Bindings) Actions() []string {
	out := make([]string, 0, len(b))
	for k := range b {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// DefaultKeyboard is the default keyboard layout: arrows and WASD move, Space/J fire,
// K/Shift the Force, Esc the menu, Enter confirms, Esc/Backspace go back.
func DefaultKeyboard() Bindings {
	return Bindings{
		"up":      {"up", "w"},
		"down":    {"down", "s"},
		"left":    {"left", "a"},
		"right":   {"right", "d"},
		"fire":    {"space", "j"},
		"force":   {"k", "shift_left", "shift_right"},
		"menu":    {"escape"},
		"confirm": {"enter", "space"},
		"back":    {"escape", "backspace"},
	}
}

// DefaultGamepad is the default (standard layout, Xbox naming) gamepad layout: d-pad and left
// stick move, A fires, B/R1 the Force, Start the menu, A confirms, B goes back.
func DefaultGamepad() Bindings {
	return Bindings{
		"up":      {"gamepad_up", "gamepad_lstick_up"},
		"down":    {"gamepad_down", "gamepad_lstick_down"},
		"left":    {"gamepad_left", "gamepad_lstick_left"},
		"right":   {"gamepad_right", "gamepad_lstick_right"},
		"fire":    {"gamepad_a", "gamepad_x"},
		"force":   {"gamepad_b", "gamepad_r1"},
		"menu":    {"gamepad_start"},
		"confirm": {"gamepad_a", "gamepad_start"},
		"back":    {"gamepad_b", "gamepad_back"},
	}
}

// Button bits, identical to game.BtnUp..game.BtnForce (game.Buttons); the client
// converts with game.Buttons(bits) and a test checks the values match.
const (
	BtnUp    uint8 = 1
	BtnDown  uint8 = 2
	BtnLeft  uint8 = 4
	BtnRight uint8 = 8
	BtnFire  uint8 = 16
	BtnForce uint8 = 32
)

// Buttons maps the held actions to game.Buttons bits. Opposite directions held together cancel
// (so Up+Down is no vertical movement), which keeps the 8-way movement well defined.
// pressed reports whether an action is held this frame.
func Buttons(pressed func(Action) bool) uint8 {
	var b uint8
	up, down := pressed(Up), pressed(Down)
	left, right := pressed(Left), pressed(Right)
	if up && !down {
		b |= BtnUp
	}
	if down && !up {
		b |= BtnDown
	}
	if left && !right {
		b |= BtnLeft
	}
	if right && !left {
		b |= BtnRight
	}
	if pressed(Fire) {
		b |= BtnFire
	}
	if pressed(Force) {
		b |= BtnForce
	}
	return b
}
