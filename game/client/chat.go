package client

import (
	"time"

	"image/color"
	"strings"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/rtype/rtype/game/client/art"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/lobby"
)

// Chat, broadcasts and text wrapping (issue 13): the lobby room's chat panel, the in-game chat
// overlay, the operator's broadcast banner. T (or Enter in game) opens the text field; while it
// is open every key goes to it but the arrow keys and d-pads, which still steer the ship
// (steerWhileTyping); the ship does not fire and the menus do not move.

const (
	chatKeep        = 50               // lines kept
	chatShowInGame  = 6                // lines shown over the game
	chatFadeTicks   = 10 * 60          // an in-game line stays this long (60 Hz ticks) unless the field is open
	bannerShown     = 10 * time.Second // a broadcast banner stays this long
	chatPanelWidth  = 760.0            // px
	chatFieldPrompt = "Say: "          // in front of the text being typed
	chatHelp        = "T: chat "       // key hint
)

type chatLine struct {
	from      string // player name; "" for a broadcast or a local notice
	text      string
	broadcast bool
	at        int // frameN received
}

// chatBox is the client's chat state (owned by the UI goroutine).
type chatBox struct {
	lines       []chatLine
	open        bool // the text field has the keyboard
	field       textField
	banner      string
	bannerUntil time.Time // wall time: a banner leaves even when frames stall or Update pauses
}

func newChatBox() chatBox {
	return chatBox{field: textField{Max: lobby.MaxTextRunes, Allow: func(r rune) bool { return r >= 0x20 && r != 0x7f }}}
}

// chatScene reports whether chat is available on the scene (a lobby connection and a lobby).
func chatScene(id scene.ID) bool {
	_, ok := screenOf(id).(chatScreen)
	return ok
}

// updateChat takes the CHAT and BROADCAST pushes received, and handles the text field. It
// returns true when the field has the keyboard this frame (the caller then ignores other keys).
func (a *app) updateChat() bool {
	c := &a.chat
	for _, m := range a.net.Messages() {
		c.lines = append(c.lines, chatLine{from: m.From, text: m.Text, broadcast: m.Broadcast, at: a.frameN})
		if m.Broadcast {
			c.banner, c.bannerUntil = m.Text, time.Now().Add(bannerShown)
			a.log.Info("server broadcast", "text", m.Text)
		}
	}
	if len(c.lines) > chatKeep {
		c.lines = append(c.lines[:0], c.lines[len(c.lines)-chatKeep:]...)
	}
	if !chatScene(a.m.Scene) {
		c.open, c.field.Text = false, ""
		return false
	}
	if !c.open {
		enterOpens := a.m.Scene == scene.Playing && !a.m.MenuOpen && inpututil.IsKeyJustPressed(ebiten.KeyEnter) &&
			!ebiten.IsKeyPressed(ebiten.KeyAlt)
		if inpututil.IsKeyJustPressed(ebiten.KeyT) || enterOpens {
			c.open, c.field.Text = true, "" // the T that opened it is not typed: no update this frame
			return true
		}
		return false
	}
	switch { // the frame that closes the field still owns the keys (Esc must not open the pause menu)
	case inpututil.IsKeyJustPressed(ebiten.KeyEscape):
		c.open, c.field.Text = false, ""
	case inpututil.IsKeyJustPressed(ebiten.KeyEnter) || inpututil.IsKeyJustPressed(ebiten.KeyKPEnter):
		if t := strings.TrimSpace(c.field.Text); t != "" {
			a.net.Chat(t)
		}
		c.open, c.field.Text = false, ""
	default:
		c.field.update()
	}
	return true
}

// drawChatPanel draws the room's chat: the latest lines in a panel at (x, y), w×h px, and the
// text field (or the key hint) at its bottom.
func (a *app) drawChatPanel(dst surface, x, y, w, h float64) {
	u := a.ui
	u.on(dst).rect(float32(x), float32(y), float32(w), float32(h), color.RGBA{8, 12, 30, 190})
	u.on(dst).strokeRect(float32(x), float32(y), float32(w), float32(h), 2, color.RGBA{60, 90, 160, 255})
	u.text(dst, "CHAT", u.small, x+16, y+10, alignStart, u.dimCol)
	lineH := u.lineH(u.small)
	var rows []coloredLine
	for _, l := range a.chat.lines {
		rows = append(rows, a.chatRows(l, w-32)...)
	}
	fit := int((h - 56 - 70) / lineH)
	if len(rows) > fit {
		rows = rows[len(rows)-fit:]
	}
	ry := y + 50
	for _, r := range rows {
		u.text(dst, r.s, u.small, x+16, ry, alignStart, r.col)
		ry += lineH
	}
	a.drawChatField(dst, x+16, y+h-56, w-32, true)
}

