package client

import (
	"image/color"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
	input "github.com/quasilyte/ebitengine-input"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/controls"
	"github.com/rtype/rtype/game/client/netflow"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/stagefile"
)

// playingScreen (scene.Playing) is a game: the ship's input, the session's events, the in-game
// menu (Resume, Leave game) and the chat over the world.
type playingScreen struct{}

func init() { register(scene.Playing, playingScreen{}) }

func (playingScreen) game() {}

func (playingScreen) chat() {}

// update sends the input and handles session events; while the chat field has the keyboard
// only the arrow keys and d-pads steer the ship and Esc does not open the pause menu.
func (playingScreen) update(a *app, f frame) {
	chatKeys := f.chatKeys
	l := a.link
	if l == nil {
		return
	}
	for done := false; !done; {
		select {
		case ev, ok := <-l.Events():
			if !ok {
				a.keepTicket("")
				a.handle(scene.Event{Kind: scene.EvDisconnected, Reason: "the game session ended"})
				return
			}
			a.sessionEvent(ev)
			if a.link == nil {
				return
			}
		default:
			done = true
		}
	}
	menuPressed := !chatKeys && a.h.ActionIsJustPressed(input.Action(controls.Menu))
	if menuPressed {
		a.handle(scene.Event{Kind: scene.EvMenu}) // opens or closes the menu, asks for a pause
		a.pauseSel = 0
	}
	if a.frameN%focusPollFrames == 0 { // ebiten.IsFocused is a main-thread call that allocates: once a second
		focused := ebiten.IsFocused()
		if focusPause(a.wasFocused, focused, len(a.ux.names) == 1 && !a.m.Spectator, a.m.MenuOpen, a.cfg.Autoplay) {
			a.handle(scene.Event{Kind: scene.EvMenu}) // a lone player's game pauses when the window loses focus
			a.pauseSel = 0
		}
		a.wasFocused = focused
	}
	var b game.Buttons
	switch {
	case chatKeys && !a.cfg.Autoplay:
		a.pads = ebiten.AppendGamepadIDs(a.pads[:0])
		b = a.gateFire(l, gameButtons(steerWhileTyping(a.pads))) // arrows steer; typing never fires
	case a.m.MenuOpen:
		if menuPressed {
			break // the press that opened the menu chooses nothing in it (a pad's Start is also confirm)
		}
		if a.updatePause() {
			return
		}
	case a.cfg.Autoplay:
		a.autoBtns = 0
		l.Frame(a.autoFn)
		b = a.autoBtns
	default:
		b = a.gateFire(l, gameButtons(controls.Buttons(pressedFunc(a.h))))
	}
	if a.m.MenuOpen {
		a.fire.Poll(false, a.draws, time.Since(a.epoch))
	}
	l.SetInput(b)
	if lw, ok := l.(*netflow.LocalWorld); ok && lw.Step != nil {
		lw.Step(lw)
	}
}

// draw draws the in-game menu when it is open, then the chat over the world and the HUD.
func (playingScreen) draw(a *app, dst surface) {
	if a.m.MenuOpen {
		a.drawPause(dst)
	}
	a.drawChatOverlay(dst)
}

// canRetry reports whether the game can be retried from the pause menu: a solo game (one
// player, not a spectator) on a lobby server, practice included (the server refuses others).
func (a *app) canRetry() bool {
	return a.cfg.local == nil && !a.m.Spectator && len(a.ux.names) == 1
}

// pauseMenu is the in-game menu and what each item does: Retry only in a solo game.
func (a *app) pauseMenu() ([]string, []pauseChoice) {
	if a.canRetry() {
		return []string{"Resume", "Retry", "Leave game"}, []pauseChoice{pauseResume, pauseRetry, pauseLeave}
	}
	return []string{"Resume", "Leave game"}, []pauseChoice{pauseResume, pauseLeave}
}

// retryWhat says what the pause menu's Retry starts again: the arcade run from its first
// stage, the practice section, or the stage.
func (a *app) retryWhat() string {
	switch {
	case a.net.Stage() == stagefile.Arcade:
		return "Retry starts the arcade run again from its first stage"
	case a.net.Section() > 0:
		return "Retry starts the practice section again"
	}
	return "Retry starts the stage again"
}

// pauseChoose does what the in-game menu's item c says; it reports whether the player left
// the game (Retry leaves it for the room, which starts the next one).
func (a *app) pauseChoose(c pauseChoice) (left bool) {
	switch c {
	case pauseRetry:
		a.handle(scene.Event{Kind: scene.EvRetry})
		return a.m.Scene != scene.Playing
	case pauseLeave:
		a.handle(scene.Event{Kind: scene.EvLeaveGame})
		return true
	}
	a.handle(scene.Event{Kind: scene.EvMenu}) // resume
	return false
}

// updatePause is a frame of the in-game menu (Resume, Retry, Leave game); it reports whether
// the player left the game.
func (a *app) updatePause() (left bool) {
	items, choices := a.pauseMenu()
	a.pauseSel = min(a.pauseSel, len(items)-1)
	n := len(items)
	if a.h.ActionIsJustPressed(input.Action(controls.Up)) {
		a.pauseSel = (a.pauseSel + n - 1) % n
	}
	if a.h.ActionIsJustPressed(input.Action(controls.Down)) {
		a.pauseSel = (a.pauseSel + 1) % n
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyEnter) || a.h.ActionIsJustPressed(input.Action(controls.Confirm)) {
		return a.pauseChoose(choices[a.pauseSel])
	}
	return false
}

// drawPause draws the pause menu (the world under it is dimmed by drawWorld).
func (a *app) drawPause(dst surface) {
	u := a.ui
	u.text(dst, scene.MenuTitle(a.draw.paused), u.big, Width/2, 380, alignCenter, white)
	sub := "the game keeps running for the other players"
	if a.draw.paused {
		sub = "the game is paused until you resume"
	}
	u.text(dst, sub, u.small, Width/2, 470, alignCenter, color.RGBA{180, 180, 200, 255})
	items, choices := a.pauseMenu()
	u.menu(dst, items, a.pauseSel, Width/2, 540)
	if choices[a.pauseSel] == pauseRetry {
		a.plate(dst, a.retryWhat(), u.small, 540+float64(len(items))*56+24, u.itemCol)
	}
}
