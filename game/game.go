// Package game is the deterministic, server-authoritative R-Type simulation:
// components (and their little-endian wire codecs), systems, stage data and
// the built-in autopilot.
//
// Units: positions are virtual pixels of the 1920x1080 playfield (x right,
// y down, the centre of the entity), speeds are px/s, times are ticks at
// 60 Hz (TickRate). Nothing in this package reads the clock, touches the
// network or imports ebiten: the same seed, stage and per-tick inputs always
// give the same world, bit for bit (see Sim.Hash).
//
// # Systems
//
// Sim.Step runs one tick; its systems run in this fixed order:
//
//  1. input     ship movement (MoveShip), normal shot / charge / beam, Force button
//  2. force     attached Force follows its ship, detached Force flies ahead or is recalled
//  3. ai        enemy and boss steering (sets Velocity) and firing
//  4. movement  Position += Velocity/TickRate for every non-ship entity
//  5. spawn     stage script: waves whose scroll position has been reached, the boss
//  6. collision uniform-grid broadphase, then hits (bullets, beams, Force, contact, power-ups)
//  7. damage    deaths of enemies (score, explosion, drops), the boss, ships (EventDeath)
//  8. timers    respawn, invulnerability, explosion lifetimes
//  9. scroll    Stage.Scroll advance, music sections (EventMusic)
//  10. cleanup  off-screen bullets, enemies and power-ups are destroyed
//  11. end      victory (boss destroyed) / defeat (no lives left) -> EventGameEnd
//
// The ecs world tick is advanced at the start of Step, so every change made
// during a Step is stamped with the tick that Sim.Tick returns afterwards.
package game

import "github.com/rtype/rtype/ecs"

// Simulation constants.
const (
	// TickRate is the fixed simulation rate in ticks per second.
	TickRate = 60
	// Width and Height are the playfield size in virtual pixels.
	Width, Height = 1920, 1080
	// MaxPlayers is the number of player slots (slot = colour index 0..3).
	MaxPlayers = 4
)

// Buttons is the set of buttons a player holds during one tick.
// Bits: 0 up, 1 down, 2 left, 3 right, 4 fire, 5 force. Bits 6-7 are unused.
type Buttons uint8

// Button bits. BtnForce is edge-triggered by the simulation (a press is a
// tick where it is held and was not held the tick before).
const (
	BtnUp    Buttons = 1
	BtnDown  Buttons = 2
	BtnLeft  Buttons = 4
	BtnRight Buttons = 8
	BtnFire  Buttons = 16
	BtnForce Buttons = 32
)

// Input is what one player sends for one tick.
type Input struct {
	Buttons Buttons
}

// Result is how a game ended (wire value of GAME_END).
type Result uint8

// Game results.
const (
	ResultDefeat  Result = 0
	ResultVictory Result = 1
	ResultAborted Result = 2
)

// String returns "defeat", "victory" or "aborted".
func (r Result) String() string {
	switch r {
	case ResultDefeat:
		return "defeat"
	case ResultVictory:
		return "victory"
	case ResultAborted:
		return "aborted"
	}
	return "unknown"
}

// EventKind identifies a game event.
type EventKind uint8

// Game event kinds (mapped by net/instance to the DEATH, MUSIC and GAME_END commands).
const (
	// EventDeath: a ship was destroyed. Entity is the ship, Slot its player slot,
	// Lives the lives left after this death (0 = out of the game).
	EventDeath EventKind = iota + 1
	// EventMusic: the music changes to Song (stage section change or boss).
	EventMusic
	// EventGameEnd: the game is over with Result; Step is a no-op afterwards.
	EventGameEnd
)

// Event is one game event produced by Sim.Step. Only the fields relevant to
// Kind are set. Entity creation and destruction are not game events: they
// are visible through ecs.World.Events for replication.
type Event struct {
	Kind   EventKind
	Entity ecs.Entity // EventDeath: the ship
	Slot   uint8      // EventDeath: player slot 0..3
	Lives  uint8      // EventDeath: lives left
	Song   uint8      // EventMusic: song id
	Result Result     // EventGameEnd
}
