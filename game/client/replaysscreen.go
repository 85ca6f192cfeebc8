package client

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strings"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/replayfiles"
	"github.com/rtype/rtype/game/client/scene"
)

// replaysScreen (scene.Replays) lists the replays kept on this computer, newest first: Enter
// watches one.
type replaysScreen struct{}

func init() { register(scene.Replays, replaysScreen{}) }

// replayRows is how many rows of the Replays list are on screen at once.
const replayRows = 14

func (replaysScreen) update(a *app, _ frame) {
	rows := a.m.Replays
	if len(rows) > 0 {
		a.nav(len(rows), false)
	}
	if a.back(false) {
		a.handle(scene.Event{Kind: scene.EvBack})
		return
	}
	if a.confirm(false) && a.menu < len(rows) && rows[a.menu].Ticks > 0 {
		a.handle(scene.Event{Kind: scene.EvWatch, Path: rows[a.menu].Path})
	}
	// In the browser the replays live in the page's storage: D saves the selected one as a
	// file (the one the desktop client plays with -replay FILE).
	if replayfiles.InBrowser && inpututil.IsKeyJustPressed(ebiten.KeyD) && a.menu < len(rows) {
		if err := replayfiles.Download(rows[a.menu].Path); err != nil {
			a.log.Warn("replay not downloaded", "replay", rows[a.menu].Path, "err", err)
		}
	}
}

func (replaysScreen) draw(a *app, dst surface) {
	u := a.ui
	u.text(dst, "REPLAYS", u.big, Width/2, 40, alignCenter, white)
	rows := a.m.Replays
	if len(rows) == 0 && a.m.Busy == "" && replayfiles.InBrowser {
		a.drawWrapped(dst, "No replays yet. The games you play are kept in this browser (the page's storage, the newest 100); D saves one as a file the desktop client plays.", u.small, Width/2, 300, 1500, u.itemCol)
	} else if len(rows) == 0 && a.m.Busy == "" {
		y := a.drawWrapped(dst, "No replays yet. The games you play are kept here, in "+a.replayDir()+".", u.small, Width/2, 300, 1500, u.itemCol)
		a.drawWrapped(dst, "A replay a friend sent you plays with: rtype-client -replay FILE", u.small, Width/2, y+20, 1500, u.dimCol)
	}
	first := max(0, min(a.menu-replayRows/2, len(rows)-replayRows))
	if len(rows) > 0 {
		for _, h := range []struct {
			label string
			x     float64
			al    align
		}{{"played", 110, alignStart}, {"stage", 450, alignStart}, {"level", 800, alignStart}, {"players", 960, alignStart},
			{"result", 1400, alignStart}, {"score", 1660, alignEnd}, {"length", 1800, alignEnd}} {
			u.text(dst, h.label, u.small, h.x, 160, h.al, u.dimCol)
		}
	}
	for i := first; i < min(len(rows), first+replayRows); i++ {
		r := rows[i]
		y := 214 + float64(i-first)*54
		col := u.itemCol
		if i == a.menu {
			col = u.selCol
			u.on(dst).rect(80, float32(y-8), Width-160, 48, color.RGBA{20, 40, 90, 200})
		}
		when := "—"
		if r.Time > 0 {
			when = time.Unix(r.Time, 0).Local().Format("2006-01-02 15:04")
		}
		u.text(dst, when, u.small, 110, y, alignStart, col)
		if r.Ticks == 0 && len(r.Names) == 0 { // unreadable
			u.text(dst, u.clip(filepath.Base(r.Path)+": "+r.Stage, u.small, 1400), u.small, 450, y, alignStart, u.errorCol)
			continue
		}
		u.text(dst, u.clip(game.StageTitle(r.Stage), u.small, 330), u.small, 450, y, alignStart, col)
		u.text(dst, r.Difficulty.Rules().Title, u.small, 800, y, alignStart, col)
		u.text(dst, u.clip(strings.Join(r.Names, ", "), u.small, 420), u.small, 960, y, alignStart, col)
		u.text(dst, strings.ToUpper(r.Result.String()), u.small, 1400, y, alignStart, col)
		u.text(dst, fmt.Sprintf("%d", r.Score), u.small, 1660, y, alignEnd, col)
		u.text(dst, clock(r.Ticks), u.small, 1800, y, alignEnd, col)
	}
	a.drawStatus(dst, 900)
	if replayfiles.InBrowser {
		u.help(dst, "Enter watch · D download · Esc back")
	} else {
		u.help(dst, "Enter watch · Esc back")
	}
}
