package client

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/playback"
	"github.com/rtype/rtype/game/client/replayfiles"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/client/settings"
	"github.com/rtype/rtype/game/replay"
)

// maxListedReplays bounds the Replays screen (the newest files by modification time).
const maxListedReplays = 200

// listReplays reads the replays kept in dir (newest first): each file's header, decoded. A file
// that is not a playable replay is listed with its error as its stage, so it can be deleted by
// hand; a missing folder is an empty list.
func listReplays(dir string) ([]scene.ReplayInfo, error) {
	files, err := replayfiles.List(dir)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(files, func(a, b replayfiles.File) int { return b.Mod.Compare(a.Mod) })
	files = files[:min(len(files), maxListedReplays)]
	out := make([]scene.ReplayInfo, 0, len(files))
	for _, f := range files {
		out = append(out, replayInfo(f.Path, f.Mod))
	}
	slices.SortStableFunc(out, func(a, b scene.ReplayInfo) int { return cmp.Compare(b.Time, a.Time) })
	return out, nil
}

// replayInfo is the Replays row of the file at path.
func replayInfo(path string, mod time.Time) scene.ReplayInfo {
	info := scene.ReplayInfo{Path: path, Time: mod.Unix()}
	b, err := replayfiles.Read(path)
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
	if replayfiles.InBrowser {
		return replayfiles.Dir("")
	}
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

// clock formats ticks as m:ss.
func clock(ticks int) string {
	s := ticks / game.TickRate
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
