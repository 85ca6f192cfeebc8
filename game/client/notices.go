package client

import (
	"image/color"
	"strings"
	"time"

	input "github.com/quasilyte/ebitengine-input"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/art"
	"github.com/rtype/rtype/game/client/controls"
	"github.com/rtype/rtype/game/client/netflow"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/client/settings"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/net/wire"
)

// noticeTicks is how long a death notice stays on screen (60 Hz ticks: 3 s).
const noticeTicks = 180

// uxState is the client side of issue 13's screens: death notices, the results table, the
// rejoin ticket, the "connection interrupted" countdown.
type uxState struct {
	notice      string // last death notice ("2P down (1 left)"), until noticeUntil (frameN)
	noticeUntil int
	noticeOwn   bool // the notice is about the local player's ship

	results     wire.Results // RESULTS of the game (session.EventResults)
	haveResults bool
	names       []string // the lobby's member names when the game started (slot order)
	byOrder     bool     // names are in slot order (not after a rejoin)

	ticket     netflow.Ticket // rejoin ticket of the lost game (also saved for the next start)
	haveTicket bool

	silenceSecs int    // interrupted text cache: seconds shown
	silenceText string // "connection interrupted… 3 s"

	stage     string           // the stage and level of the game (the results screen says them)
	level     rules.Difficulty //
	infinite  bool             // the game is played with infinite lives (the practice trainer)
	lastLives uint8            // the local player's lives in the last frame (extra ships are announced)
	haveLives bool             // lastLives is known
	contShown bool             // the continue offer is on screen, since the frame of tick contFrom
	contFrom  ecs.Tick         // first tick the offer was seen

	banner     string // the banner of a game watched (SPECTATING, GAME OVER — spectating), since frame bannerFrom
	bannerFrom int
}

// startGame resets the per-game state when a session comes up.
func (s *uxState) startGame(a *app) {
	s.notice, s.noticeUntil, s.haveResults = "", 0, false
	s.haveLives, s.contShown, s.banner = false, false, ""
	s.stage, s.level, s.infinite = a.net.Stage(), a.net.Difficulty(), a.net.InfiniteLives() // for the results screen
	_, members := a.net.Members()
	s.names, s.byOrder = netflow.GameNames(members, a.m.Rejoining, s.ticket)
}

// death shows the banner of a DEATH: slot's ship lost, lives left.
func (s *uxState) death(a *app, slot, lives int) {
	s.notice = scene.DeathNotice(slot, lives, a.draw.self)
	s.noticeOwn = slot == a.draw.self
	s.noticeUntil = a.frameN + noticeTicks
}

// lives follows the local player's lives: one more than the last frame's (and not a continue)
// is an extra ship, announced.
func (s *uxState) lives(a *app) {
	self := a.draw.self
	if self < 0 || self >= rules.MaxPlayers || !a.scores[self].present {
		s.lastLives, s.haveLives = 0, false
		return
	}
	sc := a.scores[self]
	if !sc.cont {
		s.contShown = false
	}
	if s.haveLives && sc.lives == s.lastLives+1 && s.lastLives > 0 {
		s.notice, s.noticeOwn, s.noticeUntil = scene.ExtraShipNotice, false, a.frameN+noticeTicks
	}
	s.lastLives, s.haveLives = sc.lives, true
}

// continueLeft is the whole seconds left of the local player's continue offer: counted from the
// first frame that showed it (the server's count starts at the DEATH, a few ticks earlier).
func (s *uxState) continueLeft(sc playerHUD) int {
	if !s.contShown {
		s.contShown, s.contFrom = true, sc.tick
	}
	left := game.ContinueTicks - int(sc.tick-s.contFrom)
	return max(0, (left-1)/game.TickRate) // 9 … 0, as arcades count
}

// drawContinue draws the arcade continue screen: "CONTINUE? 9" and how to take it.
func (a *app) drawContinue(dst surface, secs int) {
	u := a.ui
	p := u.on(dst)
	s := scene.ContinuePrompt(secs)
	hint := scene.ContinueHint(controls.KeyHint(a.hintBindings(), controls.Fire, bindingLoaded, 1))
	w := float32(max(u.textWidth(s, u.big), u.textWidth(hint, u.normal)))
	p.rect(Width/2-w/2-60, 380, w+120, 220, color.RGBA{0, 0, 0, 210})
	p.strokeRect(Width/2-w/2-60, 380, w+120, 220, 3, gameOverCol)
	u.text(dst, s, u.big, Width/2, 410, alignCenter, gameOverCol)
	u.text(dst, hint, u.normal, Width/2, 520, alignCenter, white)
}

