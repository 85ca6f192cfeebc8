package client

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
	input "github.com/quasilyte/ebitengine-input"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/art"
	"github.com/rtype/rtype/game/client/controls"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/client/settings"
	"github.com/rtype/rtype/game/client/synth"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
)

type align int

const (
	alignStart align = iota
	alignCenter
	alignEnd
)

// ui holds the fonts, the sprites and the view of the screen being drawn. Every UI helper
// (text, textWidth, on(dst).rect / strokeRect / frame / tinted) takes virtual px of the
// 1920×1080 playfield and maps them through xf, so a screen is laid out once for every window
// size; dst is a surface (the screen), so draw through these helpers, not package vector.
type ui struct {
	sp                                *sprites
	font                              *pixFont
	small, normal, big, title, mono   *face
	selCol, itemCol, dimCol, errorCol color.RGBA
	xf                                xf // virtual px → px of the image being drawn (set by Draw)
}

var (
	uiOnce sync.Once
	theUI  *ui
)

// sharedUI returns the fonts and sprites, built once per process (they only depend on code).
func sharedUI() *ui {
	uiOnce.Do(func() { theUI = newUI() })
	return theUI
}

func newUI() *ui {
	sp := newSprites()
	whitePx = sp.white
	return &ui{
		sp:     sp,
		font:   newPixFont(sp.sub, sp.glyphs),
		small:  &face{Scale: 3},             // 21 px caps: help lines, labels, notices
		normal: &face{Scale: 4},             // 28 px caps: menu items, HUD scores
		big:    &face{Scale: 8},             // 56 px caps: screen titles
		title:  &face{Scale: 16},            // 112 px caps
		mono:   &face{Scale: 3, Mono: true}, // tables (F3 overlay, bindings)
		selCol: color.RGBA{255, 220, 80, 255}, itemCol: color.RGBA{210, 215, 235, 255},
		dimCol: color.RGBA{130, 135, 160, 255}, errorCol: color.RGBA{255, 110, 110, 255},
		xf: xf{k: 1},
	}
}

// text draws s in the UI pixel font with its top at y, each line horizontally aligned at x
// (virtual px); any rune the font lacks is drawn as '?'.
func (u *ui) text(dst surface, s string, f *face, x, y float64, al align, col color.RGBA) {
	u.font.draw(dst, u.xf, s, f, float32(x), float32(y), al, col)
}

// textWidth is the width of the first line of s in virtual px (at the current view).
func (u *ui) textWidth(s string, f *face) float64 {
	return float64(float32(u.font.lineWidth(s, f)) * u.xf.pix(f.Scale) / u.xf.k)
}

// help draws a line of key help centred at the bottom of the screen, on a dark plate so it
// reads over the scenery.
func (u *ui) help(dst surface, s string) {
	w := float32(u.textWidth(s, u.small))
	u.on(dst).rect(Width/2-w/2-20, 1000, w+40, 42, helpPlateCol)
	u.text(dst, s, u.small, Width/2, 1010, alignCenter, helpCol)
}

var (
	helpPlateCol = color.RGBA{0, 0, 0, 140}
	helpCol      = color.RGBA{165, 172, 200, 255}
)

