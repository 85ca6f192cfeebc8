package client

import (
	"cmp"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/controls"
	"github.com/rtype/rtype/game/client/playback"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/client/settings"
	"github.com/rtype/rtype/game/replay"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby/scores"
)

// maxListedReplays bounds the Replays screen (the newest files by modification time).
const maxListedReplays = 200

// replayRows is how many rows of the Replays list are on screen at once.
const replayRows = 14

// listReplays reads the replays kept in dir (newest first): each file's header, decoded. A file
// that is not a playable replay is listed with its error as its stage, so it can be deleted by
// hand; a missing folder is an empty list.
func listReplays(dir string) ([]scene.ReplayInfo, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type file struct {
		path string
		mod  time.Time
	}
	var files []file
	for _, e := range ents {
		if e.IsDir() || filepath.Ext(e.Name()) != replay.FileExt {
			continue
		}
		if fi, err := e.Info(); err == nil {
			files = append(files, file{filepath.Join(dir, e.Name()), fi.ModTime()})
		}
	}
	slices.SortFunc(files, func(a, b file) int { return b.mod.Compare(a.mod) })
	files = files[:min(len(files), maxListedReplays)]
	out := make([]scene.ReplayInfo, 0, len(files))
	for _, f := range files {
		out = append(out, replayInfo(f.path, f.mod))
	}
	slices.SortStableFunc(out, func(a, b scene.ReplayInfo) int { return cmp.Compare(b.Time, a.Time) })
	return out, nil
}

// replayInfo is the Replays row of the file at path.
func replayInfo(path string, mod time.Time) scene.ReplayInfo {
	info := scene.ReplayInfo{Path: path, Time: mod.Unix()}
	b, err := os.ReadFile(path)
	if err == nil && len(b) > replay.MaxBytes {
		err = fmt.Errorf("too large")
	}
	var r *replay.Replay
	if err == nil {
		r, err = replay.Decode(b)
	}
	if err != nil {
		info.Stage = "unreadable: " + err.Error()
		return info
	}
	info.Stage, info.Difficulty, info.Names, info.Result = r.Board(), r.Difficulty, r.Names, r.Result
	if r.Time > 0 {
		info.Time = r.Time
	}
	info.Ticks = int(r.End().Tick)
	for _, st := range r.Stats {
		info.Score += uint64(st.Score) // the team's, as the hall of fame ranks games (PROTOCOL §2.4.12)
	}
	return info
}

// replayDir is where this client keeps replays (settings.ReplayDir).
func (a *app) replayDir() string {
	d, err := settings.ReplayDir(a.cfg.ConfigDir)
	if err != nil {
		return ""
	}
	return d
}

// execReplay runs the replay commands of the scene machine on a goroutine (Update never blocks
// on the disk); the answer comes back through a.local.
func (a *app) execReplay(c scene.Cmd) {
	switch c.Kind {
	case scene.CmdListReplays:
		dir := a.replayDir()
		go func() {
			rows, err := listReplays(dir)
			a.local <- func() { a.handle(scene.Event{Kind: scene.EvReplayList, Replays: rows, Err: err}) }
		}()
	case scene.CmdOpenReplay:
		go func() {
			v, err := playback.Open(c.Path)
			a.local <- func() {
				if err != nil {
					a.log.Warn("replay not played", "file", c.Path, "err", err)
					a.handle(scene.Event{Kind: scene.EvWatchFailed, Err: err})
					return
				}
				a.startWatching(v)
				a.handle(scene.Event{Kind: scene.EvWatchReady})
			}
		}()
	case scene.CmdCloseReplay:
		a.viewer = nil
		a.endGame()
	}
}

// startWatching shows v's world as a game: the HUD, notices and music come from the replay.
func (a *app) startWatching(v *playback.Viewer) {
	a.viewer = v
	a.startGame(v.World())
	r := v.Replay()
	a.ux.names, a.ux.byOrder = r.Names, true
	a.ux.stage, a.ux.level = r.Board(), r.Difficulty
}

