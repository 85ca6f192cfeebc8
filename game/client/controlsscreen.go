package client

import (
	"strings"

	"github.com/rtype/rtype/game/client/controls"
	"github.com/rtype/rtype/game/client/scene"
)

// howToPlay is the "How to play" screen's text about the game, below the keys in effect.
var howToPlay = []string{
	"Tap fire for shots; hold it to charge the beam and let go to fire it (the meter at the bottom).",
	"Shoot the capsule carriers: a crystal gives the Force, then lasers (red helix, blue reflecting, yellow crawling).",
	"S speeds the ship up, M adds homing missiles, B a Bit that guards you. Dying loses them all.",
	"The Force blocks bullets and hurts what it touches: launch it ahead or behind, recall it to attach.",
	"Walls and the floor destroy a ship. After a respawn you blink: safe for as long as you blink, even shooting.",
	"Extra ships come with the score; with none left, CONTINUE? gives ten seconds to press fire.",
	"T (or Enter) opens the chat; the arrow keys still steer while you type.",
	"F11 fullscreen · F3 network figures · Esc the menu (a lone player's game pauses)",
}

// controlsScreen (scene.Controls) is How to play: every action with its keys and pad buttons in
// effect (Settings changes them), then what the game's things do; Enter or Esc goes back.
type controlsScreen struct{}

func init() { register(scene.Controls, controlsScreen{}) }

func (controlsScreen) update(a *app, _ frame) {
	if a.back(false) || a.confirm(false) {
		a.handle(scene.Event{Kind: scene.EvBack})
	}
}

func (controlsScreen) draw(a *app, dst surface) {
	u := a.ui
	u.text(dst, "HOW TO PLAY", u.big, Width/2, 40, alignCenter, white)
	b := a.hintBindings()
	y := 170.0
	for act := controls.Action(0); act < controls.NumActions; act++ {
		if act == controls.Confirm || act == controls.Back {
			continue // the menus' keys
		}
		keys := controls.KeyHint(b, act, bindingLoaded, 3)
		pads := strings.Join(trimPad(a.set.Gamepad[act.String()]), ", ")
		u.text(dst, act.Label(), u.normal, 720, y, alignEnd, u.itemCol)
		u.text(dst, keys, u.normal, 780, y, alignStart, white)
		if pads != "" {
			u.text(dst, "pad "+pads, u.small, 1400, y+6, alignStart, u.dimCol)
		}
		y += 52
	}
	y += 30
	for _, l := range howToPlay {
		y = a.drawWrapped(dst, l, u.small, Width/2, y, 1700, u.itemCol) + 8
	}
	u.help(dst, "Enter or Esc: back · Settings changes the keys")
}

// trimPad drops the "gamepad_" prefix of pad button names.
func trimPad(ks []string) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = strings.TrimPrefix(k, "gamepad_")
	}
	return out
}
