package client

import (
	"fmt"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/controls"
	"github.com/rtype/rtype/game/client/scene"
)

// browserScreen (scene.Browser) lists the server's lobbies: join one or by code, create one
// (Left/Right its stage), refresh, the Hall of fame.
type browserScreen struct{ titleMusic }

func init() { register(scene.Browser, browserScreen{}) }

func (browserScreen) update(a *app, _ frame) {
	m := a.m
	n := len(m.Lobbies)
	rows := n + 4 // lobbies, join-by-code, create, refresh, back
	typing := a.menu == n
	a.nav(rows, typing)
	typing = a.menu == n
	if typing {
		a.code.update()
		a.code.Text = strings.ToUpper(a.code.Text)
	}
	if a.back(typing) {
		a.handle(scene.Event{Kind: scene.EvBack})
		return
	}
	// F5 refreshes even while the join-code field has focus (R there is a letter of a code)
	if inpututil.IsKeyJustPressed(ebiten.KeyF5) || (!typing && inpututil.IsKeyJustPressed(ebiten.KeyR)) {
		a.handle(scene.Event{Kind: scene.EvRefresh})
	}
	if !typing && inpututil.IsKeyJustPressed(ebiten.KeyH) {
		a.handle(scene.Event{Kind: scene.EvOpenHall})
		return
	}
	// Left/Right choose the stage of the lobby to create (not while typing a code: A and D
	// are letters of codes)
	if !typing && len(m.Stages) > 0 {
		if a.justPressed(controls.Left) {
			a.stageSel = (a.stageSel + len(m.Stages) - 1) % len(m.Stages)
		}
		if a.justPressed(controls.Right) {
			a.stageSel = (a.stageSel + 1) % len(m.Stages)
		}
	}
	if a.confirm(typing) {
		switch {
		case a.menu < n:
			a.handle(scene.Event{Kind: scene.EvJoin, Code: m.Lobbies[a.menu].Code})
		case a.menu == n:
			if len(a.code.Text) > 0 {
				a.handle(scene.Event{Kind: scene.EvJoin, Code: a.code.Text})
			}
		case a.menu == n+1:
			a.handle(scene.Event{Kind: scene.EvCreate, Stage: a.createStage()})
		case a.menu == n+2:
			a.handle(scene.Event{Kind: scene.EvRefresh})
		default:
			a.handle(scene.Event{Kind: scene.EvBack})
		}
	}
}

func (browserScreen) draw(a *app, dst surface) {
	u := a.ui
	m := a.m
	cx := float64(Width / 2)
	u.text(dst, "LOBBIES", u.big, cx, 120, alignCenter, white)
	u.text(dst, "server "+m.Addr, u.small, cx, 210, alignCenter, u.dimCol)
	y := 280.0
	if len(m.Lobbies) == 0 && m.Busy == "" {
		u.text(dst, "no lobby yet: create one", u.small, cx, y, alignCenter, u.dimCol)
		y += 56
	}
	for i, l := range m.Lobbies {
		state := "waiting"
		if l.Running {
			state = "in game"
		}
		col := u.itemCol
		if i == a.menu {
			col = u.selCol
		}
		u.text(dst, fmt.Sprintf("%s   %d/4 players   %s   %s   %s", l.Code, l.Players, game.StageTitle(l.Stage), l.Difficulty.Rules().Title, state), u.normal, cx, y, alignCenter, col)
		y += 52
	}
	n := len(m.Lobbies)
	y += 20
	codeLabel := "Join by code: " + a.code.Text
	if a.menu == n && a.caretOn() {
		codeLabel += "_"
	}
	create := "Create lobby"
	if st := a.createStage(); st != "" {
		create = "Create lobby:  < " + game.StageTitle(st) + " >"
	}
	items := []string{codeLabel, create, "Refresh (F5)", "Back"}
	for i, it := range items {
		col := u.itemCol
		if a.menu == n+i {
			col = u.selCol
		}
		u.text(dst, it, u.normal, cx, y+float64(i)*56, alignCenter, col)
	}
	a.drawStatus(dst, y+260)
	u.help(dst, "Enter select · Left/Right stage of a new lobby · F5 refresh · H hall of fame · Esc back")
}

// createStage is the stage a lobby created from the browser plays: the one chosen with
// Left/Right among the offered stages ("" = the server's default when the list is unknown).
func (a *app) createStage() string {
	st := a.m.Stages
	if len(st) == 0 {
		return ""
	}
	return st[a.stageSel%len(st)]
}
