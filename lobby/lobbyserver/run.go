package lobbyserver

import (
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
)

// Arcade runs in the lobby (docs/PROTOCOL.md §2.4.15, §2.5.10): a lobby plays one stage or the
// server's arcade run, chosen as the pseudo-stage stagefile.Arcade ("arcade") wherever a stage
// is chosen (JOIN_LOBBY's create form, SET_STAGE). An arcade lobby's STAGE push names the run's
// first stage (what a client that knows no runs plays), a RUN push follows with every stage of
// the run, and GET_LOBBIES lists the lobby's stage as "arcade".

// choice is what a lobby plays: a stage, or the run (run non-nil, stage its first).
type choice struct {
	stage *stagefile.File
	run   []*stagefile.File
}

// choose resolves a stage name or stagefile.Arcade; ok false when the server offers neither.
func (c *Core) choose(name string) (choice, bool) {
	if name == stagefile.Arcade {
		run := c.cfg.Stages.Run()
		if run == nil {
			return choice{}, false
		}
		return choice{stage: run[0], run: run}, true
	}
	st := c.cfg.Stages.ByName(name)
	return choice{stage: st}, st != nil
}

// listedStage is the stage field of l's GET_LOBBIES entry: its stage, or "arcade".
func (l *lobbyState) listedStage() string {
	if l.run != nil {
		return stagefile.Arcade
	}
	return l.stage.Name
}

// pushRun tells cs the arcade run of its lobby l: each stage's name and hash, or nothing after
// the code when l plays one stage (docs/PROTOCOL.md §2.5.10).
func (c *Core) pushRun(cs *connState, l *lobbyState) {
	args := make([]string, 0, 1+len(l.run))
	args = append(args, l.code)
	for _, f := range l.run {
		args = append(args, f.Name+":"+f.Hash)
	}
	c.push(cs, lobby.PushRun, args...)
}

// runNames returns the stage names of l's run (nil: one stage).
func (l *lobbyState) runNames() []string {
	if l.run == nil {
		return nil
	}
	out := make([]string, len(l.run))
	for i, f := range l.run {
		out[i] = f.Name
	}
	return out
}

// stageFiles are the stage files START plays: the run's, or the stage alone (GameSpec.Files).
func (l *lobbyState) stageFiles() []*stagefile.File {
	if l.run != nil {
		return append([]*stagefile.File(nil), l.run...)
	}
	return []*stagefile.File{l.stage}
}