// configDir is the settings directory (rejoin ticket); "" when unknown.
func (a *app) configDir() string {
	d, err := settings.Dir(a.cfg.ConfigDir)
	if err != nil {
		return ""
	}
	return d
}

// loadTicket reads the ticket a lost game left for "Rejoin on next start".
func (a *app) loadTicket() {
	if dir := a.configDir(); dir != "" {
		a.ux.ticket, a.ux.haveTicket = netflow.LoadTicket(dir, time.Now())
	}
}

// keepTicket remembers (and saves) the rejoin ticket of the game being lost (reason: the
// session's): called just before EvDisconnected. A spectator has no slot to take back, and a
// player removed by the server or a server shutting down has none either.
func (a *app) keepTicket(reason string) {
	if a.m.Spectator || a.cfg.local != nil || strings.Contains(reason, "removed") || strings.Contains(reason, "shutting down") {
		return
	}
	t, ok := a.net.Ticket(a.draw.self, time.Now())
	if !ok {
		return
	}
	if a.ux.byOrder {
		t.Names = a.ux.names // the names of the game's START, for the results after a rejoin
	}
	a.ux.ticket, a.ux.haveTicket = t, true
	if dir := a.configDir(); dir != "" {
		if err := netflow.SaveTicket(dir, t); err != nil {
			a.log.Warn("rejoin ticket not saved", "err", err)
		}
	}
}

func (a *app) clearTicket() {
	a.ux.haveTicket = false
	if dir := a.configDir(); dir != "" {
		if err := netflow.ClearTicket(dir); err != nil {
			a.log.Warn("rejoin ticket not removed", "err", err)
		}
	}
}

// ticketValid reports whether a lost game can still be rejoined.
func (a *app) ticketValid() bool {
	return a.ux.haveTicket && a.ux.ticket.Valid(time.Now())
}

// rejoinItem is the menu item that rejoins the lost game ("" without a valid ticket).
func (a *app) rejoinItem() string {
	if !a.ticketValid() {
		return ""
	}
	return scene.RejoinLabel(a.ux.ticket.Code, a.ux.ticket.Slot)
}

// rejoin asks the scene machine to rejoin with the ticket.
func (a *app) rejoin() {
	t := a.ux.ticket
	ev := scene.Event{Kind: scene.EvRejoin, Addr: t.Server, Code: t.Code, Slot: t.Slot}
	copy(ev.Key[:], t.Key)
	a.handle(ev)
}

// titleItems is the title menu: a Rejoin item first while a saved ticket is valid.
func (a *app) titleItems() []string {
	if r := a.rejoinItem(); r != "" {
		return []string{r, "Play", "Replays", "Hall of fame", "How to play", "Settings", "Quit"}
	}
	return []string{"Play", "Replays", "Hall of fame", "How to play", "Settings", "Quit"}
}

var (
	noticePlateCol = color.RGBA{0, 0, 0, 210}
	noticeOwnCol   = color.RGBA{255, 120, 110, 255}
	gameOverCol    = color.RGBA{255, 90, 90, 255}
	interruptCol   = color.RGBA{255, 210, 90, 255}
	spectateCol    = color.RGBA{150, 200, 255, 255}
)

