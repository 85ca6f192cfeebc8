package client

import (
	"fmt"
	"image/color"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/rtype/rtype/game/client/scene"
)

// serversScreen (scene.Servers) is the server browser: a tab (Internet, LAN, favourites and
// recent), the sort and filters, the servers (name, players, the ping the client measured,
// version, region, a lock for a password), then Direct connect, Refresh and Back. Enter joins
// the server selected, F marks it a favourite.
type serversScreen struct{ titleMusic }

func init() { register(scene.Servers, serversScreen{}) }

// The rows above the servers: the tab, the sort, the filter of what is shown, the region.
const (
	serversTabRow = iota
	serversSortRow
	serversShowRow
	serversRegionRow
	serversHeadRows
)

// serversVisible is how many servers the screen shows at once (it scrolls to the selected).
const serversVisible = 10

// serverShows are the Show filter's steps: every server, those with room, those this client
// can play on, both.
var serverShows = [...]struct {
	label            string
	room, compatible bool
}{{"every server", false, false}, {"with room", true, false}, {"compatible", false, true}, {"with room, compatible", true, true}}

func (serversScreen) update(a *app, _ frame) {
	m := a.m
	rows := m.Rows()
	n := serversHeadRows + len(rows) + 3 // the servers, Direct connect, Refresh, Back
	a.nav(n, false)
	a.menu = min(a.menu, n-1)
	if a.back(false) {
		a.handle(scene.Event{Kind: scene.EvBack})
		return
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyF5) || inpututil.IsKeyJustPressed(ebiten.KeyR) {
		a.handle(scene.Event{Kind: scene.EvRefresh})
		return
	}
	if inpututil.IsKeyJustPressed(ebiten.KeyTab) {
		v := m.View
		v.Tab = (v.Tab + 1) % scene.NumServerTabs
		a.handle(scene.Event{Kind: scene.EvServerView, View: v})
		return
	}
	i := a.menu - serversHeadRows // the server selected, when 0 <= i < len(rows)
	if step := a.leftRight(); step != 0 && a.menu < serversHeadRows {
		v := m.View
		switch a.menu {
		case serversTabRow:
			v.Tab = scene.ServerTab(stepIn([]int{0, 1, 2}, int(v.Tab), step))
		case serversSortRow:
			v.Sort = scene.ServerSort(stepIn([]int{0, 1, 2}, int(v.Sort), step))
		case serversShowRow:
			s := stepIn([]int{0, 1, 2, 3}, showOf(v), step)
			v.HasRoom, v.Compatible = serverShows[s].room, serverShows[s].compatible
		case serversRegionRow:
			v.Region = stepIn(append([]string{""}, m.Regions()...), v.Region, step)
		}
		a.handle(scene.Event{Kind: scene.EvServerView, View: v})
		return
	}
	if i >= 0 && i < len(rows) && inpututil.IsKeyJustPressed(ebiten.KeyF) {
		a.handle(scene.Event{Kind: scene.EvFavourite, Addr: rows[i].Addr})
		return
	}
	if !a.confirm(false) {
		return
	}
	switch {
	case i >= 0 && i < len(rows):
		a.handle(scene.Event{Kind: scene.EvSubmitAddr, Addr: rows[i].Addr})
	case i == len(rows):
		a.handle(scene.Event{Kind: scene.EvDirectConnect})
	case i == len(rows)+1:
		a.handle(scene.Event{Kind: scene.EvRefresh})
	case i == len(rows)+2:
		a.handle(scene.Event{Kind: scene.EvBack})
	}
}

// showOf is the Show filter's step of v.
func showOf(v scene.ServerView) int {
	for i, s := range serverShows {
		if s.room == v.HasRoom && s.compatible == v.Compatible {
			return i
		}
	}
	return 0
}

// The columns of the server rows (x of each).
const (
	colFav     = 90
	colLock    = 130
	colName    = 170
	colPlayers = 900
	colPing    = 1080
	colVersion = 1130
	colRegion  = 1420
	colAddr    = 1530
)

