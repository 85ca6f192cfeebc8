package client

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
	input "github.com/quasilyte/ebitengine-input"

	"github.com/rtype/rtype/game/client/controls"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/client/settings"
	"github.com/rtype/rtype/game/client/synth"
)

// settingsScreen (scene.Settings) has fullscreen, the volumes, the accessibility options and
// the keyboard and gamepad bindings (Enter rebinds a row: the next key or button).
type settingsScreen struct{ titleMusic }

func init() { register(scene.Settings, settingsScreen{}) }

func (settingsScreen) update(a *app, _ frame) {
	if a.rebind >= 0 {
		a.updateRebind()
		return
	}
	rows := settingsRows()
	a.nav(rows, false)
	left, right := a.justPressed(controls.Left), a.justPressed(controls.Right)
	step := 0.0
	if left {
		step = -0.1
	} else if right {
		step = 0.1
	}
	clamp := func(v float64) float64 { return math.Round(math.Max(0, math.Min(1, v))*10) / 10 }
	switch {
	case a.menu == 1 && step != 0:
		a.set.MusicVolume = clamp(a.set.MusicVolume + step)
		a.snd.SetVolumes(a.set.MusicVolume, a.set.EffectsVolume)
	case a.menu == 2 && step != 0:
		a.set.EffectsVolume = clamp(a.set.EffectsVolume + step)
		a.snd.SetVolumes(a.set.MusicVolume, a.set.EffectsVolume)
		a.snd.Play(synth.Shot)
	}
	if a.back(false) {
		a.applyBindings()
		a.handle(scene.Event{Kind: scene.EvBack})
		return
	}
	if !a.confirm(false) {
		return
	}
	switch {
	case a.menu == 0:
		a.set.Fullscreen = !a.set.Fullscreen
		ebiten.SetFullscreen(a.set.Fullscreen)
	case a.menu == 3:
		a.set.ColourBlind = !a.set.ColourBlind
	case a.menu == 4:
		a.set.ReducedFlash = !a.set.ReducedFlash
	case a.menu >= generalRows && a.menu < rows-2:
		a.rebind = a.menu
		a.scanner = input.NewKeyScanner(a.h)
	case a.menu == rows-2:
		d := settings.Default()
		a.set.Keyboard, a.set.Gamepad = d.Keyboard, d.Gamepad
		a.applyBindings()
	case a.menu == rows-1:
		a.applyBindings()
		a.handle(scene.Event{Kind: scene.EvBack})
	}
}

func (settingsScreen) draw(a *app, dst surface) {
	u := a.ui
	u.text(dst, "SETTINGS", u.big, Width/2, 40, alignCenter, white)
	type row struct{ label, value string }
	badRows := map[int]bool{} // rows with a binding that could not be loaded
	rows := []row{
		{"Fullscreen: " + onOff(a.set.Fullscreen), ""},
		{fmt.Sprintf("Music volume: < %.0f%% >", a.set.MusicVolume*100), ""},
		{fmt.Sprintf("Effects volume: < %.0f%% >", a.set.EffectsVolume*100), ""},
		{"Colour-blind palette: " + onOff(a.set.ColourBlind), "crystal names, bullet rings"},
		{"Reduced flashing: " + onOff(a.set.ReducedFlash), "no blinking, soft hit flashes"},
	}
	for _, pad := range []bool{false, true} {
		for act := controls.Action(0); act < controls.NumActions; act++ {
			b, dev := a.set.Keyboard, "Key  "
			if pad {
				b, dev = a.set.Gamepad, "Pad  "
			}
			names := make([]string, len(b[act.String()]))
			bad := false
			for j, k := range b[act.String()] {
				names[j] = strings.TrimPrefix(k, "gamepad_") // the column says Pad already
				if !bindingLoaded(k) {
					names[j] += " (not loaded)"
					bad = true
				}
			}
			rows = append(rows, row{dev + act.Label(), strings.Join(names, ", ")})
			if bad {
				badRows[len(rows)-1] = true
			}
		}
	}
	rows = append(rows, row{"Reset bindings to defaults", ""}, row{"Back", ""})
	// two columns: general + keyboard on the left, gamepad on the right; label, then bindings
	n := int(controls.NumActions)
	for i, r := range rows {
		col := u.itemCol
		if i == a.menu {
			col = u.selCol
		}
		x, y := 100.0, 150+float64(i)*40
		if i >= generalRows+n && i < generalRows+2*n {
			x, y = 1000, 150+float64(i-n)*40
		} else if i >= generalRows+2*n {
			x, y = 100, 150+float64(i-n)*40
		}
		if i == a.menu && i == a.rebind {
			// the prompt replaces the row's value, kept inside its column (x .. x+880): it
			// never runs into the pad column
			_, pad := bindingRow(i)
			prompt := "press a key  (Esc cancels)"
			if pad {
				prompt = "press a button  (Esc cancels)"
			}
			u.text(dst, r.label, u.small, x, y, alignStart, col)
			u.on(dst).rect(float32(x+430), float32(y-6), 450, 34, color.RGBA{60, 50, 10, 230})
			u.text(dst, prompt, u.small, x+440, y, alignStart, col)
			continue
		}
		if badRows[i] {
			col = u.errorCol
		}
		u.text(dst, r.label, u.small, x, y, alignStart, col)
		if r.value != "" {
			u.text(dst, u.clip(r.value, u.small, 440), u.small, x+440, y, alignStart, col) // kept in its column
		}
	}
	u.help(dst, "Enter toggle/rebind · Left/Right volume · Esc save and back")
}

// generalRows are the settings rows before the bindings: fullscreen, music, effects, the
// colour-blind palette and reduced flashing.
const generalRows = 5

// settings rows: the general rows, then keyboard and gamepad bindings, reset, back.
func settingsRows() int { return generalRows + 2*int(controls.NumActions) + 2 }

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// bindingRow returns the action and whether the row is a gamepad binding.
func bindingRow(row int) (controls.Action, bool) {
	i := row - generalRows
	n := int(controls.NumActions)
	return controls.Action(i % n), i >= n
}

// updateRebind waits for a key (keyboard rows) or a gamepad button (gamepad rows) and makes it
// the action's first binding; Esc cancels.
func (a *app) updateRebind() {
	act, pad := bindingRow(a.rebind)
	set := func(name string) {
		b := a.set.Keyboard
		if pad {
			b = a.set.Gamepad
		}
		b.Rebind(act, name)
		a.rebind = -1
		a.applyBindings()
	}
	if pad {
		if inpututil.IsKeyJustPressed(ebiten.KeyEscape) {
			a.rebind = -1
			return
		}
		if name, ok := a.scanPadButton(); ok {
			set(name)
		}
		return
	}
	if padJustPressed(a.h, controls.Back) { // a pad cancels a keyboard row (it cannot type a key)
		a.rebind = -1
		return
	}
	k, status := a.scanner.Scan()
	if status == input.KeyScanCompleted {
		if k.String() == "escape" && act != controls.Menu && act != controls.Back {
			a.rebind = -1
			return
		}
		set(k.String())
	}
}

func (a *app) applyBindings() {
	km, msgs := buildKeymap(a.set)
	for _, m := range msgs {
		a.log.Warn("settings: " + m)
	}
	a.keys = km
	a.h.Remap(km)
}
