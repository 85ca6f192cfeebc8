package client

import (
	"fmt"
	"image/color"
	"slices"
	"strings"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby/scores"
)

// hallScreen (scene.HallOfFame) is the server's hall of fame: the best and the newest games,
// filtered by view, stage and player count, a page at a time; Enter watches a game whose replay
// the server keeps.
type hallScreen struct{}

func init() { register(scene.HallOfFame, hallScreen{}) }

// update is a frame of the Hall of fame: Up/Down move between the filters and the games,
// Left/Right change a filter (on the games: the page), Enter watches a game with a replay.
func (hallScreen) update(a *app, _ frame) {
	m := a.m
	rows := hallFilterRows + len(m.Games)
	a.nav(rows, false)
	if a.back(false) {
		a.handle(scene.Event{Kind: scene.EvBack})
		return
	}
	if step := a.leftRight(); step != 0 {
		h := m.Hall
		switch {
		case a.menu == 0:
			h.View = scene.HallView((int(h.View) + step + int(scene.NumHallViews)) % int(scene.NumHallViews))
			h.Page = 0
		case a.menu == 1:
			h.Stage, h.Page = stepIn(hallStages(), h.Stage, step), 0
		case a.menu == 2:
			h.Players, h.Page = stepIn([]int{0, 1, 2, 3, 4}, h.Players, step), 0
		default: // the page
			if step > 0 && len(m.Games) < scores.PageSize {
				return // the last page
			}
			h.Page = max(0, h.Page+step)
		}
		if h != m.Hall {
			a.handle(scene.Event{Kind: scene.EvHallQuery, Hall: h})
		}
		return
	}
	if a.confirm(false) && a.menu >= hallFilterRows {
		g := m.Games[a.menu-hallFilterRows].Game
		if g.ReplayBytes > 0 {
			a.handle(scene.Event{Kind: scene.EvWatchGame, Code: g.ID.String()})
		} else {
			a.msg, a.msgUntil = "No replay of this game is kept on the server.", 180
		}
	}
}

// draw draws the Hall of fame: its filters, then a page of games (rank, score, players,
// stage, level, result, length, date; "watch" where a replay is kept).
func (hallScreen) draw(a *app, dst surface) {
	u := a.ui
	m := a.m
	u.text(dst, "HALL OF FAME", u.big, Width/2, 40, alignCenter, white)
	u.text(dst, "server "+m.Addr, u.small, Width/2, 130, alignCenter, u.dimCol)
	stage, players := "every stage", "any number of players"
	if m.Hall.Stage != "" {
		stage = game.StageTitle(m.Hall.Stage)
	}
	if m.Hall.Players > 0 {
		players = fmt.Sprintf("%d player", m.Hall.Players)
		if m.Hall.Players > 1 {
			players += "s"
		}
	}
	filters := []string{m.Hall.View.String(), stage, players}
	for i, f := range filters {
		col := u.itemCol
		if i == a.menu {
			col = u.selCol
		}
		u.text(dst, "< "+f+" >", u.normal, Width/2, 190+float64(i)*56, alignCenter, col)
	}
	y0 := 190 + float64(hallFilterRows)*56 + 70
	if len(m.Games) > 0 {
		for _, h := range []struct {
			label string
			x     float64
			al    align
		}{{"#", 140, alignEnd}, {"score", 370, alignEnd}, {"players", 410, alignStart}, {"stage", 960, alignStart},
			{"level", 1340, alignStart}, {"result", 1490, alignStart}, {"length", 1720, alignEnd}} {
			u.text(dst, h.label, u.small, h.x, y0-50, h.al, u.dimCol)
		}
	}
	if len(m.Games) == 0 && m.Busy == "" && m.Error == "" {
		u.text(dst, "no games kept yet", u.small, Width/2, y0+20, alignCenter, u.dimCol)
	}
	for i, e := range m.Games {
		g := e.Game
		y := y0 + float64(i)*50
		col := u.itemCol
		if hallFilterRows+i == a.menu {
			col = u.selCol
			u.on(dst).rect(60, float32(y-8), Width-120, 46, color.RGBA{20, 40, 90, 200})
		}
		names := make([]string, len(g.Slots))
		for j, s := range g.Slots {
			names[j] = s.Name
			if s.Continued {
				names[j] += " (C)"
			}
		}
		u.text(dst, fmt.Sprintf("%d.", e.Rank), u.small, 140, y, alignEnd, col)
		u.text(dst, fmt.Sprintf("%d", g.Score()), u.small, 370, y, alignEnd, col)
		u.text(dst, u.clip(strings.Join(names, ", "), u.small, 520), u.small, 410, y, alignStart, col)
		u.text(dst, u.clip(game.StageTitle(g.Stage), u.small, 360), u.small, 960, y, alignStart, col)
		u.text(dst, g.Difficulty.Rules().Title, u.small, 1340, y, alignStart, col)
		u.text(dst, strings.ToUpper(g.Result.String()), u.small, 1490, y, alignStart, col)
		u.text(dst, clock(int(g.Ticks)), u.small, 1720, y, alignEnd, col)
		if g.ReplayBytes > 0 {
			u.text(dst, "watch", u.small, 1760, y, alignStart, u.dimCol)
		}
	}
	a.drawStatus(dst, 900)
	if a.msgUntil > 0 && a.msg != "" {
		u.text(dst, a.msg, u.small, Width/2, 960, alignCenter, u.errorCol)
	}
	u.help(dst, "Left/Right change · Enter watch · Esc back")
}

// hallFilterRows are the Hall of fame's filter rows above its games: the view, the stage, the
// player count.
const hallFilterRows = 3

// hallStages are the stage filter's choices: every stage, the embedded stages, then the arcade
// run's board.
func hallStages() []string {
	return append(append([]string{""}, stagefile.EmbeddedNames()...), stagefile.Arcade)
}

// stepIn returns the choice after (step 1) or before (-1) cur in list (wrapping).
func stepIn[T comparable](list []T, cur T, step int) T {
	i := max(slices.Index(list, cur), 0)
	return list[(i+step+len(list))%len(list)]
}