// clip shortens s with "…" to at most w virtual px wide in f.
func (u *ui) clip(s string, f *face, w float64) string {
	if u.textWidth(s, f) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && u.textWidth(string(r)+"…", f) > w {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// lineH is the distance between two lines of text in f, in virtual px.
func (u *ui) lineH(f *face) float64 { return float64(lineHeight * f.Scale) }

// on is a painter on dst through the current view (virtual px).
func (u *ui) on(dst surface) painter { return painter{dst, u.xf} }

// menu draws items centred at x from y, the selected one on a highlighted bar with the Force
// as the cursor.
func (u *ui) menu(dst surface, items []string, sel int, x, y float64) {
	half := float32(260) // half the bar's width: wider for a long item
	for _, it := range items {
		half = max(half, float32(u.textWidth(strings.ToUpper(it), u.normal))/2+90)
	}
	for i, it := range items {
		col := u.itemCol
		label := strings.ToUpper(it)
		iy := y + float64(i)*56
		if i == sel {
			col = u.selCol
			p := u.on(dst)
			p.rect(float32(x)-half, float32(iy-6), 2*half, 50, color.RGBA{20, 40, 90, 200})
			p.rect(float32(x)-half, float32(iy-6), 2*half, 3, color.RGBA{90, 160, 255, 255})
			p.rect(float32(x)-half, float32(iy+41), 2*half, 3, color.RGBA{40, 80, 160, 255})
			p.frame(u.sp.anim(game.KindForce, 1)[0], float32(x)-half+30, float32(iy+19), 2, 2, 1, 0)
		}
		u.text(dst, label, u.normal, x, iy, alignCenter, col)
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

// spinner is the "busy" label with an animation ("Connecting" + rotating dots).
func spinner(label string, frame int) string {
	return label + strings.Repeat(".", 1+(frame/15)%3) + strings.Repeat(" ", 2-(frame/15)%3)
}

func (a *app) justPressed(act controls.Action) bool {
	return a.h.ActionIsJustPressed(input.Action(act))
}

// nav moves the menu selection over n items (keyboard arrows/WASD or gamepad); typing
// restricts it to the arrow keys so letters go into a text field.
func (a *app) nav(n int, typing bool) {
	up, down := a.justPressed(controls.Up), a.justPressed(controls.Down)
	if typing {
		up, down = inpututil.IsKeyJustPressed(ebiten.KeyArrowUp), inpututil.IsKeyJustPressed(ebiten.KeyArrowDown) || inpututil.IsKeyJustPressed(ebiten.KeyTab)
		up, down = up || padJustPressed(a.h, controls.Up), down || padJustPressed(a.h, controls.Down)
	}
	if n <= 0 {
		return
	}
	if up {
		a.menu = (a.menu + n - 1) % n
	}
	if down {
		a.menu = (a.menu + 1) % n
	}
}

func (a *app) confirm(typing bool) bool {
	if typing {
		return inpututil.IsKeyJustPressed(ebiten.KeyEnter) || inpututil.IsKeyJustPressed(ebiten.KeyKPEnter) || padJustPressed(a.h, controls.Confirm)
	}
	return a.justPressed(controls.Confirm) || inpututil.IsKeyJustPressed(ebiten.KeyKPEnter)
}

func (a *app) back(typing bool) bool {
	if typing {
		return inpututil.IsKeyJustPressed(ebiten.KeyEscape) || padJustPressed(a.h, controls.Back)
	}
	return a.justPressed(controls.Back) || a.justPressed(controls.Menu)
}

// generalRows are the settings rows before the bindings: fullscreen, music, effects, the
// colour-blind palette and reduced flashing.
const generalRows = 5

// settings rows: the general rows, then keyboard and gamepad bindings, reset, back.
func settingsRows() int { return generalRows + 2*int(controls.NumActions) + 2 }

func (a *app) updateMenus() {
	m := a.m
	switch m.Scene {
	case scene.Title:
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
	case scene.Controls:
		if a.back(false) || a.confirm(false) {
			a.handle(scene.Event{Kind: scene.EvBack})
		}
	case scene.Replays:
		a.updateReplays()
	case scene.HallOfFame:
		a.updateHall()
	case scene.Connect:
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
				addr += ":4242"
				a.addr.Text = addr
			}
			if !settings.ValidName(a.name.Text) {
				m.Error = "name: 1 to 16 letters, digits, _ or -"
				return
			}
			a.net.SetName(a.name.Text)
			a.handle(scene.Event{Kind: scene.EvSubmitAddr, Addr: addr})
		}
	case scene.Browser:
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
	case scene.Room:
		if a.frameN-a.membersAt >= 20 || a.members == nil {
			_, a.members = a.net.Members()
			a.roomStage = a.net.Stage()
			a.roomLevel = a.net.Difficulty()
			a.roomSection = a.net.Section()
			a.membersAt = a.frameN
		}
		items := a.roomItems()
		onLevel := strings.HasPrefix(items[min(a.menu, len(items)-1)], difficultyItem)
		onSection := strings.HasPrefix(items[min(a.menu, len(items)-1)], sectionItem)
		if onSection && (a.justPressed(controls.Left) || a.justPressed(controls.Right)) {
			step := 1
			if a.justPressed(controls.Left) {
				step = -1
			}
			n := practiceSections(a.roomStage) + 1 // the start .. the boss
			a.handle(scene.Event{Kind: scene.EvSetSection, Section: (a.roomSection + step + n) % n})
			a.membersAt = a.frameN - 20 // show the SECTION push as soon as it arrives
			onLevel = false
		}
		// Left/Right: on the difficulty item the owner cycles the level (SET_DIFFICULTY), elsewhere
		// the lobby's stage through the offered ones (SET_STAGE; the server refuses others, and
		// the refusal is shown)
		if onSection {
			// Left/Right handled above
		} else if onLevel && (a.justPressed(controls.Left) || a.justPressed(controls.Right)) {
			step := 1
			if a.justPressed(controls.Left) {
				step = -1
			}
			a.handle(scene.Event{Kind: scene.EvSetDifficulty, Level: nextLevel(a.roomLevel, step).String()})
			a.membersAt = a.frameN - 20 // show the DIFFICULTY push as soon as it arrives
		} else if len(m.Stages) > 1 && (a.justPressed(controls.Left) || a.justPressed(controls.Right)) {
			i := 0
			for j, st := range m.Stages {
				if st == a.roomStage {
					i = j
				}
			}
			if a.justPressed(controls.Left) {
				i = (i + len(m.Stages) - 1) % len(m.Stages)
			} else {
				i = (i + 1) % len(m.Stages)
			}
			a.handle(scene.Event{Kind: scene.EvSetStage, Stage: m.Stages[i]})
			a.membersAt = a.frameN - 20 // show the STAGE push as soon as it arrives
		}
		a.nav(len(items), false)
		if a.back(false) {
			a.handle(scene.Event{Kind: scene.EvBack})
		} else if a.confirm(false) {
			switch sel := items[min(a.menu, len(items)-1)]; {
			case sel == "Start":
				a.handle(scene.Event{Kind: scene.EvStart})
			case strings.HasPrefix(sel, difficultyItem):
				a.handle(scene.Event{Kind: scene.EvSetDifficulty, Level: nextLevel(a.roomLevel, 1).String()})
				a.membersAt = a.frameN - 20
			case strings.HasPrefix(sel, sectionItem):
				a.handle(scene.Event{Kind: scene.EvSetSection, Section: (a.roomSection + 1) % (practiceSections(a.roomStage) + 1)})
				a.membersAt = a.frameN - 20
			default:
				a.handle(scene.Event{Kind: scene.EvBack})
			}
		}
	case scene.Results:
		if a.confirm(false) || a.back(false) {
			a.handle(scene.Event{Kind: scene.EvContinue})
		}
	case scene.Lost:
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
	case scene.Settings:
		a.updateSettings()
	}
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

func (a *app) updateSettings() {
	if a.rebind >= 0 {
		a.updateRebind()
		return
	}
	rows := settingsRows()
	a.nav(rows, false)
	left, right := a.justPressed(controls.Left), a.justPressed(controls.Right)
	step := 0.0
	if left {
		step = -0.1
	} else if right {
		step = 0.1
	}
	clamp := func(v float64) float64 { return math.Round(math.Max(0, math.Min(1, v))*10) / 10 }
	switch {
	case a.menu == 1 && step != 0:
		a.set.MusicVolume = clamp(a.set.MusicVolume + step)
		a.snd.SetVolumes(a.set.MusicVolume, a.set.EffectsVolume)
	case a.menu == 2 && step != 0:
		a.set.EffectsVolume = clamp(a.set.EffectsVolume + step)
		a.snd.SetVolumes(a.set.MusicVolume, a.set.EffectsVolume)
		a.snd.Play(synth.Shot)
	}
	if a.back(false) {
		a.applyBindings()
		a.handle(scene.Event{Kind: scene.EvBack})
		return
	}
	if !a.confirm(false) {
		return
	}
	switch {
	case a.menu == 0:
		a.set.Fullscreen = !a.set.Fullscreen
		ebiten.SetFullscreen(a.set.Fullscreen)
	case a.menu == 3:
		a.set.ColourBlind = !a.set.ColourBlind
	case a.menu == 4:
		a.set.ReducedFlash = !a.set.ReducedFlash
	case a.menu >= generalRows && a.menu < rows-2:
		a.rebind = a.menu
		a.scanner = input.NewKeyScanner(a.h)
	case a.menu == rows-2:
		d := settings.Default()
		a.set.Keyboard, a.set.Gamepad = d.Keyboard, d.Gamepad
		a.applyBindings()
	case a.menu == rows-1:
		a.applyBindings()
		a.handle(scene.Event{Kind: scene.EvBack})
	}
}

// bindingRow returns the action and whether the row is a gamepad binding.
func bindingRow(row int) (controls.Action, bool) {
	i := row - generalRows
	n := int(controls.NumActions)
	return controls.Action(i % n), i >= n
}

// updateRebind waits for a key (keyboard rows) or a gamepad button (gamepad rows) and makes it
// the action's first binding; Esc cancels.
func (a *app) updateRebind() {
	act, pad := bindingRow(a.rebind)
	set := func(name string) {
		b := a.set.Keyboard
		if pad {
			b = a.set.Gamepad
		}
		b.Rebind(act, name)
		a.rebind = -1
		a.applyBindings()
	}
	if pad {
		if inpututil.IsKeyJustPressed(ebiten.KeyEscape) {
			a.rebind = -1
			return
		}
		if name, ok := a.scanPadButton(); ok {
			set(name)
		}
		return
	}
	if padJustPressed(a.h, controls.Back) { // a pad cancels a keyboard row (it cannot type a key)
		a.rebind = -1
		return
	}
	k, status := a.scanner.Scan()
	if status == input.KeyScanCompleted {
		if k.String() == "escape" && act != controls.Menu && act != controls.Back {
			a.rebind = -1
			return
		}
		set(k.String())
	}
}

func (a *app) applyBindings() {
	km, msgs := buildKeymap(a.set)
	for _, m := range msgs {
		a.log.Warn("settings: " + m)
	}
	a.keys = km
	a.h.Remap(km)
}

func (a *app) drawMenus(dst surface) {
	u := a.ui
	m := a.m
	cx := float64(Width / 2)
	switch m.Scene {
	case scene.Title:
		a.drawTitleArt(dst)
		u.text(dst, "NETWORKED  CO-OP  FOR  FOUR", u.normal, cx, 372, alignCenter, color.RGBA{150, 200, 255, 255})
		items := a.titleItems()
		u.menu(dst, items, a.menu, cx, float64(720-56*(len(items)-4)))
		u.help(dst, a.titleHelp())
		if a.msgUntil > 0 && a.msg != "" {
			u.text(dst, a.msg, u.small, cx, 940, alignCenter, u.errorCol)
		}
	case scene.Connect:
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
	case scene.Browser:
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
	case scene.Room:
		u.text(dst, "LOBBY "+m.Code, u.big, cx, 120, alignCenter, white)
		stage := game.StageTitle(a.roomStage)
		if stage == "" {
			stage = "?"
		}
		u.text(dst, "give this code to your friends", u.small, cx, 200, alignCenter, u.dimCol)
		if len(m.Stages) > 1 {
			stage = "<  " + stage + "  >"
		}
		u.text(dst, "Stage  "+stage+"   ·   "+a.roomLevel.Rules().Title, u.normal, cx, 246, alignCenter, u.itemCol)
		hint := "T chat · Enter select · Esc leave"
		if len(m.Stages) > 1 {
			hint = "Left/Right: the stage, or on Difficulty and Start at their choice (owner) · " + hint
		}
		u.help(dst, hint)
		for i := 0; i < rules.MaxPlayers; i++ {
			y := 320 + float64(i)*70
			name, col := "- free -", u.dimCol
			if i < len(a.members) {
				name, col = a.members[i], art.SlotColors[i]
				u.on(dst).frame(u.sp.anim(game.KindPlayer, uint8(i))[2], float32(cx-620), float32(y+20), 2, 2, 1, 0)
				if i == 0 {
					name += "  (owner)"
				}
				if a.members[i] == a.net.Name() {
					name = "> " + name + "  (you)" // your own row
				}
			}
			u.text(dst, fmt.Sprintf("%dP  %s", i+1, name), u.normal, cx-560, y, alignStart, col)
		}
		u.menu(dst, a.roomItems(), a.menu, cx-260, 660)
		if !a.isOwner() && len(a.members) > 0 {
			u.text(dst, "waiting for "+a.members[0]+" to start", u.small, cx-260, 610, alignCenter, u.dimCol)
		}
		a.drawStatus(dst, 820)
		a.drawChatPanel(dst, cx+300, 300, 620, 600)
	case scene.Results:
		title, col := "MISSION FAILED", color.RGBA{255, 100, 100, 255}
		switch rules.Result(m.Result) {
		case rules.ResultVictory:
			title, col = "MISSION COMPLETE", color.RGBA{120, 255, 160, 255}
		case rules.ResultAborted:
			title, col = "GAME ABORTED", color.RGBA{255, 200, 120, 255}
		}
		u.text(dst, title, u.big, cx, 160, alignCenter, col)
		u.text(dst, game.StageTitle(a.ux.stage)+"  ·  "+a.ux.level.Rules().Title, u.small, cx, 250, alignCenter, u.dimCol)
		a.drawResultsTable(dst, 320)
		if m.Reason != "" { // the lobby went during the game (a server shutting down)
			a.drawWrapped(dst, m.Reason, u.normal, cx, 760, 1500, u.errorCol)
			u.help(dst, "Enter: back to the title")
		} else {
			u.help(dst, "Enter: back to the lobby")
		}
	case scene.Lost:
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
	case scene.Settings:
		a.drawSettings(dst)
	case scene.Controls:
		a.drawControls(dst)
	case scene.Replays:
		a.drawReplays(dst)
	case scene.HallOfFame:
		a.drawHall(dst)
	}
}

// drawStatus shows the busy spinner or the last error at y.
func (a *app) drawStatus(dst surface, y float64) {
	u := a.ui
	if a.m.Busy != "" {
		u.text(dst, spinner(a.m.Busy, a.clock()), u.normal, Width/2, y, alignCenter, u.selCol)
		// orbiting dots
		for i := 0; i < 8; i++ {
			ang := float64(a.clock())/10 + float64(i)*math.Pi/4
			al := float32(i+1) / 8
			u.on(dst).tinted(u.sp.glow, float32(Width/2+math.Cos(ang)*30), float32(y+90+math.Sin(ang)*30), 18, 18, color.RGBA{255, 220, 80, 255}, al, false)
		}
	} else if a.m.Error != "" {
		y = a.drawWrapped(dst, a.m.Error, u.small, Width/2, y, 1400, u.errorCol)
		if a.m.Detail != "" && a.m.Detail != a.m.Error {
			a.drawWrapped(dst, a.m.Detail, u.mono, Width/2, y+6, 1400, u.dimCol)
		}
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func (a *app) drawSettings(dst surface) {
	u := a.ui
	u.text(dst, "SETTINGS", u.big, Width/2, 40, alignCenter, white)
	type row struct{ label, value string }
	badRows := map[int]bool{} // rows with a binding that could not be loaded
	rows := []row{
		{"Fullscreen: " + onOff(a.set.Fullscreen), ""},
		{fmt.Sprintf("Music volume: < %.0f%% >", a.set.MusicVolume*100), ""},
		{fmt.Sprintf("Effects volume: < %.0f%% >", a.set.EffectsVolume*100), ""},
		{"Colour-blind palette: " + onOff(a.set.ColourBlind), "crystal names, bullet rings"},
		{"Reduced flashing: " + onOff(a.set.ReducedFlash), "no blinking, soft hit flashes"},
	}
	for _, pad := range []bool{false, true} {
		for act := controls.Action(0); act < controls.NumActions; act++ {
			b, dev := a.set.Keyboard, "Key  "
			if pad {
				b, dev = a.set.Gamepad, "Pad  "
			}
			names := make([]string, len(b[act.String()]))
			bad := false
			for j, k := range b[act.String()] {
				names[j] = strings.TrimPrefix(k, "gamepad_") // the column says Pad already
				if !bindingLoaded(k) {
					names[j] += " (not loaded)"
					bad = true
				}
			}
			rows = append(rows, row{dev + act.Label(), strings.Join(names, ", ")})
			if bad {
				badRows[len(rows)-1] = true
			}
		}
	}
	rows = append(rows, row{"Reset bindings to defaults", ""}, row{"Back", ""})
	// two columns: general + keyboard on the left, gamepad on the right; label, then bindings
	n := int(controls.NumActions)
	for i, r := range rows {
		col := u.itemCol
		if i == a.menu {
			col = u.selCol
		}
		x, y := 100.0, 150+float64(i)*40
		if i >= generalRows+n && i < generalRows+2*n {
			x, y = 1000, 150+float64(i-n)*40
		} else if i >= generalRows+2*n {
			x, y = 100, 150+float64(i-n)*40
		}
		if i == a.menu && i == a.rebind {
			// the prompt replaces the row's value, kept inside its column (x .. x+880): it
			// never runs into the pad column
			_, pad := bindingRow(i)
			prompt := "press a key  (Esc cancels)"
			if pad {
				prompt = "press a button  (Esc cancels)"
			}
			u.text(dst, r.label, u.small, x, y, alignStart, col)
			u.on(dst).rect(float32(x+430), float32(y-6), 450, 34, color.RGBA{60, 50, 10, 230})
			u.text(dst, prompt, u.small, x+440, y, alignStart, col)
			continue
		}
		if badRows[i] {
			col = u.errorCol
		}
		u.text(dst, r.label, u.small, x, y, alignStart, col)
		if r.value != "" {
			u.text(dst, u.clip(r.value, u.small, 440), u.small, x+440, y, alignStart, col) // kept in its column
		}
	}
	u.help(dst, "Enter toggle/rebind · Left/Right volume · Esc save and back")
}

// isOwner reports whether this player owns the lobby (the first member): only the owner starts
// the game (docs/PROTOCOL.md §2.4.4).
func (a *app) isOwner() bool { return len(a.members) > 0 && a.members[0] == a.net.Name() }

// roomItems is the lobby room's menu: Start and the difficulty choice only for the owner, and
// for the owner of a solo lobby of a stage with sections the practice start (SET_SECTION).
func (a *app) roomItems() []string {
	if !a.isOwner() {
		return []string{"Leave"}
	}
	items := []string{"Start", difficultyItem + "  < " + a.roomLevel.Rules().Title + " >"}
	if len(a.members) == 1 && practiceSections(a.roomStage) > 0 {
		items = append(items, sectionItem+"  < "+sectionLabel(a.roomSection, practiceSections(a.roomStage))+" >")
	}
	return append(items, "Leave")
}

// sectionItem starts the room menu's practice item (Left/Right on it change where the game
// starts: the stage's start, a later section or its boss).
const sectionItem = "Start at"

// practiceSections is the number of sections of the embedded stage name (its boss is section
// that number: Stage.PracticeBoss), 0 for a stage the client does not hold or an arcade run.
func practiceSections(name string) int {
	if name == "" || name == stagefile.Arcade {
		return 0
	}
	if n, ok := sectionsOf.Load(name); ok {
		return n.(int)
	}
	n := 0
	if f, err := stagefile.Embedded(name, game.ParseScript); err == nil {
		n = f.Script.PracticeBoss()
	}
	sectionsOf.Store(name, n)
	return n
}

// sectionsOf caches practiceSections by stage name: the lobby room asks every frame, and an
// embedded stage file does not change (parsing it takes about 0.1 ms).
var sectionsOf sync.Map

// sectionLabel names practice section s of a stage of n sections for the room menu.
func sectionLabel(s, n int) string {
	switch {
	case s <= 0:
		return "the start"
	case s >= n:
		return "the boss (practice)"
	}
	return fmt.Sprintf("section %d (practice)", s+1)
}

// difficultyItem starts the room menu's difficulty item (Left/Right on it change the level).
const difficultyItem = "Difficulty"

// nextLevel is the level after (step 1) or before (step -1) d in rules.Difficulties.
func nextLevel(d rules.Difficulty, step int) rules.Difficulty {
	ls := rules.Difficulties[:]
	i := 0
	for j, l := range ls {
		if l == d {
			i = j
		}
	}
	return ls[(i+step+len(ls))%len(ls)]
}
