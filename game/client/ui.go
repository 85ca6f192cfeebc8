package client

import (
	"image/color"
	"math"
	"strings"
	"sync"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"
	input "github.com/quasilyte/ebitengine-input"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/controls"
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

// spinner is the "busy" label with an animation ("Connecting" + rotating dots).
func spinner(label string, frame int) string {
	return label + strings.Repeat(".", 1+(frame/15)%3) + strings.Repeat(" ", 2-(frame/15)%3)
}

func (a *app) justPressed(act controls.Action) bool {
	return a.h.ActionIsJustPressed(input.Action(act))
}

// leftRight is -1 when Left was just pressed, 1 for Right (Left first), else 0.
func (a *app) leftRight() int {
	switch {
	case a.justPressed(controls.Left):
		return -1
	case a.justPressed(controls.Right):
		return 1
	}
	return 0
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
