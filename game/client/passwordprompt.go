package client

import (
	"image/color"
	"strings"

	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/lobby"
)

// passwordPrompt is the password field the Connect and Browser screens show while the scene
// machine asks for a private server's or lobby's password (scene.Machine.Ask, scene
// password.go): typed hidden, Enter sends it, Esc gives up.
type passwordPrompt struct{ field textField }

// allowPassword is a character a password may hold (lobby.PasswordRule).
func allowPassword(r rune) bool { return r < 128 && lobby.ValidPassword(string(r)) }

// passwordUpdate takes the screen's input while a password is asked, and reports whether it
// did (the screen then reads no other input this frame).
func (a *app) passwordUpdate() bool {
	f := &a.pw.field
	if a.m.Ask == lobby.AskNone {
		f.Text = "" // each prompt starts empty (a wrong password is typed again)
		return false
	}
	if f.Max == 0 {
		f.Max, f.Allow = 64, allowPassword
	}
	f.update()
	switch {
	case a.back(true):
		a.handle(scene.Event{Kind: scene.EvCancelPassword})
	case a.confirm(true) && a.m.Busy == "":
		a.handle(scene.Event{Kind: scene.EvSubmitPassword, Password: f.Text})
	}
	return true
}

var passwordPanelCol = color.RGBA{0, 0, 16, 255} // opaque: the screen's own fields and status are not read through it

// drawPasswordPrompt draws the prompt over the screen while a password is asked: what is
// asked (or that the last one was wrong), the field with a dot per character, the keys.
func (a *app) drawPasswordPrompt(dst surface) {
	if a.m.Ask == lobby.AskNone {
		return
	}
	u := a.ui
	p := u.on(dst)
	cx := float64(Width / 2)
	p.rect(Width/2-560, 300, 1120, 520, passwordPanelCol)
	p.strokeRect(Width/2-560, 300, 1120, 520, 2, u.selCol)
	u.text(dst, "PASSWORD", u.big, cx, 340, alignCenter, white)
	col := u.dimCol
	if a.m.Ask == lobby.AskServerAgain || a.m.Ask == lobby.AskLobbyAgain || strings.HasPrefix(a.m.Error, "A password is") {
		col = u.errorCol
	}
	a.drawWrapped(dst, a.m.Error, u.small, cx, 450, 1000, col)
	u.on(dst).strokeRect(float32(cx-400), 560, 800, 64, 2, u.selCol)
	shown := strings.Repeat("*", len(a.pw.field.Text))
	if a.caretOn() {
		shown += "_"
	}
	u.text(dst, shown, u.normal, cx-384, 572, alignStart, u.selCol)
	u.text(dst, "Enter send · Esc cancel", u.small, cx, 700, alignCenter, u.dimCol)
}
