package netflow

import (
	"context"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/session"
)

// Arcade runs (docs/PROTOCOL.md §2.4.15): the lobby's RUN push names the stages of the game; the
// runner resolves each before the game (embedded, or fetched with GET_STAGE) and the link's
// Frame.Stage follows the stage singleton's variant (§4.1): the stage being played, with
// Frame.RunIndex and Frame.Tally.

// resolveRun resolves every stage of lc's arcade run (lobby.Client.Run); nil for a one-stage
// lobby.
func resolveRun(lc *lobby.Client) ([]*game.Stage, error) {
	var out []*game.Stage
	for _, rs := range lc.Run() {
		sf, err := lc.ResolveStage(rs.Name, rs.Hash, game.ParseScript)
		if err != nil {
			return nil, err
		}
		out = append(out, game.StageOf(sf))
	}
	return out, nil
}

// dialRun is the default Runner.dialRun: a session over the run's terrains, linked to its stages.
func dialRun(ctx context.Context, cfg session.Config, run []*game.Stage) (Link, error) {
	cfg.Terrain = &run[0].Terrain
	cfg.Run = make([]*game.Terrain, len(run))
	for i, st := range run {
		cfg.Run[i] = &st.Terrain
	}
	s, err := session.Dial(ctx, cfg)
	if err != nil {
		return nil, err
	}
	l := NewSessionLink(s, run[0]).(*sessionLink)
	l.run = run
	return l, nil
}

// runFrame points the frame at the run's stage the view is in.
func (l *sessionLink) runFrame(v *session.View) {
	if l.run == nil {
		return
	}
	idx, tally, _ := v.Stage()
	l.fr.RunIndex, l.fr.RunLen, l.fr.Tally = idx, len(l.run), tally
	if idx >= 0 && idx < len(l.run) {
		l.fr.Stage = l.run[idx]
	}
}

// withArcade is the stage list the room offers: the server's stages and, last, the arcade run
// (stagefile.Arcade; a server without one refuses it by name).
func withArcade(names []string) []string { return append(names, stagefile.Arcade) }