// drawChatOverlay draws the in-game chat: recent lines at the bottom left over the playfield,
// all kept lines while the field is open.
func (a *app) drawChatOverlay(dst surface) {
	u := a.ui
	c := &a.chat
	var rows []coloredLine
	for _, l := range c.lines {
		if c.open || a.frameN-l.at < chatFadeTicks {
			rows = append(rows, a.chatRows(l, chatPanelWidth)...)
		}
	}
	max := chatShowInGame
	if c.open {
		max = 14
	}
	if len(rows) > max {
		rows = rows[len(rows)-max:]
	}
	lineH := u.lineH(u.small)
	y := float64(Height) - 140 - float64(len(rows))*lineH
	if len(rows) > 0 {
		u.on(dst).rect(24, float32(y-8), chatPanelWidth+32, float32(float64(len(rows))*lineH+16), color.RGBA{0, 0, 0, 130})
	}
	for _, r := range rows {
		u.text(dst, r.s, u.small, 40, y, alignStart, r.col)
		y += lineH
	}
	if c.open {
		a.drawChatField(dst, 40, float64(Height)-120, chatPanelWidth, false)
		u.text(dst, chatSteerHint, u.small, 40, float64(Height)-152, alignStart, u.dimCol)
	}
}

// chatSteerHint is shown over the in-game chat field.
const chatSteerHint = "Enter send · Esc cancel · the arrow keys still steer"

// drawChatField draws the text field being typed, or (hint) the key that opens it.
func (a *app) drawChatField(dst surface, x, y, w float64, hint bool) {
	u := a.ui
	c := &a.chat
	if !c.open {
		if hint {
			u.text(dst, chatHelp+"· Enter send · Esc cancel", u.small, x, y+8, alignStart, u.dimCol)
		}
		return
	}
	u.on(dst).rect(float32(x-8), float32(y), float32(w+16), 44, color.RGBA{20, 40, 90, 230})
	s := chatFieldPrompt + c.field.Text
	if a.caretOn() {
		s += "_"
	}
	// show the end of a long line
	for len(s) > len(chatFieldPrompt) && u.textWidth(s, u.small) > w { // each pass drops one rune
		_, size := firstRune(s, len(chatFieldPrompt))
		s = chatFieldPrompt + s[len(chatFieldPrompt)+size:]
	}
	u.text(dst, s, u.small, x, y+6, alignStart, u.selCol)
}

func firstRune(s string, at int) (rune, int) {
	for i, r := range s[at:] {
		if i > 0 {
			return r, i
		}
	}
	return 0, len(s) - at
}

// drawBanner draws the operator's latest broadcast across the top of the screen while it lasts
// (in game, below the boss's health bar).
func (a *app) drawBanner(dst surface) {
	c := &a.chat
	if c.banner == "" || !time.Now().Before(c.bannerUntil) {
		return
	}
	u := a.ui
	top := 0.0
	if a.m.Scene == scene.Playing {
		top = 64
	}
	lines := wrapText("SERVER: "+c.banner, u.normal, float64(Width)-200)
	h := float64(len(lines))*u.lineH(u.normal) + 24
	u.on(dst).rect(0, float32(top), float32(Width), float32(h), color.RGBA{120, 20, 20, 220})
	u.on(dst).rect(0, float32(top+h), float32(Width), 3, color.RGBA{255, 200, 80, 255})
	for i, l := range lines {
		u.text(dst, l, u.normal, float64(Width)/2, top+12+float64(i)*u.lineH(u.normal), alignCenter, color.RGBA{255, 235, 170, 255})
	}
}

type coloredLine struct {
	s   string
	col color.RGBA
}

// chatRows wraps one chat line to width px, in the sender's slot colour.
func (a *app) chatRows(l chatLine, width float64) []coloredLine {
	u := a.ui
	col, s := u.itemCol, l.text
	switch {
	case l.broadcast:
		col, s = color.RGBA{255, 200, 80, 255}, "SERVER: "+l.text
	case l.from == "":
		col = u.errorCol
	default:
		s = l.from + ": " + l.text
		for i, n := range a.members {
			if n == l.from && i < len(art.SlotColors) {
				col = art.SlotColors[i]
			}
		}
	}
	var out []coloredLine
	for _, w := range wrapText(s, u.small, width) {
		out = append(out, coloredLine{w, col})
	}
	return out
}

// wrapText breaks s into lines no wider than width px in face, at spaces where it can and
// inside a word longer than a line.
func wrapText(s string, face *face, width float64) []string {
	u := sharedUI()
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			try := word
			if line != "" {
				try = line + " " + word
			}
			if u.textWidth(try, face) <= width {
				line = try
				continue
			}
			if line != "" {
				out = append(out, line)
				line = ""
			}
			for word != "" && u.textWidth(word, face) > width { // a word longer than a line: cut it
				cut := len(word)
				_, first := firstRune(word, 0)
				for cut > first && u.textWidth(word[:cut], face) > width {
					_, size := lastRuneSize(word[:cut])
					cut -= size
				}
				// cut holds at least one rune: the loop ends even when one rune is wider than a line
				out = append(out, word[:cut])
				word = word[cut:]
			}
			line = word
		}
		out = append(out, line)
	}
	return out
}

func lastRuneSize(s string) (rune, int) {
	var r rune
	n := 0
	for i, c := range s {
		r, n = c, len(s)-i
	}
	return r, n
}

// drawWrapped draws s wrapped to width px, centred at cx from y; it returns the y below it.
func (a *app) drawWrapped(dst surface, s string, face *face, cx, y, width float64, col color.RGBA) float64 {
	for _, l := range wrapText(s, face, width) {
		a.ui.text(dst, l, face, cx, y, alignCenter, col)
		y += a.ui.lineH(face)
	}
	return y
}