func (serversScreen) draw(a *app, dst surface) {
	u := a.ui
	m := a.m
	cx := float64(Width / 2)
	u.text(dst, "SERVERS", u.big, cx, 30, alignCenter, white)
	// the tabs, the chosen one bright
	x := cx - 520
	for t := scene.ServerTab(0); t < scene.NumServerTabs; t++ {
		col := u.dimCol
		if t == m.View.Tab {
			col = u.itemCol
			if a.menu == serversTabRow {
				col = u.selCol
			}
			u.on(dst).rect(float32(x-16), 178, float32(u.textWidth(t.String(), u.normal)+32), 4, col)
		}
		u.text(dst, t.String(), u.normal, x, 120, alignStart, col)
		x += u.textWidth(t.String(), u.normal) + 90
	}
	region := m.View.Region
	if region == "" {
		region = "every region"
	}
	opts := []string{"Sort: " + m.View.Sort.String(), "Show: " + serverShows[showOf(m.View)].label, "Region: " + region}
	for i, o := range opts {
		col := u.dimCol
		if a.menu == serversSortRow+i {
			col = u.selCol
			o = "< " + o + " >"
		}
		u.text(dst, o, u.small, cx-560+float64(i)*420, 200, alignStart, col)
	}
	rows := m.Rows()
	y0 := 300.0
	for _, h := range []struct {
		label string
		x     float64
		al    align
	}{{"name", colName, alignStart}, {"players", colPlayers, alignEnd}, {"ping", colPing, alignEnd}, {"version", colVersion, alignStart},
		{"region", colRegion, alignStart}, {"address", colAddr, alignStart}} {
		u.text(dst, h.label, u.small, h.x, y0-46, h.al, u.dimCol)
	}
	sel := a.menu - serversHeadRows
	first := 0
	if sel >= serversVisible && sel < len(rows) {
		first = sel - serversVisible + 1
	}
	if len(rows) == 0 && m.Busy == "" && m.Error == "" {
		empty := "no server answered"
		if m.View.Tab == scene.TabSaved {
			empty = "no favourite or recent server yet: F marks a server, joining one keeps it here"
		} else if len(m.Servers) > 0 {
			empty = "no server shown: change Show or Region"
		}
		u.text(dst, empty, u.small, cx, y0+20, alignCenter, u.dimCol)
	}
	for k := first; k < len(rows) && k < first+serversVisible; k++ {
		s := rows[k]
		y := y0 + float64(k-first)*50
		why := s.Incompatible()
		col := u.itemCol
		switch {
		case why != "":
			col = u.dimCol
		case k == sel:
			col = u.selCol
		}
		if k == sel {
			u.on(dst).rect(60, float32(y-8), Width-120, 46, color.RGBA{20, 40, 90, 200})
		}
		if m.IsFavourite(s.Addr) {
			u.text(dst, "*", u.normal, colFav, y-4, alignStart, u.selCol)
		}
		if s.Password {
			drawLock(u.on(dst), colLock, float32(y), col)
		}
		name := s.Name
		if name == "" {
			name = s.Addr
		}
		u.text(dst, u.clip(name, u.small, colPlayers-colName-140), u.small, colName, y, alignStart, col)
		players := "?"
		if s.Capacity > 0 {
			players = fmt.Sprintf("%d/%d", s.Players, s.Capacity)
		}
		u.text(dst, players, u.small, colPlayers, y, alignEnd, col)
		ping := "…"
		switch {
		case s.Pinged:
			ping = fmt.Sprintf("%d ms", max(1, s.Ping.Round(time.Millisecond).Milliseconds()))
		case s.NoAnswer:
			ping = "no answer"
		}
		u.text(dst, ping, u.small, colPing, y, alignEnd, col)
		version := s.Version
		if why != "" {
			version = "incompatible"
		}
		u.text(dst, u.clip(version, u.small, colRegion-colVersion-20), u.small, colVersion, y, alignStart, col)
		u.text(dst, u.clip(s.Region, u.small, colAddr-colRegion-20), u.small, colRegion, y, alignStart, col)
		u.text(dst, u.clip(s.Addr, u.small, Width-colAddr-70), u.small, colAddr, y, alignStart, u.dimCol)
	}
	if len(rows) > serversVisible {
		u.text(dst, fmt.Sprintf("%d–%d of %d", first+1, min(first+serversVisible, len(rows)), len(rows)), u.small, Width-70, y0-46, alignEnd, u.dimCol)
	}
	// what is said of the server selected: why it cannot be joined, else its MOTD
	if sel >= 0 && sel < len(rows) {
		s := rows[sel]
		line, col := s.MOTD, u.dimCol
		if why := s.Incompatible(); why != "" {
			line, col = "Cannot join: "+why+".", u.errorCol
		} else if s.Full() {
			line = "Full: " + line
		}
		u.text(dst, u.clip(line, u.small, Width-200), u.small, cx, y0+float64(serversVisible)*50+6, alignCenter, col)
	}
	items := []string{"Direct connect", "Refresh (F5)", "Back"}
	yi := y0 + float64(serversVisible)*50 + 70
	for k, it := range items {
		col := u.itemCol
		if sel == len(rows)+k {
			col = u.selCol
		}
		u.text(dst, it, u.normal, cx-600+float64(k)*600, yi, alignCenter, col)
	}
	a.drawStatus(dst, yi+70)
	u.help(dst, "Enter join · Tab or Left/Right (on the tabs) tab · Left/Right on Sort, Show, Region · F favourite · F5 refresh · Esc back")
}

// drawLock draws a padlock (a server with a password) at x, y.
func drawLock(p painter, x, y float32, col color.RGBA) {
	p.strokeRect(x+4, y+2, 14, 14, 3, col)
	p.rect(x, y+12, 22, 18, col)
}