// updateWatch is a frame of the Watching scene: the viewer's keys, then playback.
func (a *app) updateWatch() {
	v := a.viewer
	if v == nil {
		return
	}
	switch {
	case a.back(false):
		a.handle(scene.Event{Kind: scene.EvBack})
		return
	case a.justPressed(controls.Fire), a.justPressed(controls.Confirm):
		v.TogglePause()
	case a.justPressed(controls.Right):
		v.Seek(playback.SeekStep)
		a.tracker.Reset()
	case a.justPressed(controls.Left):
		v.Seek(-playback.SeekStep)
		a.tracker.Reset()
	case a.justPressed(controls.Up):
		v.Faster()
	case a.justPressed(controls.Down):
		v.Slower()
	case a.justPressed(controls.Force):
		v.FollowNext()
	}
	v.Frame()
	for done := false; !done; {
		select {
		case ev := <-v.World().Events():
			a.sessionEvent(ev)
		default:
			done = true
		}
	}
}

// watchHelp is the key help of the Watching scene.
func (a *app) watchHelp() string {
	b := a.hintBindings()
	k := func(act controls.Action) string { return controls.KeyHint(b, act, bindingLoaded, 1) }
	return fmt.Sprintf("%s pause · %s/%s seek 10 s · %s/%s speed · %s follow next · %s back",
		k(controls.Fire), k(controls.Left), k(controls.Right), k(controls.Up), k(controls.Down), k(controls.Force), k(controls.Back))
}

// drawWatchOverlay draws what the replay is, where playback is, and the keys.
func (a *app) drawWatchOverlay(dst surface) {
	v := a.viewer
	if v == nil {
		return
	}
	u := a.ui
	p := u.on(dst)
	r := v.Replay()
	tick, end := v.Progress()
	state := fmt.Sprintf("%dx", v.Speed()) // the font has no ×
	switch {
	case v.Err() != nil:
		state = "STOPPED"
	case v.Ended():
		state = "END"
	case v.Paused():
		state = "PAUSED"
	}
	follow := v.Follow()
	name := ""
	if follow < len(r.Names) {
		name = " " + r.Names[follow]
	}
	title := game.StageTitle(r.Stage)
	if st := v.World().Stage; st != nil && st.Name != "" {
		title = st.Name // the title of the stage being played (an arcade run's current one)
	}
	head := fmt.Sprintf("REPLAY  %s · %s · %s / %s · %s · following %s%s", title, r.Difficulty.Rules().Title,
		clock(int(tick)), clock(int(end)), state, slotTags[follow%rules.MaxPlayers], name)
	w := float32(u.textWidth(head, u.small))
	p.rect(12, 8, w+36, 38, hudPlateCol)
	u.text(dst, head, u.small, 30, 16, alignStart, u.selCol)
	k := float32(0)
	if end > 0 {
		k = float32(tick) / float32(end)
	}
	p.rect(30, 50, 600, 6, color.RGBA{40, 50, 80, 220})
	p.rect(30, 50, 600*k, 6, color.RGBA{255, 220, 80, 255})
	if err := v.Err(); err != nil {
		a.drawWrapped(dst, "This replay no longer matches the game: "+err.Error(), u.small, Width/2, 420, 1400, u.errorCol)
	}
	help := a.watchHelp()
	hw := float32(u.textWidth(help, u.small))
	p.rect(Width/2-hw/2-20, 64, hw+40, 42, helpPlateCol)
	u.text(dst, help, u.small, Width/2, 74, alignCenter, helpCol)
}

// clock formats ticks as m:ss.
func clock(ticks int) string {
	s := ticks / game.TickRate
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// drawReplays draws the Replays screen: the kept replays, newest first.
func (a *app) drawReplays(dst surface) {
	u := a.ui
	u.text(dst, "REPLAYS", u.big, Width/2, 40, alignCenter, white)
	rows := a.m.Replays
	if len(rows) == 0 && a.m.Busy == "" {
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
	u.help(dst, "Enter watch · Esc back")
}

// updateReplays is a frame of the Replays screen.
func (a *app) updateReplays() {
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

// updateHall is a frame of the Hall of fame: Up/Down move between the filters and the games,
// Left/Right change a filter (on the games: the page), Enter watches a game with a replay.
func (a *app) updateHall() {
	m := a.m
	rows := hallFilterRows + len(m.Games)
	a.nav(rows, false)
	if a.back(false) {
		a.handle(scene.Event{Kind: scene.EvBack})
		return
	}
	step := 0
	if a.justPressed(controls.Left) {
		step = -1
	} else if a.justPressed(controls.Right) {
		step = 1
	}
	if step != 0 {
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

// drawHall draws the Hall of fame: its filters, then a page of games (rank, score, players,
// stage, level, result, length, date; "watch" where a replay is kept).
func (a *app) drawHall(dst surface) {
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
