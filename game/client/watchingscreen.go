package client

import (
	"fmt"
	"image/color"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/controls"
	"github.com/rtype/rtype/game/client/playback"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/rules"
)

// watchingScreen (scene.Watching) plays a replay as a game: pause, seek, speed, whose ship the
// HUD follows.
type watchingScreen struct{}

func init() { register(scene.Watching, watchingScreen{}) }

func (watchingScreen) game() {}

// update is a frame of the Watching scene: the viewer's keys, then playback (not on the frame
// F11 or Alt+Enter toggled fullscreen).
func (watchingScreen) update(a *app, f frame) {
	if f.toggled {
		return
	}
	v := a.viewer
	if v == nil {
		return
	}
	switch {
	case a.back(false):
		a.handle(scene.Event{Kind: scene.EvBack})
		return
	case a.justPressed(controls.Fire), a.justPressed(controls.Confirm):
		v.TogglePause()
	case a.justPressed(controls.Right):
		v.Seek(playback.SeekStep)
		a.tracker.Reset()
	case a.justPressed(controls.Left):
		v.Seek(-playback.SeekStep)
		a.tracker.Reset()
	case a.justPressed(controls.Up):
		v.Faster()
	case a.justPressed(controls.Down):
		v.Slower()
	case a.justPressed(controls.Force):
		v.FollowNext()
	}
	v.Frame()
	for done := false; !done; {
		select {
		case ev := <-v.World().Events():
			a.sessionEvent(ev)
		default:
			done = true
		}
	}
}

// draw draws over the replay's world what the replay is, where playback is, and the keys.
func (watchingScreen) draw(a *app, dst surface) {
	v := a.viewer
	if v == nil {
		return
	}
	u := a.ui
	p := u.on(dst)
	r := v.Replay()
	tick, end := v.Progress()
	state := fmt.Sprintf("%dx", v.Speed()) // the font has no ×
	switch {
	case v.Err() != nil:
		state = "STOPPED"
	case v.Ended():
		state = "END"
	case v.Paused():
		state = "PAUSED"
	}
	follow := v.Follow()
	name := ""
	if follow < len(r.Names) {
		name = " " + r.Names[follow]
	}
	title := game.StageTitle(r.Stage)
	if st := v.World().Stage; st != nil && st.Name != "" {
		title = st.Name // the title of the stage being played (an arcade run's current one)
	}
	head := fmt.Sprintf("REPLAY  %s · %s · %s / %s · %s · following %s%s", title, r.Difficulty.Rules().Title,
		clock(int(tick)), clock(int(end)), state, slotTags[follow%rules.MaxPlayers], name)
	w := float32(u.textWidth(head, u.small))
	p.rect(12, 8, w+36, 38, hudPlateCol)
	u.text(dst, head, u.small, 30, 16, alignStart, u.selCol)
	k := float32(0)
	if end > 0 {
		k = float32(tick) / float32(end)
	}
	p.rect(30, 50, 600, 6, color.RGBA{40, 50, 80, 220})
	p.rect(30, 50, 600*k, 6, color.RGBA{255, 220, 80, 255})
	if err := v.Err(); err != nil {
		a.drawWrapped(dst, "This replay no longer matches the game: "+err.Error(), u.small, Width/2, 420, 1400, u.errorCol)
	}
	help := a.watchHelp()
	hw := float32(u.textWidth(help, u.small))
	p.rect(Width/2-hw/2-20, 64, hw+40, 42, helpPlateCol)
	u.text(dst, help, u.small, Width/2, 74, alignCenter, helpCol)
}

// watchHelp is the key help of the Watching scene.
func (a *app) watchHelp() string {
	b := a.hintBindings()
	k := func(act controls.Action) string { return controls.KeyHint(b, act, bindingLoaded, 1) }
	return fmt.Sprintf("%s pause · %s/%s seek 10 s · %s/%s speed · %s follow next · %s back",
		k(controls.Fire), k(controls.Left), k(controls.Right), k(controls.Up), k(controls.Down), k(controls.Force), k(controls.Back))
}
