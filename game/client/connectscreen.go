package client

import (
	"strconv"
	"strings"

	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/client/settings"
)

// connectScreen (scene.Connect) has the lobby server's address and the player's name typed in
// two fields; Enter connects.
type connectScreen struct{ titleMusic }

func init() { register(scene.Connect, connectScreen{}) }

func (connectScreen) update(a *app, _ frame) {
	m := a.m
	a.nav(2, true)
	if a.menu == 0 {
		a.addr.update()
	} else {
		a.name.update()
	}
	if a.back(true) {
		a.handle(scene.Event{Kind: scene.EvBack})
	} else if a.confirm(true) && m.Busy == "" {
		addr := strings.TrimSpace(a.addr.Text)
		if !strings.Contains(addr, ":") {
			addr += ":" + strconv.Itoa(settings.DefaultPort)
			a.addr.Text = addr
		}
		if !settings.ValidName(a.name.Text) {
			m.Error = "name: 1 to 16 letters, digits, _ or -"
			return
		}
		a.net.SetName(a.name.Text)
		a.handle(scene.Event{Kind: scene.EvSubmitAddr, Addr: addr})
	}
}

func (connectScreen) draw(a *app, dst surface) {
	u := a.ui
	cx := float64(Width / 2)
	u.text(dst, "CONNECT", u.big, cx, 200, alignCenter, white)
	fields := []struct{ label, val string }{{"Server (host:port)", a.addr.Text}, {"Name", a.name.Text}}
	for i, f := range fields {
		y := 380 + float64(i)*150
		col := u.itemCol
		if i == a.menu {
			col = u.selCol
		}
		u.text(dst, f.label, u.small, cx-400, y, alignStart, u.dimCol)
		u.on(dst).strokeRect(float32(cx-400), float32(y+36), 800, 64, 2, col)
		cursor := ""
		if i == a.menu && a.caretOn() {
			cursor = "_"
		}
		u.text(dst, f.val+cursor, u.normal, cx-384, y+48, alignStart, col)
	}
	a.drawStatus(dst, 760)
	u.help(dst, "Enter connect · Up/Down/Tab switch field · Esc back")
}
