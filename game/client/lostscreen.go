package client

import (
	"fmt"
	"time"

	"github.com/rtype/rtype/game/client/scene"
)

// lostScreen (scene.Lost) says why the connection ended, in player words and small print;
// Rejoin while the ticket keeps the slot and the lobby server answered its check, "Retry the
// connection" while it did not (the check's progress and answer shown), or back to the menu.
// The music stops.
type lostScreen struct{}

func init() { register(scene.Lost, lostScreen{}) }

func (lostScreen) enter(a *app) { a.snd.StopMusic() }

// lostMenu is the Lost screen's menu and what each item does: Rejoin only while the ticket is
// valid and the lobby answered the check (a rejoin of a server that is gone cannot work,
// issue 30); "Retry the connection" while the ticket is valid and it did not, or is being
// checked; then back to the menu.
func (a *app) lostMenu() ([]string, []lostChoice) {
	switch {
	case a.ticketValid() && a.m.LobbyAnswers:
		return []string{a.rejoinItem(), "Back to the menu"}, []lostChoice{lostRejoin, lostBack}
	case a.ticketValid():
		return []string{"Retry the connection", "Back to the menu"}, []lostChoice{lostRetry, lostBack}
	}
	return []string{"Back to the menu"}, []lostChoice{lostBack}
}

// lostChoose does what the Lost screen's item c says.
func (a *app) lostChoose(c lostChoice) {
	switch c {
	case lostRejoin:
		a.rejoin()
	case lostRetry:
		a.handle(scene.Event{Kind: scene.EvRetryConnect})
	default:
		a.handle(scene.Event{Kind: scene.EvContinue})
	}
}

func (lostScreen) update(a *app, _ frame) {
	items, choices := a.lostMenu()
	a.menu = min(a.menu, len(items)-1)
	a.nav(len(items), false)
	switch {
	case a.back(false):
		a.handle(scene.Event{Kind: scene.EvContinue})
	case a.confirm(false):
		a.lostChoose(choices[a.menu])
	}
}

func (lostScreen) draw(a *app, dst surface) {
	u := a.ui
	m := a.m
	cx := float64(Width / 2)
	u.text(dst, "CONNECTION LOST", u.big, cx, 260, alignCenter, u.errorCol)
	y := a.drawWrapped(dst, m.Reason, u.normal, cx, 400, 1500, u.itemCol)
	if m.Detail != "" && m.Detail != m.Reason {
		y = a.drawWrapped(dst, m.Detail, u.mono, cx, y+10, 1500, u.dimCol)
	}
	switch { // the check of the lobby server: under way, or its answer
	case m.Busy != "":
		u.text(dst, spinner(m.Busy, a.clock()), u.normal, cx, y+30, alignCenter, u.selCol)
		y += 30 + u.lineH(u.normal)
	case m.Error != "":
		y = a.drawWrapped(dst, m.Error, u.small, cx, y+30, 1500, u.errorCol)
	}
	items, choices := a.lostMenu()
	my := max(640, y+60)
	u.menu(dst, items, a.menu, cx, my)
	if a.ticketValid() {
		left := int(time.Until(a.ux.ticket.Expires).Round(time.Second) / time.Second)
		s := fmt.Sprintf("your ship is kept for %d s more", left)
		if choices[0] == lostRetry {
			s = fmt.Sprintf("if the server still runs, it keeps your ship for %d s more", left)
		}
		u.text(dst, s, u.small, cx, my+float64(len(items))*56+20, alignCenter, u.dimCol)
	}
	u.help(dst, "Enter select · Esc back to the menu")
}
