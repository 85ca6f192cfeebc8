package replay

import (
	"sync"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
)

// RecorderBuffer is the capacity a Recorder's buffer starts with: about eight minutes of four
// autopilot players (6.3 KB a minute, docs/BENCHMARKS.md), a whole stage of human players, so
// recording does not allocate while the game runs (a longer game doubles it, rarely).
const RecorderBuffer = 48 << 10

// Recorder records a game as it is played: set it on the Sim (game.Sim.SetRecorder) before the
// first call; it sees every SetInput that changes a slot's buttons, every removal, suspension
// and resumption, and every Step (a checkpoint every CheckpointEvery ticks). It appends each
// event to a buffer grown in advance (RecorderBuffer): nothing is allocated per tick. Not safe
// for concurrent use (it is called by the Sim's goroutine).
type Recorder struct {
	buf      []byte // the header, then the events so far
	players  int
	st       stream // the last event's tick, the slots' last inputs
	overflow bool   // past MaxTicks or MaxBytes: nothing more is recorded, Encode returns nil
}

var _ game.Recorder = (*Recorder)(nil)

// NewRecorder starts the replay of a game with header h (NewRunHeader).
func NewRecorder(h Header) *Recorder {
	buf := make([]byte, 0, RecorderBuffer+len(h.StageData))
	return &Recorder{buf: appendHeader(buf, &h), players: h.Players}
}

// Op records a call into the Sim (game.Recorder).
func (r *Recorder) Op(op game.Op) {
	ev := Event{Tick: op.Tick, Slot: op.Slot, Buttons: op.Buttons}
	switch op.Kind {
	case game.OpInput:
		ev.Kind = EventInput
	case game.OpRemove:
		ev.Kind = EventRemove
	case game.OpSuspend:
		ev.Kind = EventSuspend
	case game.OpResume:
		ev.Kind = EventResume
	default:
		return
	}
	if int(op.Slot) < r.players {
		r.add(&ev)
	}
}

// Stepped records a checkpoint when the Sim's tick is a multiple of CheckpointEvery
// (game.Recorder).
func (r *Recorder) Stepped(s *game.Sim) {
	if t := s.Tick(); t%CheckpointEvery == 0 {
		r.add(&Event{Tick: t, Kind: EventCheckpoint, Hash: s.Hash(), Entities: uint32(s.World().Len())})
	}
}

// Pause records that slot paused (paused true) or resumed the game at tick (informational: a
// paused game does not Step).
func (r *Recorder) Pause(tick ecs.Tick, slot int, paused bool) {
	ev := Event{Tick: tick, Kind: EventUnpause, Slot: uint8(slot)}
	if paused {
		ev.Kind = EventPause
	}
	if slot >= 0 && slot < r.players {
		r.add(&ev)
	}
}

func (r *Recorder) add(ev *Event) {
	if r.overflow {
		return
	}
	if ev.Tick < r.st.last || ev.Tick > MaxTicks || len(r.buf) > MaxBytes-(1<<20) {
		r.overflow = true
		return
	}
	r.buf = r.st.appendEvent(r.buf, ev)
}

// Len is the size in bytes of what is recorded so far.
func (r *Recorder) Len() int { return len(r.buf) }

// Encode returns the replay file of the game so far, ended now: s is the recorded Sim (its tick
// and hash are the final ones, its Stats the results) and res how the game ended as its players
// were told. The recording may go on. It returns nil for a game too long to record (MaxTicks).
func (r *Recorder) Encode(s *game.Sim, res rules.Result) []byte {
	if r.overflow || s.Tick() < r.st.last {
		return nil
	}
	stats := make([]game.PlayerStats, r.players)
	for i := range stats {
		stats[i] = s.Stats(i)
	}
	over, _ := s.Over()
	b := make([]byte, len(r.buf), len(r.buf)+32+len(stats)*24)
	copy(b, r.buf)
	st := r.st // the recording may go on
	b = st.appendEvent(b, &Event{Tick: s.Tick(), Kind: EventEnd, Hash: s.Hash(), Entities: uint32(s.World().Len())})
	return appendTrailer(b, res, over, stats)
}

// NewRunHeader returns the header of a game of cfg whose stages are named stageNames
// (stagefile.File names: "stage1", or a server's -stage file's base name) and whose players are
// names by slot: this build's SimVersion and, for each stage, its hash and, unless it is this
// build's embedded stage of that name with that hash, its file. A game of one stage plays
// cfg.Stage, named stageNames[0] (a nil cfg.Stage is the embedded stage1); an arcade run
// (cfg.Run of two or more stages, ModeArcade) plays cfg.Run in order. The caller sets the
// informational fields (Protocol, Build, Time).
func NewRunHeader(cfg game.Config, stageNames []string, names []string) Header {
	stages := []*game.Stage{cfg.Stage}
	mode := ModeStage
	if len(cfg.Run) >= 2 {
		stages, mode = cfg.Run[:min(len(cfg.Run), stagefile.MaxRun)], ModeArcade
	}
	refs := make([]RunStage, len(stages))
	for i, st := range stages {
		name := ""
		if i < len(stageNames) {
			name = stageNames[i]
		}
		refs[i] = stageRef(st, name)
	}
	players := min(max(cfg.Players, 1), rules.MaxPlayers)
	h := Header{SimVersion: game.SimVersion, Mode: mode, Stage: refs[0].Name, StageHash: refs[0].Hash, StageData: refs[0].Data,
		Seed: cfg.Seed, Players: players, Difficulty: cfg.Difficulty, Section: max(cfg.Section, 0), InfiniteLives: cfg.InfiniteLives,
		Names: make([]string, players)}
	if mode == ModeArcade {
		h.Next = refs[1:]
	}
	for i := range h.Names {
		if i < len(names) {
			h.Names[i] = truncate(names[i], MaxNameBytes)
		}
	}
	return h
}

// stageRef names stage st (nil: game.DefaultStage) by name: its hash and, unless it is this
// build's embedded stage of that name with that hash, its file.
func stageRef(st *game.Stage, name string) RunStage {
	if st == nil {
		st, name = game.DefaultStage(), stagefile.Default
	}
	rs := RunStage{Name: name, Hash: st.Hash()}
	if !stagefile.ValidName(rs.Name) {
		rs.Name = ""
	}
	if rs.Hash == "" || embeddedHash(rs.Name) != rs.Hash {
		rs.Data = st.Source()
	}
	return rs
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// embeddedHashes caches the hashes of this build's embedded stages by name ("" if none).
var embeddedHashes sync.Map

// embeddedHash returns the hash of this build's embedded stage name, "" when there is none.
func embeddedHash(name string) string {
	if name == "" {
		return ""
	}
	if h, ok := embeddedHashes.Load(name); ok {
		return h.(string)
	}
	h := ""
	if f, err := stagefile.Embedded(name, game.ParseScript); err == nil {
		h = f.Hash
	}
	embeddedHashes.Store(name, h)
	return h
}
