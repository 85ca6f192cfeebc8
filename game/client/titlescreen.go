package client

import (
	"image/color"
	"math"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/scene"
)

// titleScreen is the main menu (scene.Title) over the logo and a formation of the game's
// sprites: Rejoin while a lost game keeps the slot, Play, Replays, Hall of fame, How to play,
// Settings, Quit.
type titleScreen struct{ titleMusic }

func init() { register(scene.Title, titleScreen{}) }

func (titleScreen) update(a *app, _ frame) {
	items := a.titleItems()
	a.menu = min(a.menu, len(items)-1) // the Rejoin item goes when the ticket expires
	a.nav(len(items), false)
	if a.confirm(false) {
		sel := a.menu
		if a.rejoinItem() != "" { // Rejoin first
			if sel == 0 {
				a.rejoin()
				return
			}
			sel--
		}
		switch sel {
		case 0:
			a.handle(scene.Event{Kind: scene.EvPlay})
		case 1:
			a.handle(scene.Event{Kind: scene.EvOpenReplays})
		case 2:
			a.handle(scene.Event{Kind: scene.EvOpenHall})
		case 3:
			a.handle(scene.Event{Kind: scene.EvOpenControls})
		case 4:
			a.rebind = -1
			a.handle(scene.Event{Kind: scene.EvOpenSettings})
		case 5:
			a.handle(scene.Event{Kind: scene.EvQuit})
		}
	}
}

func (titleScreen) draw(a *app, dst surface) {
	u := a.ui
	cx := float64(Width / 2)
	a.drawTitleArt(dst)
	u.text(dst, "NETWORKED  CO-OP  FOR  FOUR", u.normal, cx, 372, alignCenter, color.RGBA{150, 200, 255, 255})
	items := a.titleItems()
	u.menu(dst, items, a.menu, cx, float64(720-56*(len(items)-4)))
	u.help(dst, a.titleHelp())
	if a.msgUntil > 0 && a.msg != "" {
		u.text(dst, a.msg, u.small, cx, 940, alignCenter, u.errorCol)
	}
}

// drawTitleArt draws the title screen's logo over a formation of the game's sprites.
func (a *app) drawTitleArt(dst surface) {
	sp := a.ui.sp
	t := a.clock()
	lb := sp.logo.Bounds()
	p := a.ui.on(dst)
	p.tinted(sp.glow, Width/2, 230, float32(lb.Dx())*6, 300, color.RGBA{40, 90, 200, 255}, 0.35, true)
	p.frame(sp.logo, Width/2, 230, 5, 5, 1, 0)
	bob := float32(math.Sin(float64(t)/30)) * 10
	p.frame(sp.flame[(t/3)%len(sp.flame)], 500-72-16, 560+bob+2, 4, 4, 1, 0)
	p.frame(sp.anim(game.KindPlayer, 0)[2+int(math.Round(math.Cos(float64(t)/30)))], 500, 560+bob, 4, 4, 1, 0)
	p.frame(sp.anim(game.KindForce, 3)[(t/5)%4], 640, 560+bob, 4, 4, 1, 0)
	sine, straight := sp.anim(game.KindEnemy, game.EnemySine), sp.anim(game.KindEnemy, game.EnemyStraight)
	for i := 0; i < 3; i++ {
		y := 500 + float32(i)*80 + float32(math.Sin(float64(t)/20+float64(i)))*20
		p.frame(sine[(t/3+i)%len(sine)], 1300+float32(i)*110, y, 4, 4, 1, 0)
	}
	p.frame(straight[(t/7)%len(straight)], 1620, 620, 4, 4, 1, 0)
}
