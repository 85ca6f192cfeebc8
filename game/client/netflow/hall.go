package netflow

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game/client/replayfiles"
	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/game/replay"
	"github.com/rtype/rtype/lobby"
)

// keepTries and keepEvery bound how long the client asks for the replay of the game that just
// ended while the server is still storing it ("is being stored: ask again", PROTOCOL §2.4.14).
const keepTries = 6

var keepEvery = time.Second // a var: tests wait less

// hallQuery runs the Hall of fame's query h (GET_SCORES, or GET_GAMES for the recent view) as
// player name.
func hallQuery(lc *lobby.Client, h scene.Hall, name string) ([]lobby.GameEntry, error) {
	if h.View == scene.HallRecent {
		return lc.RecentGames(h.Page, "")
	}
	q := lobby.ScoresQuery{Stage: h.Stage, Players: h.Players, Page: h.Page, Today: h.View == scene.HallToday}
	if h.View == scene.HallMine {
		q.Name = name
	}
	return lc.Scores(q)
}

// execHall runs the Hall of fame's commands (CmdGetScores, CmdFetchReplay, CmdKeepReplay).
func (n *Runner) execHall(c scene.Cmd) {
	switch c.Kind {
	case scene.CmdGetScores:
		h, name := c.Hall, n.name
		n.lobbyDo(func(lc *lobby.Client) {
			gs, err := hallQuery(lc, h, name)
			if err != nil {
				n.post(Reply{Ev: scene.Event{Kind: scene.EvScoresFailed, Err: lobbyErr(err)}})
				return
			}
			n.post(Reply{Ev: scene.Event{Kind: scene.EvScores, Games: gs, Hall: h}})
		})
	case scene.CmdFetchReplay:
		id, err := uuid.Parse(c.Code)
		if err != nil {
			n.post(Reply{Ev: scene.Event{Kind: scene.EvFetchFailed, Err: fmt.Errorf("game id %q: %w", c.Code, err)}})
			return
		}
		dir := c.Path
		n.lobbyDo(func(lc *lobby.Client) {
			p, err := fetchReplay(lc, dir, id)
			if err != nil {
				n.post(Reply{Ev: scene.Event{Kind: scene.EvFetchFailed, Err: lobbyErr(err)}})
				return
			}
			n.post(Reply{Ev: scene.Event{Kind: scene.EvReplayFetched, Path: p}})
		})
	case scene.CmdKeepReplay:
		lc, dir := n.lobby, c.Path
		if lc == nil || dir == "" {
			return
		}
		n.mu.Lock()
		prev := n.keptGame
		n.mu.Unlock()
		n.goDo(func() {
			n.keepReplay(lc.LastGameID, func(id uuid.UUID) (string, error) { return fetchReplay(lc, dir, id) }, prev)
		})
	}
}

// keepReplay keeps the replay of the game that just ended (fetch: fetchReplay into the replays
// folder), asking again while the server stores it. The game is the lobby's GAME_ID push
// (gameID: lobby.Client.LastGameID; PROTOCOL §2.5.9), which comes with the lobby's END and may
// come after the game's own GAME_END: an id that is still prev (the game kept before) or none
// is asked for again; a server that keeps no games sends none.
func (n *Runner) keepReplay(gameID func() uuid.UUID, fetch func(uuid.UUID) (string, error), prev uuid.UUID) {
	id := uuid.Nil
	for try := 0; try < keepTries; try++ {
		select {
		case <-n.ctx.Done():
			return
		case <-time.After(keepEvery):
		}
		if id == uuid.Nil {
			if g := gameID(); g != uuid.Nil && g != prev {
				id = g
				n.mu.Lock()
				n.keptGame = id
				n.mu.Unlock()
			} else {
				continue // no GAME_ID yet
			}
		}
		p, err := fetch(id)
		if err == nil {
			n.log.Info("replay kept", "file", p)
			return
		}
		var re *lobby.ResponseError
		if !errors.As(err, &re) || !strings.Contains(re.Reason, "being stored") {
			n.log.Warn("replay not kept", "game", id, "err", err)
			return
		}
	}
	if id == uuid.Nil {
		n.log.Debug("no replay to keep: the server named no game (it keeps none)")
		return
	}
	n.log.Warn("replay not kept: the server was still storing it", "game", id)
}

// fetchReplay downloads the replay of game id (GET_REPLAY) into dir/<id>.rtr, unless a file of
// that name is there already, and returns its path. The bytes must decode as a replay before
// they are written (a server's data is never trusted); the file appears whole or not at all.
func fetchReplay(lc *lobby.Client, dir string, id uuid.UUID) (string, error) {
	name := id.String() + replay.FileExt
	if p := replayfiles.Path(dir, name); replayfiles.Exists(p) {
		return p, nil
	}
	b, err := lc.FetchReplay(id)
	if err != nil {
		return "", err
	}
	if _, err := replay.Decode(b); err != nil {
		return "", fmt.Errorf("the server's replay of game %s: %w", id, err)
	}
	return replayfiles.Write(dir, name, b)
}
