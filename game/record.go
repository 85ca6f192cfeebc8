package game

import (
	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game/rules"
)

// SimVersion is the version of the simulation's behaviour: a replay (game/replay) recorded by a
// build whose SimVersion differs is refused rather than played into a silent desync. Bump it in
// the same commit as any change that makes the same seed, stage and inputs give another world
// (a system, a constant, the order of PRNG draws, Hash's encoding). The golden replay test
// (game/replay TestGoldenReplay, testdata/replay/golden.rtr) is what forces the bump: it plays a
// recorded 4-player game to its recorded hashes and fails on any such change; re-record it with
// `go test ./game/replay -run Golden -update` after bumping (docs/REPLAY.md).
const SimVersion = 3

// OpKind is a call into the Sim that decides the game (a Recorder's Op).
type OpKind uint8

// The calls a Recorder sees.
const (
	OpInput   OpKind = iota // SetInput that changed the slot's held buttons (Op.Buttons)
	OpRemove                // RemovePlayer that removed a ship or a suspended slot
	OpSuspend               // SuspendPlayer that suspended a ship
	OpResume                // ResumePlayer that resumed a suspended slot
)

// Op is one recorded call: made at Tick (Sim.Tick when it was called), on Slot.
type Op struct {
	Tick    ecs.Tick
	Kind    OpKind
	Slot    uint8
	Buttons Buttons // OpInput: the buttons held from the next Step on (masked)
}

// Recorder is told, in call order, every call that changes what the next Steps do (Op), and every
// Step that advanced the tick (Stepped, after the step). The same seed, stage and Config, with
// the same Ops applied at the same ticks, give the same world: that is a replay (game/replay).
// A recorder must not change the Sim; it may read it (Hash) in Stepped.
type Recorder interface {
	Op(op Op)
	Stepped(s *Sim)
}

// SetRecorder makes r (nil: none) see the Sim's calls from now on.
func (s *Sim) SetRecorder(r Recorder) { s.rec = r }

// Input returns the buttons slot holds (the last SetInput, masked; 0 for an invalid slot).
func (s *Sim) Input(slot int) Buttons {
	if slot < 0 || slot >= rules.MaxPlayers {
		return 0
	}
	return s.inputs[slot]
}

func (s *Sim) record(k OpKind, slot int, b Buttons) {
	if s.rec != nil {
		s.rec.Op(Op{Tick: s.w.Tick(), Kind: k, Slot: uint8(slot), Buttons: b})
	}
}
