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
//  1. input: ship movement (MoveShip, faster with speed-ups), normal shot / charge / beam, Force
//     button (launch: forward from the front, backward from the back; recall); fire sends, by
//     what the ship carries, the normal shot, the laser through an attached Force (backward from
//     the back), the detached Force's volley, the Bits' shots and homing missiles
//  2. force: attached Force follows its ship; detached Force flies ahead (or back), follows the
//     ship's height and fires on its own every 12 ticks; recalled, it re-attaches on the side it
//     touches
//  3. bits: each Bit glides to its place above or below its ship
//  4. ai: enemy steering (sets Velocity: flyers, ground walkers and hoppers on the terrain,
//     snakes, the mid-boss), the boss, its tail or tentacles (chains of boss parts), firing
//  5. movement: Position += Velocity/TickRate for every entity but ships, Forces and Bits
//  6. weapons: missiles steer, blue lasers reflect off ceiling, floor and blocks, yellow lasers
//     reach and crawl along the ceiling and floor, crystal capsules change colour
//  7. spawn: stage script waves whose scroll position has been reached, then the boss
//  8. collision: uniform-grid broadphase plus terrain (by column), then hits (Forces and Bits,
//     shots and beams, ships); terrain stops shots, beams and bullets and destroys ships
//  9. damage: deaths of enemies (score, explosion, drops), capsules taken, the boss, ships
//     (EventDeath; the ship loses its Force, Bits, laser colour, speed-ups and missiles)
//  10. timers: respawn, invulnerability, explosion lifetimes
//  11. scroll: Stage.Scroll advance, music sections (EventMusic)
//  12. cleanup: off-screen bullets, enemies and power-ups are destroyed
//  13. end: victory (boss destroyed; in an arcade run, the last stage's: before it a stage-clear
//     tally then the next stage, arcade.go) / defeat (no lives left) / aborted (no ship) -> EventGameEnd
//
// # The arsenal
//
// Laser crystals (capsules whose colour cycles red, blue, yellow every 90 ticks) give the Force,
// then level it up (1..3) when of the laser's colour, or change the colour. With the Force
// attached, fire sends the laser: red a helix straight ahead (strong, piercing at level 3), blue
// angled beams reflecting up to 3 times off ceiling, floor and blocks, yellow two beams that go
// up and down and crawl along the ceiling and floor (for both, the playfield's top and bottom
// edges stand for a missing ceiling or floor). A
// detached Force fires red straight shots, blue diagonal bouncing beams or yellow crawling beams.
// "B" gives a Bit (up to two: above, then below the ship; they block bullets and hurt what they
// touch), "S" a speed-up (up to MaxSpeed), "M" homing missiles (two in flight at most).
//
// Systems are plain method calls (no scheduler type): entities are created
// and destroyed only between query iterations, as the ecs contract asks.
//
// # Determinism
//
// All state is in the ecs world (replicated and server-only components) and
// in a few Sim fields (PRNG state, script position), all covered by
// Sim.Hash. The PRNG is splitmix64 seeded by Config.Seed. Arithmetic is
// float32 with explicit conversions around products, so no fused
// multiply-add changes results: MoveShip gives the same bits on every
// platform (client prediction relies on it). Sines come from a 1024-entry
// table built from math.Sin at start-up; the server simulation is
// reproducible bit for bit on one platform.
//
// # Stage files
//
// A stage is a JSON object (assets/stages/*.json, see ParseStage):
//
//	{"name": "Short", "scrollSpeed": 240,                       // px/s
//	 "sections": [{"at": 0, "song": 1, "name": "approach"}],     // at: px of scroll, first at 0
//	 "terrain": {"theme": "base", "start": 4600, "step": 120,   // theme: base|organic; world px
//	             "ceiling": [0, 40, 80], "floor": [0, 60, 60],   // px from the top / bottom per column
//	             "blocks": [{"x": 8200, "y": 440, "w": 240, "h": 120}]}, // world x, screen y, size px
//	 "waves": [{"at": 400, "kind": "sine", "count": 6, "y": 700, // kind: straight|sine|turret|homing|carrier|
//	            "x": 1980, "spacing": 50, "dy": 0,               //   walker|hopper|snake|midboss
//	            "speed": 260, "amplitude": 120, "hp": 1,         // optional (0/absent: kind default)
//	            "fire": 200, "drop": "crystal",                  // fire: ticks between shots (0 never);
//	            "ground": "floor"}],                             // drop: crystal|bit|speed|missile; ground: floor|ceiling
//	 "boss": {"at": 2600, "kind": "small", "hp": 40, "song": 3,  // kind: big|small|wall
//	          "phases": [{"below": 100, "pattern": "fan",        // pattern: fan|aimed|ring|spawn
//	                      "interval": 70, "bullets": 5, "speed": 280,
//	                      "open": 120, "closed": 60, "sway": 120}]}}
//
// The terrain (Terrain) is static in the world: world x = screen x + scroll. Ceiling and
// floor are straight lines between columns; the corridor between them is at least
// MinCorridor px everywhere, and structures leave one side that wide. Ground kinds stand on
// the floor or hang from the ceiling (by "ground", else by y: the upper half hangs). A snake
// wave's first member is the head, the others its body, all on one winding path.
//
// Difficulty scales with the number of players n: enemy HP x(n+1)/2 (1 player x1, 2 x1.5,
// 3 x2, 4 x2.5), the boss's x(3n+1)/4 (4 players x3.25), fire intervals x12/(n+11) (1 player
// x1, 4 players x0.8: more bullets); the boss fires faster the longer the fight lasts. The level (Config.Difficulty,
// rules.DifficultyRules) then scales HP, fire intervals and bullet speed by its percentages and sets
// the lives, extra-life thresholds, continues and respawn invulnerability.
//
// The ecs world tick is advanced at the start of Step, so every change made
// during a Step is stamped with the tick that Sim.Tick returns afterwards.
package game

