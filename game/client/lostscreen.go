package client

import (
	"fmt"
	"time"

	"github.com/rtype/rtype/game/client/scene"
)

// lostScreen (scene.Lost) says why the connection ended, in player words and small print;
// Rejoin while the ticket keeps the slot, or back to the menu. The music stops.
type lostScreen struct{}

func (lostScreen) enter(a *app) { a.snd.StopMusic() }

func (lostScreen) update(a *app, _ frame) {
	items := a.lostItems()
	a.menu = min(a.menu, len(items)-1)
	a.nav(len(items), false)
	switch {
	case a.back(false):
		a.handle(scene.Event{Kind: scene.EvContinue})
	case a.confirm(false):
		if len(items) == 2 && a.menu == 0 {
			a.rejoin()
		} else {
			a.handle(scene.Event{Kind: scene.EvContinue})
		}
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
	items := a.lostItems()
	u.menu(dst, items, a.menu, cx, max(640, y+60))
	if len(items) == 2 {
		left := time.Until(a.ux.ticket.Expires).Round(time.Second)
		u.text(dst, fmt.Sprintf("your ship is kept for %d s more", int(left/time.Second)), u.small, cx, max(640, y+60)+130, alignCenter, u.dimCol)
	}
	u.help(dst, "Enter select · Esc back to the menu")
}
