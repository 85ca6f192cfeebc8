package lobbyserver

import (
	"errors"
	"time"

	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
)

// AdoptGame makes the Core run game g, started by an earlier run of this lobby (a lobby process
// that restarted while its games ran on their hosts, net/fleet RemoteConfig.OnAdopt): it
// recreates the lobby of code spec.Code, running g, with spec's players in its slots (their
// session keys: RESUME's and REJOIN's proofs, resume.go) and no member connected yet, kept
// until the game ends even while nobody is in it. Its players come back with RESUME (or
// REJOIN); when g ends, the lobby's END and GAME_ID reach those who did, as for a game it
// started. Out.Game asks the runtime to watch g. It fails when spec.Code is not a lobby code
// or already names a lobby (a lobby of this run took it), or the server shuts down.
func (c *Core) AdoptGame(_ time.Duration, spec handoff.GameSpec, g handoff.Game) error {
	code := lobby.UpperCode(spec.Code)
	switch {
	case g == nil:
		return errors.New("no game")
	case !lobby.ValidCode(code):
		return errors.New("invalid lobby code " + spec.Code)
	case c.lobbies[code] != nil:
		return errors.New("lobby code " + code + " is taken")
	case c.stopping:
		return errors.New("the server is shutting down")
	}
	stage := c.cfg.Stages.ByName(spec.Stage)
	if stage == nil {
		stage = c.cfg.Stages.Default() // no longer offered: the lobby waits with the default after the game
	}
	var run []*stagefile.File
	for _, name := range spec.Run {
		if f := c.cfg.Stages.ByName(name); f != nil {
			run = append(run, f)
		}
	}
	if len(run) != len(spec.Run) {
		run = nil
	}
	c.created++
	l := &lobbyState{code: code, stage: stage, run: run, created: c.created, section: spec.Section, infinite: spec.InfiniteLives,
		difficulty: spec.Difficulty, game: g, gameID: spec.ID, practice: spec.Practice(),
		slots: append([]handoff.Member(nil), spec.Members...), lost: true}
	c.addLobby(l)
	c.out = append(c.out, Out{Game: g})
	c.log.Info("lobby taken back with its running game", "code", code, "game", spec.ID.String(), "stage", spec.Stage, "players", len(spec.Members))
	return nil
}