// drawNotices draws the in-game notices over the world: the last death, "GAME OVER —
// spectating" for an own ship out of lives, SPECTATING, and "connection interrupted… N s".
func (a *app) drawNotices(dst surface) {
	u := a.ui
	p := u.on(dst)
	d := &a.draw
	y := 120.0
	self := d.self
	banner, f, step := "", u.normal, 0.0 // what the game is watched as: a spectator, a player out of lives
	switch {
	case d.spectator:
		banner, f, step = scene.SpectatingNotice, u.normal, 70
	case self >= 0 && self < rules.MaxPlayers && a.scores[self].present && a.scores[self].cont:
		a.drawContinue(dst, a.ux.continueLeft(a.scores[self]))
		y += 100
	case self >= 0 && self < rules.MaxPlayers && a.scores[self].present && a.scores[self].lives == 0:
		banner, f, step = scene.GameOverSpectating, u.big, 100
	}
	if banner != a.ux.banner {
		a.ux.banner, a.ux.bannerFrom = banner, a.frameN
	}
	if banner != "" {
		col := spectateCol
		if banner == scene.GameOverSpectating {
			col = gameOverCol
		}
		al, corner := spectateBanner(a.frameN - a.ux.bannerFrom)
		if al > 0 {
			a.fadingPlate(dst, banner, f, y, faded(col, al), al)
			y += step
		}
		if corner { // small, in the top-left corner (the RTT is in the other): the playfield stays clear
			w := float32(u.textWidth(banner, u.small))
			p.rect(14, 8, w+28, 38, hudPlateCol)
			u.text(dst, banner, u.small, 28, 16, alignStart, col)
		}
	}
	if a.ux.notice != "" && a.frameN < a.ux.noticeUntil {
		col := white
		if a.ux.noticeOwn {
			col = noticeOwnCol
		}
		a.plate(dst, a.ux.notice, u.normal, y, col)
	}
	if a.m.Resuming { // small, under the RTT corner: the game itself goes on
		w := float32(u.textWidth(scene.ResumingNotice, u.small))
		p.rect(Width-w-42, 52, w+28, 38, hudPlateCol)
		u.text(dst, scene.ResumingNotice, u.small, Width-28, 60, alignEnd, interruptCol)
	}
	if d.interrupted {
		if secs := int(d.silence / time.Second); a.ux.silenceText == "" || secs != a.ux.silenceSecs {
			a.ux.silenceSecs, a.ux.silenceText = secs, scene.InterruptedNotice(d.silence)
		}
		w := float32(u.textWidth(a.ux.silenceText, u.normal))
		p.rect(Width/2-w/2-40, 460, w+80, 120, color.RGBA{0, 0, 0, 200})
		p.strokeRect(Width/2-w/2-40, 460, w+80, 120, 2, interruptCol)
		u.text(dst, a.ux.silenceText, u.normal, Width/2, 484, alignCenter, interruptCol)
		u.text(dst, "waiting for the server", u.small, Width/2, 530, alignCenter, u.dimCol)
	}
}

// plate draws s centred at y on a dark plate.
func (a *app) plate(dst surface, s string, f *face, y float64, col color.RGBA) {
	a.fadingPlate(dst, s, f, y, col, 1)
}

// fadingPlate is plate with the plate at alpha al (col is the text's, faded or not).
func (a *app) fadingPlate(dst surface, s string, f *face, y float64, col color.RGBA, al float32) {
	u := a.ui
	w := float32(u.textWidth(s, f))
	h := float32(u.lineH(f))
	u.on(dst).rect(Width/2-w/2-24, float32(y)-12, w+48, h+16, faded(noticePlateCol, al))
	u.text(dst, s, f, Width/2, y, alignCenter, col)
}

// faded is the premultiplied c at alpha al (0..1) of its own.
func faded(c color.RGBA, al float32) color.RGBA {
	if al >= 1 {
		return c
	}
	m := func(v uint8) uint8 { return uint8(float32(v)*al + 0.5) }
	return color.RGBA{m(c.R), m(c.G), m(c.B), m(c.A)}
}

// The banner of a game watched (SPECTATING, or GAME OVER — spectating for a player out of
// lives): at the top-centre for spectateShow frames, fading out over the last spectateFade,
// then a small tag in the top-left corner for as long as it lasts.
const (
	spectateShow = 3 * game.TickRate
	spectateFade = game.TickRate / 2
)

// spectateBanner is what is seen of the banner n frames after it came up: its alpha (0 once it
// is gone) and whether the corner tag is shown (from when the banner starts fading).
func spectateBanner(n int) (alpha float32, corner bool) {
	switch {
	case n < spectateShow-spectateFade:
		return 1, false
	case n < spectateShow:
		return float32(spectateShow-n) / spectateFade, true
	}
	return 0, true
}

// resultName is the results row name of slot.
func (a *app) resultName(slot int) string {
	return netflow.SlotName(a.ux.names, a.ux.byOrder, slot, a.draw.self, a.net.Name())
}

// fittedName is a results row's name and note ("(you)", "(left)") laid out in a width.
type fittedName struct {
	name               string // the name, clipped with "…" only when nothing else fits
	nameFace, noteFace *face
	noteX              float64 // where the note starts, from the name's start
	nameDY, noteDY     float64 // down from the row's top (a small face sits a little lower)
}

// fitName lays a results row's name and its note out in w virtual px: both in the normal face
// when they fit, else the note in the small face, else the name too, else the name clipped
// with "…" (the note is always whole: who is you, who left).
func (u *ui) fitName(name, note string, w float64) fittedName {
	const gap = 2 * 14 // between the name and its note
	nw := func(f *face) float64 {
		if note == "" {
			return 0
		}
		return gap + u.textWidth(note, f)
	}
	lower := u.lineH(u.normal) - u.lineH(u.small) // the small face on the normal one's baseline
	fit := fittedName{name: name, nameFace: u.normal, noteFace: u.normal}
	switch {
	case u.textWidth(name, u.normal)+nw(u.normal) <= w:
	case u.textWidth(name, u.normal)+nw(u.small) <= w:
		fit.noteFace, fit.noteDY = u.small, lower
	default:
		fit.nameFace, fit.noteFace, fit.nameDY, fit.noteDY = u.small, u.small, lower, lower
		fit.name = u.clip(name, u.small, w-nw(u.small))
	}
	fit.noteX = u.textWidth(fit.name, fit.nameFace) + gap
	if note != "" && fit.noteFace == u.normal {
		fit.noteX = u.textWidth(fit.name+"  ", u.normal)
	}
	return fit
}

