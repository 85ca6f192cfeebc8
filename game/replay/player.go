package replay

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/stagefile"
)

// ErrStage wraps the errors of a replay whose stage this build cannot give: not embedded and not
// carried, or another version of it than the one recorded.
var ErrStage = errors.New("replay: stage")

// VersionError refuses a replay recorded by a simulation of another version (game.SimVersion):
// it would play into a silent desync.
type VersionError struct {
	Replay, Build uint32 // the replay's SimVersion and this build's
	ReplayBuild   string // the recording build (Header.Build)
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("replay: recorded with simulation version %d (build %q); this build runs simulation version %d and cannot play it",
		e.Replay, e.ReplayBuild, e.Build)
}

// DivergenceError is a replay that played into another world than the one recorded: the first
// checkpoint (or the end) whose hash differs, what was recorded and what was got.
type DivergenceError struct {
	Tick                      ecs.Tick
	Final                     bool // the end of the replay (its final hash)
	Want, Got                 uint64
	WantEntities, GotEntities uint32
	// Ended: the game ended at Tick, before the replay's end (no more Step).
	Ended bool
}

func (e *DivergenceError) Error() string {
	if e.Ended {
		return fmt.Sprintf("replay: diverges: the game ended at tick %d, before the end of the replay", e.Tick)
	}
	what := "checkpoint"
	if e.Final {
		what = "final checkpoint"
	}
	s := fmt.Sprintf("replay: diverges at %s tick %d (the first that differs): hash want %016x got %016x", what, e.Tick, e.Want, e.Got)
	if e.WantEntities != e.GotEntities {
		s += fmt.Sprintf("; entities want %d got %d", e.WantEntities, e.GotEntities)
	} else {
		s += fmt.Sprintf("; same entity count (%d)", e.GotEntities)
	}
	return s
}

// LoadStage returns the stage the replay was recorded on: its own copy (Header.StageData, checked
// against StageHash), else this build's embedded stage of that name when its hash is the
// recorded one. The errors wrap ErrStage and name the stage and both hashes.
func (r *Replay) LoadStage() (*game.Stage, error) {
	return loadStage(RunStage{Name: r.Stage, Hash: r.StageHash, Data: r.StageData})
}

// LoadStages returns the stages of the replay's game: its stage (LoadStage) then, for an arcade
// run, those of Header.Next, each resolved as LoadStage resolves the first.
func (r *Replay) LoadStages() ([]*game.Stage, error) {
	first, err := r.LoadStage()
	if err != nil {
		return nil, err
	}
	out := []*game.Stage{first}
	for _, rs := range r.Next {
		st, err := loadStage(rs)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

func loadStage(rs RunStage) (*game.Stage, error) {
	if rs.Data != nil {
		got := stagefile.Hash(rs.Data)
		if rs.Hash != "" && got != rs.Hash {
			return nil, fmt.Errorf("%w %q: the replay's copy of the stage has hash %s, its header says %s (the file was damaged)", ErrStage, rs.Name, got, rs.Hash)
		}
		st, err := game.ParseStage(rs.Name+".json (in the replay)", rs.Data)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrStage, err)
		}
		return st, nil
	}
	f, err := stagefile.Embedded(rs.Name, game.ParseScript)
	if err != nil {
		return nil, fmt.Errorf("%w %q: not one of this build's stages (%s), and the replay does not carry it", ErrStage, rs.Name,
			strings.Join(stagefile.EmbeddedNames(), ", "))
	}
	if f.Hash != rs.Hash {
		return nil, fmt.Errorf("%w %q: the replay was recorded on the stage with hash %s, this build's has hash %s", ErrStage, rs.Name, rs.Hash, f.Hash)
	}
	return game.StageOf(f), nil
}

// Config is the game.Config of the replay's game on stage st (LoadStage).
func (r *Replay) Config(st *game.Stage) game.Config {
	return game.Config{Seed: r.Seed, Players: r.Players, Stage: st, Difficulty: r.Difficulty, Section: r.Section, InfiniteLives: r.InfiniteLives}
}

// RunConfig is the game.Config of the replay's game on its stages (LoadStages): an arcade run
// when there are several.
func (r *Replay) RunConfig(stages []*game.Stage) game.Config {
	cfg := r.Config(stages[0])
	if len(stages) > 1 {
		cfg.Run = stages
	}
	return cfg
}

// Player plays a replay back: the replay's Sim, stepped tick by tick with the recorded calls
// applied at their ticks. After NewPlayer and after every Step, every event up to Tick has been
// applied, and the world events of the last Step are in Sim().World().Events(). Not safe for
// concurrent use.
type Player struct {
	r      *Replay
	stages []*game.Stage
	sim    *game.Sim
	next   int   // the next event to apply
	err    error // a divergence: every later Step returns it
}