import (
	"strconv"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game/rules"
)

// Simulation constants.
const (
	// TickRate is the fixed simulation rate in ticks per second.
	TickRate = 60
	// Width and Height are the playfield size in virtual pixels.
	Width, Height = 1920, 1080
	// HUDHeight is the bar at the bottom of the playfield where clients draw the scores; ships
	// stay above it (ShipMaxY), so no ship is ever drawn under the HUD.
	HUDHeight = 64
	// ShipMaxY is the largest y of a ship's centre (MoveShip).
	ShipMaxY = Height - HUDHeight - shipH/2
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
	// EventExtraLife: Slot's score passed a threshold (DifficultyRules.ExtraLifeFirst/Every);
	// Lives is its lives now. Clients see it as Player.Lives going up.
	EventExtraLife
	// EventContinue: Slot took a continue (fire during "CONTINUE?"); Lives is its lives now.
	EventContinue
	// EventStageClear: in an arcade run, the boss of the run's stage Stage (its index) is
	// destroyed and another stage follows: the tally starts (Sim.StageFigures, Sim.Tally).
	EventStageClear
)

// Event is one game event produced by Sim.Step. Only the fields relevant to
// Kind are set. Entity creation and destruction are not game events: they
// are visible through ecs.World.Events for replication.
type Event struct {
	Kind   EventKind
	Entity ecs.Entity   // EventDeath: the ship
	Slot   uint8        // EventDeath, EventExtraLife, EventContinue: player slot 0..3
	Lives  uint8        // EventDeath, EventExtraLife, EventContinue: lives left
	Song   uint8        // EventMusic: song id
	Result rules.Result // EventGameEnd
	Stage  uint8        // EventStageClear: the index in the run of the stage cleared
}

// String returns the kind's name ("player", "enemy-bullet", ...: KindInfo.Name) or "kind(N)".
func (k EntityKind) String() string {
	if int(k) < len(kinds) {
		return kinds[k].Name
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}