// drawResultsTable draws RESULTS as a table from y (without RESULTS: the last HUD scores).
func (a *app) drawResultsTable(dst surface, y float64) {
	u := a.ui
	cols := [...]struct {
		head string
		x    float64
		al   align
	}{{"PLAYER", 260, alignStart}, {"SCORE", 1000, alignEnd}, {"KILLS", 1180, alignEnd}, {"DEATHS", 1370, alignEnd},
		{"BEAM HITS", 1600, alignEnd}, {"ACCURACY", 1820, alignEnd}}
	for _, c := range cols {
		u.text(dst, c.head, u.small, c.x, y, c.al, u.dimCol)
	}
	y += 50
	var rows []netflow.ResultRow
	if a.ux.haveResults {
		rows = netflow.ResultRows(a.ux.results, a.resultName, a.draw.self)
	} else {
		for i, sc := range a.scores {
			if sc.present {
				rows = append(rows, netflow.ResultRow{Slot: i, Name: a.resultName(i), Score: a.hud.scoreOf(i, sc.score),
					Kills: "-", Deaths: "-", BeamHits: "-", Accuracy: "-", Self: i == a.draw.self})
			}
		}
	}
	for _, r := range rows {
		col := art.SlotColors[r.Slot%rules.MaxPlayers]
		if r.Self {
			cc := col
			u.on(dst).rect(220, float32(y-12), 1640, 52, color.RGBA{cc.R / 4, cc.G / 4, cc.B / 4, 220})
			u.on(dst).strokeRect(220, float32(y-12), 1640, 52, 2, cc)
		}
		name, note := scene.SlotLabel(r.Slot)+"  "+r.Name, ""
		switch {
		case r.Self && r.Out:
			note = "(you, out)"
		case r.Self:
			note = "(you)"
		case r.Left:
			note = "(left)"
		case r.Out:
			note = "(out)"
		}
		if r.Continued {
			r.Score += " C" // an arcade score marked as continued
		}
		if r.Practice {
			r.Score += " P" // a practice score: not an arcade one, not in the hall of fame
		}
		fit := u.fitName(name, note, cols[1].x-cols[0].x-u.textWidth(r.Score, u.normal)-30) // never under the score
		u.text(dst, fit.name, fit.nameFace, cols[0].x, y+fit.nameDY, alignStart, col)
		if note != "" {
			u.text(dst, note, fit.noteFace, cols[0].x+fit.noteX, y+fit.noteDY, alignStart, col)
		}
		vals := [...]string{r.Score, r.Kills, r.Deaths, r.BeamHits, r.Accuracy}
		for i, c := range cols[1:] {
			u.text(dst, vals[i], u.normal, c.x, y, c.al, col)
		}
		y += 64
	}
}

// bindingLoaded reports whether a binding's key name parses (a setting that could not be
// loaded is shown as such, not as if it worked).
func bindingLoaded(k string) bool {
	_, err := input.ParseKey(k)
	return err == nil
}

// hintBindings are the keyboard bindings in effect: the user's where at least one loaded, else
// the default ones (as buildKeymap does).
func (a *app) hintBindings() controls.Bindings {
	def := controls.DefaultKeyboard()
	out := controls.Bindings{}
	for act := controls.Action(0); act < controls.NumActions; act++ {
		ks := a.set.Keyboard[act.String()]
		if controls.KeyHint(controls.Bindings{act.String(): ks}, act, bindingLoaded, 1) == "?" {
			ks = def[act.String()]
		}
		out[act.String()] = ks
	}
	return out
}

// titleHelp is the title screen's key help, built from the bindings in effect.
func (a *app) titleHelp() string {
	b := a.hintBindings()
	h := func(act controls.Action, n int) string { return controls.KeyHint(b, act, bindingLoaded, n) }
	return controls.MoveHint(b, bindingLoaded) + " move · " + h(controls.Fire, 2) + " fire (hold to charge) · " +
		h(controls.Force, 2) + " Force · " + h(controls.Menu, 1) + " menu · F11 fullscreen · F3 network"
}