// NewPlayer checks that this build can play r (its simulation version and its stage) and
// returns its Player at tick 0. A replay of another simulation version gets a *VersionError.
func NewPlayer(r *Replay) (*Player, error) {
	if r.SimVersion != game.SimVersion {
		return nil, &VersionError{Replay: r.SimVersion, Build: game.SimVersion, ReplayBuild: r.Build}
	}
	if n := len(r.Events); n == 0 || r.Events[n-1].Kind != EventEnd {
		return nil, fmt.Errorf("%w: no end event", ErrCorrupt)
	}
	stages, err := r.LoadStages()
	if err != nil {
		return nil, err
	}
	p := &Player{r: r, stages: stages}
	p.reset()
	return p, p.err
}

// reset starts the game again at tick 0.
func (p *Player) reset() {
	p.sim = game.NewSim(p.r.RunConfig(p.stages))
	p.next, p.err = 0, nil
	p.apply()
}

// Replay returns the replay being played.
func (p *Player) Replay() *Replay { return p.r }

// Sim returns the simulation being played (read it; do not call into it). A SeekTo backwards
// replaces it.
func (p *Player) Sim() *game.Sim { return p.sim }

// Tick returns the tick of the Sim's state.
func (p *Player) Tick() ecs.Tick { return p.sim.Tick() }

// End returns the replay's final tick.
func (p *Player) End() ecs.Tick { return p.r.End().Tick }

// Done reports whether the replay is played to its end.
func (p *Player) Done() bool { return p.next >= len(p.r.Events) }

// Step plays one tick: the Sim steps, then the events of the tick it reached are applied. It
// returns a *DivergenceError at the first checkpoint whose hash differs (and from then on); a
// Done player does nothing.
func (p *Player) Step() error {
	if p.err != nil || p.Done() {
		return p.err
	}
	before := p.sim.Tick()
	p.sim.World().ClearEvents()
	p.sim.Step()
	if p.sim.Tick() == before {
		p.err = &DivergenceError{Tick: before, Ended: true}
		return p.err
	}
	p.apply()
	return p.err
}

// SeekTo plays to tick (at most the end): forwards by stepping, backwards by playing again from
// the start.
func (p *Player) SeekTo(tick ecs.Tick) error {
	if tick < p.sim.Tick() {
		p.reset()
	}
	for p.err == nil && !p.Done() && p.sim.Tick() < tick {
		_ = p.Step()
	}
	return p.err
}

// apply applies the events of the ticks up to the Sim's.
func (p *Player) apply() {
	s, evs := p.sim, p.r.Events
	for p.err == nil && p.next < len(evs) && evs[p.next].Tick <= s.Tick() {
		ev := &evs[p.next]
		p.next++
		slot := int(ev.Slot)
		switch ev.Kind {
		case EventInput:
			s.SetInput(slot, game.Input{Buttons: ev.Buttons})
		case EventRemove:
			s.RemovePlayer(slot)
		case EventSuspend:
			s.SuspendPlayer(slot)
		case EventResume:
			s.ResumePlayer(slot)
		case EventCheckpoint, EventEnd:
			if h, n := s.Hash(), uint32(s.World().Len()); h != ev.Hash || ev.Tick != s.Tick() {
				p.err = &DivergenceError{Tick: ev.Tick, Final: ev.Kind == EventEnd, Want: ev.Hash, Got: h, WantEntities: ev.Entities, GotEntities: n}
			}
		}
	}
}

// Verify plays r headless to its end and checks every checkpoint, the final hash, the results
// (each slot's game.PlayerStats) and, when the Sim ended the game, the result. The error says
// why this build cannot play r (*VersionError, ErrStage) or where it diverged
// (*DivergenceError, or which slot's results differ).
func Verify(r *Replay) error {
	p, err := NewPlayer(r)
	if err != nil {
		return err
	}
	for !p.Done() {
		if err := p.Step(); err != nil {
			return err
		}
	}
	for i := range r.Stats {
		if got := p.sim.Stats(i); got != r.Stats[i] {
			return fmt.Errorf("replay: diverges in the results of slot %d: want %+v got %+v", i, r.Stats[i], got)
		}
	}
	if over, res := p.sim.Over(); over != r.SimOver || (over && res != r.Result) {
		return fmt.Errorf("replay: diverges in the end: want over %v (%s), got over %v (%s)", r.SimOver, r.Result, over, res)
	}
	return nil
}
