package client

import (
	"image/color"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/client/synth"
	"github.com/rtype/rtype/game/rules"
)

// resultsScreen (scene.Results) says how the game ended, with the results table; a victory's or
// a defeat's stinger plays when it is entered.
type resultsScreen struct{}

func init() { register(scene.Results, resultsScreen{}) }

func (resultsScreen) enter(a *app) {
	if a.m.Result == uint8(rules.ResultVictory) {
		a.snd.Stinger(synth.StingerVictory)
	} else {
		a.snd.Stinger(synth.StingerGameOver)
	}
}

func (resultsScreen) update(a *app, _ frame) {
	if a.confirm(false) || a.back(false) {
		a.handle(scene.Event{Kind: scene.EvContinue})
	}
}

func (resultsScreen) draw(a *app, dst surface) {
	u := a.ui
	m := a.m
	cx := float64(Width / 2)
	title, col := "MISSION FAILED", color.RGBA{255, 100, 100, 255}
	switch rules.Result(m.Result) {
	case rules.ResultVictory:
		title, col = "MISSION COMPLETE", color.RGBA{120, 255, 160, 255}
	case rules.ResultAborted:
		title, col = "GAME ABORTED", color.RGBA{255, 200, 120, 255}
	}
	u.text(dst, title, u.big, cx, 160, alignCenter, col)
	sub := game.StageTitle(a.ux.stage) + "  ·  " + a.ux.level.Rules().Title
	if a.ux.infinite {
		sub += "  ·  " + infiniteLives + ": practice, not in the hall of fame"
	}
	u.text(dst, sub, u.small, cx, 250, alignCenter, u.dimCol)
	a.drawResultsTable(dst, 320)
	if m.Reason != "" { // the lobby went during the game (a server shutting down)
		a.drawWrapped(dst, m.Reason, u.normal, cx, 760, 1500, u.errorCol)
		u.help(dst, "Enter: back to the title")
	} else {
		u.help(dst, "Enter: back to the lobby")
	}
}
