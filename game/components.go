package game

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game/rules"
)

// Wire ids of the replicated components (docs/PROTOCOL.md §4, "Component list v3").
const (
	CompPosition ecs.ComponentID = 1
	CompVelocity ecs.ComponentID = 2
	CompKind     ecs.ComponentID = 3
	CompPlayer   ecs.ComponentID = 4
	CompHealth   ecs.ComponentID = 5
	CompForce    ecs.ComponentID = 6
	CompBoss     ecs.ComponentID = 7
	CompStage    ecs.ComponentID = 9
)

// Ids of the server-only components (never replicated, ids 20..63).
const (
	CompShip     ecs.ComponentID = 20
	CompEnemy    ecs.ComponentID = 21
	CompShot     ecs.ComponentID = 22
	CompLifetime ecs.ComponentID = 23
	CompForceCtl ecs.ComponentID = 24
	CompBossCtl  ecs.ComponentID = 25
	// CompSize is not sent: it follows from Kind (SizeOf). Clients derive it when a Kind
	// arrives (docs/PROTOCOL.md §4.1). Wire id 8 (Size in earlier drafts) is reserved.
	CompSize ecs.ComponentID = 26
	// CompGuide is the course state of shots that change course (missiles, blue and yellow lasers).
	CompGuide ecs.ComponentID = 27
	// CompCapsule is the age of a capsule (its crystal colour cycles with it).
	CompCapsule ecs.ComponentID = 28
)

// Position is the centre of an entity in virtual px (id 1; wire: x f32, y f32).
type Position struct{ X, Y float32 }

// Velocity is the speed of an entity in px/s (id 2; wire: vx f32, vy f32).
// Ships are moved by MoveShip from their inputs; their Velocity is the
// resulting px/s (for client extrapolation only).
type Velocity struct{ X, Y float32 }

// EntityKind is what an entity is; the client draws by (Kind, Variant).
type EntityKind uint8

// Entity kinds (Kind.Kind) and the meaning of Kind.Variant for each.
const (
	KindNone EntityKind = 0
	// KindPlayer: a ship. Variant = slot 0..3 (colour index). Components:
	// Position, Velocity, Kind, Player, Size.
	KindPlayer EntityKind = 1
	// KindForce: the Force pod. Variant = Force level 1..3. Components:
	// Position, Velocity, Kind, Force, Size.
	KindForce EntityKind = 2
	// KindPlayerBullet: a player's shot. Variant: ShotNormal, ShotForce, ShotMissile, or a
	// laser LaserShot(colour, level) (the colour of Player.Laser, the level of the Force).
	KindPlayerBullet EntityKind = 3
	// KindBeam: a charged (wave cannon) beam. Variant = charge level 1..3
	// (Size grows with the level).
	KindBeam EntityKind = 4
	// KindEnemyBullet: a Bydo bullet. Variant: BulletSmall, BulletBig.
	KindEnemyBullet EntityKind = 5
	// KindEnemy: a Bydo enemy. Variant: EnemyStraight ... EnemyMidboss. Components add Health.
	// Ground kinds (turret, walker, hopper) stand on the floor, or hang from the ceiling when
	// their y is in the upper half of the playfield (clients draw them upside down).
	KindEnemy EntityKind = 6
	// KindBoss: the boss body (invulnerable, blocks shots, kills on contact).
	// Variant: BossBig (stage 1), BossSmall, BossWall (stage 2), BossCore (stage 3). Components add Boss.
	KindBoss EntityKind = 7
	// KindBossWeakPoint: the boss core; damageable only while Boss.WeakOpen
	// is 1. Variant 0 closed, 1 open. Components add Health.
	KindBossWeakPoint EntityKind = 8
	// KindPowerUp: a capsule. Variant: PowerRed, PowerBlue, PowerYellow (laser crystals, the
	// colour cycles), PowerBit, PowerSpeed, PowerMissile.
	KindPowerUp EntityKind = 9
	// KindExplosion: a short-lived explosion (no collision). Variant:
	// ExplosionSmall (enemy), ExplosionBig (ship), ExplosionBoss.
	KindExplosion EntityKind = 10
	// KindStage: the stage singleton (Stage component); never drawn.
	KindStage EntityKind = 11
	// KindBit: a Bit, the small orb that flies above (variant 0) or below (variant 1) its ship,
	// blocks enemy bullets and hurts enemies it touches.
	KindBit EntityKind = 12
	// KindBossPart: a segment of a boss's tail or tentacle (blocks shots, kills ships on
	// contact, cannot be destroyed). Variant: PartTail, PartTailTip, PartTentacle,
	// PartTentacleTip.
	KindBossPart EntityKind = 13
	// NumKinds is one more than the largest entity kind.
	NumKinds = 14
)

// Variants of KindPlayerBullet.
const (
	ShotNormal  uint8 = 0 // ship shot without a Force attached
	ShotForce   uint8 = 1 // shot fired by a detached Force (or a Bit)
	ShotMissile uint8 = 2 // homing missile (PowerMissile)
	// ShotLaser is the first laser variant: LaserShot(colour, level) = ShotLaser +
	// (colour-1)*3 + level-1, i.e. 3..5 red, 6..8 blue, 9..11 yellow.
	ShotLaser uint8 = 3
	// NumShotLooks is one more than the largest shot variant with a look of its own: the
	// crawling variants look like the yellow laser of their level (ShotLook).
	NumShotLooks = ShotLaser + 9
	// ShotCrawl is the first crawling yellow laser variant: CrawlShot(surface, level) =
	// ShotCrawl + (surface-1)*3 + level-1, i.e. 12..14 on the ceiling, 15..17 on the floor.
	// Clients place a crawling laser on its surface themselves (CrawlY, docs/PROTOCOL.md §5.8).
	ShotCrawl uint8 = NumShotLooks
	// NumShotVariants is one more than the largest shot variant.
	NumShotVariants = ShotCrawl + 6
)

// CrawlShot is the KindPlayerBullet variant of a yellow laser of level 1..3 crawling along
// surface (SurfCeil or SurfFloor).
func CrawlShot(surface, level uint8) uint8 {
	surface = min(max(surface, SurfCeil), SurfFloor)
	level = min(max(level, 1), maxForceLevel)
	return ShotCrawl + (surface-1)*3 + level - 1
}

// CrawlOf returns the surface (SurfCeil or SurfFloor) a shot variant crawls along, SurfNone for
// a shot that does not crawl.
func CrawlOf(variant uint8) uint8 {
	if variant < ShotCrawl || variant >= NumShotVariants {
		return SurfNone
	}
	return (variant-ShotCrawl)/3 + SurfCeil
}

// ShotLook is the variant whose look a shot variant has: itself, or for a crawling laser the
// yellow laser of its level.
func ShotLook(variant uint8) uint8 {
	if s := CrawlOf(variant); s != SurfNone {
		return LaserShot(LaserYellow, (variant-ShotCrawl)%3+1)
	}
	return variant
}

// CrawlY is the y (px) of the centre of a laser of shot variant v crawling at world x wx
// along its surface of terrain t (the playfield's edges where there is none), and whether v
// crawls. Server and clients place crawling lasers with it (docs/PROTOCOL.md §5.8).
func CrawlY(t *Terrain, v uint8, wx float32) (float32, bool) {
	surf := CrawlOf(v)
	if surf == SurfNone {
		return 0, false
	}
	hh := float32(SizeOf(Kind{Kind: KindPlayerBullet, Variant: v}).H) / 2
	if t.Empty() {
		t = nil
	}
	if surf == SurfFloor {
		return t.FloorY(wx) - hh, true
	}
	return t.CeilY(wx) + hh, true
}

// Laser colours (Player.Laser): the colour of the last crystal taken.
const (
	LaserNone   uint8 = 0
	LaserRed    uint8 = 1 // anti-air: a twisting helix straight ahead
	LaserBlue   uint8 = 2 // reflecting: angled beams that bounce off terrain
	LaserYellow uint8 = 3 // anti-ground: beams that crawl along floor and ceiling
)

// LaserShot is the KindPlayerBullet variant of a laser of colour (LaserRed..LaserYellow) at
// Force level 1..3.
func LaserShot(colour, level uint8) uint8 {
	colour = min(max(colour, LaserRed), LaserYellow)
	level = min(max(level, 1), maxForceLevel)
	return ShotLaser + (colour-1)*3 + level - 1
}

// LaserOf returns the colour and level of a laser shot variant (ok false for other shots).
func LaserOf(variant uint8) (colour, level uint8, ok bool) {
	variant = ShotLook(variant)
	if variant < ShotLaser || variant >= NumShotLooks {
		return 0, 0, false
	}
	v := variant - ShotLaser
	return v/3 + 1, v%3 + 1, true
}

// Variants of KindEnemyBullet.
const (
	BulletSmall uint8 = 0
	BulletBig   uint8 = 1 // boss bullets
)

// Variants of KindEnemy (also the stage JSON wave kinds, see EnemyKindNames).
const (
	EnemyStraight  uint8 = 0  // "straight": flies left, occasional aimed shot
	EnemySine      uint8 = 1  // "sine": spinning flyer on a sine wave, in formations
	EnemyTurret    uint8 = 2  // "turret": cannon mounted on the floor or ceiling, aims at the nearest ship
	EnemyHoming    uint8 = 3  // "homing": kamikaze that steers towards the nearest ship
	EnemyCarrier   uint8 = 4  // "carrier": slow armoured carrier, drops capsules
	EnemyWalker    uint8 = 5  // "walker": walks along the floor or ceiling, fires up/down at ships
	EnemyHopper    uint8 = 6  // "hopper": jumps along the floor or ceiling
	EnemySnake     uint8 = 7  // "snake": head of a segmented snake winding through the cave
	EnemySnakeBody uint8 = 8  // a body segment following the snake's head
	EnemyMidboss   uint8 = 9  // "midboss": big armoured enemy; only beams and the Force hurt it
	EnemyEngine    uint8 = 10 // "engine": a warship's engine pod bolted to its hull (moves with the terrain), fires big bullets
	numEnemyKinds        = 11
)

// Variants of KindBoss.
const (
	BossBig   uint8 = 0 // stage 1 boss: body at the right, a long segmented tail, weak point in the belly
	BossSmall uint8 = 1 // small boss (short stage), 240x320
	BossWall  uint8 = 2 // stage 2 boss: grown into the right wall, two tentacles
	BossCore  uint8 = 3 // stage 3 finale: the Bydo warship's reactor core, at its stern
)

// Variants of KindBossPart.
const (
	PartTail        uint8 = 0
	PartTailTip     uint8 = 1
	PartTentacle    uint8 = 2
	PartTentacleTip uint8 = 3
)

// Variants of KindPowerUp.
const (
	PowerRed     uint8 = 0 // red laser crystal (the crystals' colour cycles red, blue, yellow)
	PowerBlue    uint8 = 1 // blue laser crystal
	PowerYellow  uint8 = 2 // yellow laser crystal
	PowerBit     uint8 = 3 // "B": a Bit (up to two)
	PowerSpeed   uint8 = 4 // "S": faster ship (up to 3 steps)
	PowerMissile uint8 = 5 // "M": homing missiles fired with the shots
	numPowers          = 6
)

// Variants of KindExplosion.
const (
	ExplosionSmall uint8 = 0
	ExplosionBig   uint8 = 1
	ExplosionBoss  uint8 = 2
)

// Kind is the kind and variant of an entity (id 3; wire: kind u8, variant u8).
type Kind struct {
	Kind    EntityKind
	Variant uint8
}

// Player flag bits (Player.Flags).
const (
	PlayerInvulnerable uint8 = 1 // bit0: just respawned, cannot be hit
	PlayerDead         uint8 = 2 // bit1: destroyed, waiting to respawn (or out of lives)
	PlayerContinue     uint8 = 4 // bit2: out of lives, a continue is offered (with PlayerDead)
)

// Player is the per-ship player state (id 4; wire: slot u8, lives u8, flags u8, laser u8,
// speed u8, missile u8, score u32, chargeFrom u32 = 14 bytes).
//
// The beam charge is replicated as its cause, the tick fire was pressed, not as
// the 0..255 value that grows every tick: a charging ship's Player changes twice
// per beam instead of every tick. ChargeAt gives the charge at any tick.
type Player struct {
	Slot       uint8  // 0..3, colour index
	Lives      uint8  // lives left, including the current ship (3 at start)
	Flags      uint8  // PlayerInvulnerable | PlayerDead | PlayerContinue
	Laser      uint8  // laser colour: LaserNone, LaserRed, LaserBlue, LaserYellow (fired with the Force attached)
	Speed      uint8  // speed-ups taken 0..MaxSpeed (MoveShip's speed)
	Missile    uint8  // 1: homing missiles go out with the shots
	Score      uint32 // points
	ChargeFrom uint32 // tick (60 Hz) of the first tick fire has been held, once the charge is > 0; else 0
}

// Health is the hit points of an enemy, weak point or boss (id 5; wire: hp u16, maxHP u16).
type Health struct{ HP, MaxHP uint16 }

// Force modes (Force.Mode).
const (
	ForceDetached uint8 = 0
	ForceFront    uint8 = 1
	ForceBack     uint8 = 2
)

// Force is the Force pod state (id 6; wire: owner u64, mode u8, level u8 = 10).
type Force struct {
	Owner ecs.Entity // the owning ship
	Mode  uint8      // ForceDetached, ForceFront, ForceBack
	Level uint8      // 1..3
}

// BossPhaseDying is Boss.Phase while the boss explodes (then the stage is won).
// Phase 0 is the entrance, phases 1..n follow the stage file's boss.phases.
const BossPhaseDying uint8 = 255

// Boss is the boss state (id 7; wire: phase u8, weakOpen u8).
type Boss struct {
	Phase    uint8 // 0 entering, 1..n fighting, BossPhaseDying
	WeakOpen uint8 // 1 while the weak point can be damaged
}

// Size is the hitbox and drawn size in virtual px (id 26, not replicated: SizeOf(Kind)).
type Size struct{ W, H uint16 }

// PlacedByClients reports whether clients compute the Position of e themselves, so the server
// does not send it (docs/PROTOCOL.md §5.7, §5.8): a Force attached to its ship
// (AttachedForcePos), a yellow laser crawling along the terrain (CrawlY).
func (c *Components) PlacedByClients(e ecs.Entity) bool {
	if f := c.Force.Get(e); f != nil && f.Mode != ForceDetached {
		return true
	}
	k := c.Kind.Get(e)
	return k != nil && k.Kind == KindPlayerBullet && CrawlOf(k.Variant) != SurfNone
}

// DeriveFromKind sets on a client's mirror the components that are not sent because they follow
// from e's Kind (today the Size, SizeOf). Call it whenever a Kind arrives (docs/PROTOCOL.md §4.1).
func (c *Components) DeriveFromKind(e ecs.Entity) {
	if k := c.Kind.Get(e); k != nil {
		c.Size.Set(e, SizeOf(*k))
	}
}

// SizeOf is the hitbox and drawn size of an entity of kind k, in virtual px: sizes are fixed by
// kind and variant (KindInfo.Variants, docs/PROTOCOL.md §4.1), so they are never sent. A variant
// without a look, an unknown kind and KindStage are 0×0.
func SizeOf(k Kind) Size {
	vi, _ := k.Kind.Info().Variant(k.Variant)
	return vi.Size
}

// StageState is the replicated component id 9 ("Stage"), held by the stage
// singleton entity (wire: section u8 = 1). It is named StageState because
// Stage is the stage file type.
//
// The stage singleton also has a Position whose X is the scroll (px scrolled
// since the start) and a Velocity of (ScrollSpeed, 0) px/s until the boss
// appears, then (0, 0): the scroll is dead-reckoned like any mover and costs
// nothing on the wire while its speed is constant (docs/PROTOCOL.md §4).
// The boss's hit points are its weak point's Health.
type StageState struct {
	Section uint8 // index into Stage.Sections (music section); len(Stage.Sections) once the boss is out
}

// Ship is the server-only ship state (id 20).
type Ship struct {
	Prev     Buttons    // buttons of the previous tick (edges)
	Input    Buttons    // buttons of this tick
	Cooldown uint8      // ticks until the next normal shot
	Held     uint16     // ticks fire has been held
	Invuln   uint16     // ticks of invulnerability left
	Respawn  uint16     // ticks until respawn while dead
	Force    ecs.Entity // the Force pod, Nil if none
	// Bits are the ship's Bits: [0] above, [1] below (KindBit variant = index), Nil if none.
	Bits [2]ecs.Entity
}

// Enemy is the server-only AI state of a Bydo enemy (id 21).
type Enemy struct {
	Type    uint8      // EnemyStraight ...
	Drop    uint8      // 0 none, 1+PowerForce / 1+PowerLaser
	Age     uint32     // ticks since spawn
	BaseY   float32    // px, centre line for sine movement
	Speed   float32    // px/s
	Amp     float32    // px, sine amplitude
	FireCD  uint16     // ticks until next shot
	FireIvl uint16     // ticks between shots (0: never fires)
	Score   uint16     // points when destroyed
	HitBy   ecs.Entity // last beam that damaged it (a beam hits once)
	Surface uint8      // ground kinds: SurfaceFloor or SurfaceCeil (0: flying)
	State   uint8      // kind-specific state (hopper: 0 resting, 1 jumping; midboss: 1 leaving)
	Timer   uint16     // kind-specific ticks (hopper: rest or flight time)
	WalkVX  float32    // ground kinds: px/s along the world x (negative: walking left)
}

// Enemy.Surface values: what a ground enemy stands on.
const (
	SurfaceNone  uint8 = 0
	SurfaceFloor uint8 = 1
	SurfaceCeil  uint8 = 2
)

// Shot is the server-only damage of a player bullet or beam (id 22).
type Shot struct {
	Damage uint16
	Slot   uint8 // shooter's slot (score)
	Pierce uint8 // 1: beam, passes through enemies it destroys
	Hit    uint8 // 1 once it has damaged something (PlayerStats.Hits counts it once)
}

// Lifetime destroys an entity when Ticks reaches 0 (id 23, server-only).
type Lifetime struct{ Ticks uint16 }

// ForceCtl is the server-only Force control state (id 24).
type ForceCtl struct {
	Recall uint8 // 1 while flying back to its ship
	Lock   uint8 // ticks during which it cannot re-attach (after a launch)
	Back   uint8 // 1: launched from the back (flies to forceBehindX and fires backwards)
	FireCD uint8 // ticks until a detached Force fires on its own
}

// Guide modes (Guide.Mode).
const (
	GuideHoming uint8 = 1 // homing missile: steers towards the nearest enemy every missileSteerEvery ticks
	GuideBounce uint8 = 2 // blue laser: reflects off ceiling, floor and blocks
	GuideCrawl  uint8 = 3 // yellow laser: flies up or down, then crawls along the ceiling or floor
)

// Crawl surfaces (Guide.Surf).
const (
	SurfNone  uint8 = 0 // in flight
	SurfCeil  uint8 = 1 // crawling along the ceiling (or the playfield's top edge)
	SurfFloor uint8 = 2 // crawling along the floor (or the playfield's bottom edge)
)

// Guide is the server-only course state of a player shot that changes course (id 27).
type Guide struct {
	Mode uint8  // GuideHoming, GuideBounce, GuideCrawl
	Left uint8  // GuideBounce: bounces left (the next terrain contact after the last destroys it)
	Surf uint8  // GuideCrawl: SurfNone, SurfCeil, SurfFloor
	Age  uint16 // ticks since fired
	Col  int32  // GuideCrawl: terrain segment (world x / Terrain.Step) the velocity was set for
	// Speed is the screen px/s along x of a crawling laser (signed: < 0 crawls left).
	Speed float32
}

// Capsule is the server-only age of a capsule (id 28): a crystal's colour (Kind.Variant) cycles
// red, blue, yellow every crystalCycle ticks of it.
type Capsule struct {
	Age uint32 // ticks since spawn
}

// BossCtl is the server-only boss state (id 25).
type BossCtl struct {
	Age     uint32     // ticks since spawn
	PhaseAt uint32     // age when the current phase started
	FireCD  uint16     // ticks until the next volley
	OpenCD  uint16     // ticks until the weak point toggles
	Dying   uint16     // ticks left of the death animation
	Angle   uint16     // spiral angle (1/65536 turns)
	Weak    ecs.Entity // weak point entity
	BaseY   float32    // px
	Parts   uint8      // tail/tentacle segments created (Sim.parts holds them)
}

// Components holds the typed stores of every component. Fields are named
// after the component (Stage holds StageState).
type Components struct {
	Position *ecs.Store[Position]
	Velocity *ecs.Store[Velocity]
	Kind     *ecs.Store[Kind]
	Player   *ecs.Store[Player]
	Health   *ecs.Store[Health]
	Force    *ecs.Store[Force]
	Boss     *ecs.Store[Boss]
	Size     *ecs.Store[Size]
	Stage    *ecs.Store[StageState]

	// Server-only (empty on a client mirror).
	Ship     *ecs.Store[Ship]
	Enemy    *ecs.Store[Enemy]
	Shot     *ecs.Store[Shot]
	Lifetime *ecs.Store[Lifetime]
	ForceCtl *ecs.Store[ForceCtl]
	BossCtl  *ecs.Store[BossCtl]
	Guide    *ecs.Store[Guide]
	Capsule  *ecs.Store[Capsule]

	// Queries used by Autopilot (replicated components only).
	autoPK *ecs.Query2[Position, Kind]
}

// RegisterComponents registers every game component on w with its wire id
// and codec (ids 1..9 Replicated, 20..28 server-only) and returns the typed
// stores. Call it once per world: on the server Sim world and on a client
// mirror world alike. It panics if a component id is already registered
// (ecs.Register contract).
func RegisterComponents(w *ecs.World) *Components {
	c := &Components{
		Position: ecs.Register[Position](w, CompPosition, positionCodec{}, ecs.Replicated),
		Velocity: ecs.Register[Velocity](w, CompVelocity, velocityCodec{}, ecs.Replicated),
		Kind:     ecs.Register[Kind](w, CompKind, kindCodec{}, ecs.Replicated),
		Player:   ecs.Register[Player](w, CompPlayer, playerCodec{}, ecs.Replicated),
		Health:   ecs.Register[Health](w, CompHealth, healthCodec{}, ecs.Replicated),
		Force:    ecs.Register[Force](w, CompForce, forceCodec{}, ecs.Replicated),
		Boss:     ecs.Register[Boss](w, CompBoss, bossCodec{}, ecs.Replicated),
		Size:     ecs.Register[Size](w, CompSize, sizeCodec{}, 0),
		Stage:    ecs.Register[StageState](w, CompStage, stageCodec{}, ecs.Replicated),
		Ship:     ecs.Register[Ship](w, CompShip, shipCodec{}, 0),
		Enemy:    ecs.Register[Enemy](w, CompEnemy, enemyCodec{}, 0),
		Shot:     ecs.Register[Shot](w, CompShot, shotCodec{}, 0),
		Lifetime: ecs.Register[Lifetime](w, CompLifetime, lifetimeCodec{}, 0),
		ForceCtl: ecs.Register[ForceCtl](w, CompForceCtl, forceCtlCodec{}, 0),
		BossCtl:  ecs.Register[BossCtl](w, CompBossCtl, bossCtlCodec{}, 0),
		Guide:    ecs.Register[Guide](w, CompGuide, guideCodec{}, 0),
		Capsule:  ecs.Register[Capsule](w, CompCapsule, capsuleCodec{}, 0),
	}
	c.autoPK = ecs.NewQuery2[Position, Kind](w)
	return c
}

// ---- codecs ----

// CodecError is returned by the component codecs' Parse for malformed input.
type CodecError struct {
	Component string // e.g. "Position"
	Field     string // "" when the size is wrong
	Reason    string
}

func (e *CodecError) Error() string {
	if e.Field == "" {
		return "game: component " + e.Component + ": " + e.Reason
	}
	return "game: component " + e.Component + "." + e.Field + ": " + e.Reason
}

func sizeErr(comp string, want, got int) error {
	return &CodecError{Component: comp, Reason: fmt.Sprintf("need %d bytes, got %d", want, got)}
}

var le = binary.LittleEndian

func appendF32(b []byte, f float32) []byte { return le.AppendUint32(b, math.Float32bits(f)) }
func getF32(b []byte) float32              { return math.Float32frombits(le.Uint32(b)) }

func finite(f float32) bool { return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) }

func finiteErr(comp, field string) error {
	return &CodecError{Component: comp, Field: field, Reason: "not a finite number"}
}

type positionCodec struct{}

func (positionCodec) Size() int { return 8 }
func (positionCodec) Append(b []byte, v *Position) []byte {
	return appendF32(appendF32(b, v.X), v.Y)
}
func (positionCodec) Parse(b []byte, v *Position) error {
	if len(b) != 8 {
		return sizeErr("Position", 8, len(b))
	}
	x, y := getF32(b), getF32(b[4:])
	if !finite(x) {
		return finiteErr("Position", "x")
	}
	if !finite(y) {
		return finiteErr("Position", "y")
	}
	v.X, v.Y = x, y
	return nil
}

type velocityCodec struct{}

func (velocityCodec) Size() int { return 8 }
func (velocityCodec) Append(b []byte, v *Velocity) []byte {
	return appendF32(appendF32(b, v.X), v.Y)
}
func (velocityCodec) Parse(b []byte, v *Velocity) error {
	if len(b) != 8 {
		return sizeErr("Velocity", 8, len(b))
	}
	x, y := getF32(b), getF32(b[4:])
	if !finite(x) {
		return finiteErr("Velocity", "vx")
	}
	if !finite(y) {
		return finiteErr("Velocity", "vy")
	}
	v.X, v.Y = x, y
	return nil
}

type kindCodec struct{}

func (kindCodec) Size() int                       { return 2 }
func (kindCodec) Append(b []byte, v *Kind) []byte { return append(b, uint8(v.Kind), v.Variant) }
func (kindCodec) Parse(b []byte, v *Kind) error {
	if len(b) != 2 {
		return sizeErr("Kind", 2, len(b))
	}
	v.Kind, v.Variant = EntityKind(b[0]), b[1]
	return nil
}

type playerCodec struct{}

func (playerCodec) Size() int { return 14 }
func (playerCodec) Append(b []byte, v *Player) []byte {
	b = append(b, v.Slot, v.Lives, v.Flags, v.Laser, v.Speed, v.Missile)
	b = le.AppendUint32(b, v.Score)
	return le.AppendUint32(b, v.ChargeFrom)
}
func (playerCodec) Parse(b []byte, v *Player) error {
	if len(b) != 14 {
		return sizeErr("Player", 14, len(b))
	}
	if b[0] >= rules.MaxPlayers {
		return &CodecError{Component: "Player", Field: "slot", Reason: fmt.Sprintf("%d is not a slot 0..3", b[0])}
	}
	if b[3] > LaserYellow {
		return &CodecError{Component: "Player", Field: "laser", Reason: fmt.Sprintf("%d is not a laser colour 0..3", b[3])}
	}
	if b[4] > MaxSpeed {
		return &CodecError{Component: "Player", Field: "speed", Reason: fmt.Sprintf("%d is not a speed 0..%d", b[4], MaxSpeed)}
	}
	v.Slot, v.Lives, v.Flags, v.Laser, v.Speed, v.Missile = b[0], b[1], b[2], b[3], b[4], b[5]
	v.Score = le.Uint32(b[6:])
	v.ChargeFrom = le.Uint32(b[10:])
	return nil
}

type healthCodec struct{}

func (healthCodec) Size() int { return 4 }
func (healthCodec) Append(b []byte, v *Health) []byte {
	return le.AppendUint16(le.AppendUint16(b, v.HP), v.MaxHP)
}
func (healthCodec) Parse(b []byte, v *Health) error {
	if len(b) != 4 {
		return sizeErr("Health", 4, len(b))
	}
	v.HP, v.MaxHP = le.Uint16(b), le.Uint16(b[2:])
	return nil
}

type forceCodec struct{}

func (forceCodec) Size() int { return 10 }
func (forceCodec) Append(b []byte, v *Force) []byte {
	return append(le.AppendUint64(b, uint64(v.Owner)), v.Mode, v.Level)
}
func (forceCodec) Parse(b []byte, v *Force) error {
	if len(b) != 10 {
		return sizeErr("Force", 10, len(b))
	}
	if b[8] > ForceBack {
		return &CodecError{Component: "Force", Field: "mode", Reason: fmt.Sprintf("%d is not 0 (detached), 1 (front) or 2 (back)", b[8])}
	}
	v.Owner = ecs.Entity(le.Uint64(b))
	v.Mode, v.Level = b[8], b[9]
	return nil
}

type bossCodec struct{}

func (bossCodec) Size() int                       { return 2 }
func (bossCodec) Append(b []byte, v *Boss) []byte { return append(b, v.Phase, v.WeakOpen) }
func (bossCodec) Parse(b []byte, v *Boss) error {
	if len(b) != 2 {
		return sizeErr("Boss", 2, len(b))
	}
	v.Phase, v.WeakOpen = b[0], b[1]
	return nil
}

type sizeCodec struct{}

func (sizeCodec) Size() int { return 4 }
func (sizeCodec) Append(b []byte, v *Size) []byte {
	return le.AppendUint16(le.AppendUint16(b, v.W), v.H)
}
func (sizeCodec) Parse(b []byte, v *Size) error {
	if len(b) != 4 {
		return sizeErr("Size", 4, len(b))
	}
	v.W, v.H = le.Uint16(b), le.Uint16(b[2:])
	return nil
}

type stageCodec struct{}

func (stageCodec) Size() int                             { return 1 }
func (stageCodec) Append(b []byte, v *StageState) []byte { return append(b, v.Section) }
func (stageCodec) Parse(b []byte, v *StageState) error {
	if len(b) != 1 {
		return sizeErr("Stage", 1, len(b))
	}
	v.Section = b[0]
	return nil
}

// Server-only codecs: used by Sim.Hash and for completeness of the registry.

type shipCodec struct{}

func (shipCodec) Size() int { return 33 }
func (shipCodec) Append(b []byte, v *Ship) []byte {
	b = append(b, uint8(v.Prev), uint8(v.Input), v.Cooldown)
	b = le.AppendUint16(b, v.Held)
	b = le.AppendUint16(b, v.Invuln)
	b = le.AppendUint16(b, v.Respawn)
	b = le.AppendUint64(b, uint64(v.Force))
	b = le.AppendUint64(b, uint64(v.Bits[0]))
	return le.AppendUint64(b, uint64(v.Bits[1]))
}
func (shipCodec) Parse(b []byte, v *Ship) error {
	if len(b) != 33 {
		return sizeErr("Ship", 33, len(b))
	}
	v.Prev, v.Input, v.Cooldown = Buttons(b[0]), Buttons(b[1]), b[2]
	v.Held, v.Invuln, v.Respawn = le.Uint16(b[3:]), le.Uint16(b[5:]), le.Uint16(b[7:])
	v.Force = ecs.Entity(le.Uint64(b[9:]))
	v.Bits[0], v.Bits[1] = ecs.Entity(le.Uint64(b[17:])), ecs.Entity(le.Uint64(b[25:]))
	return nil
}

type enemyCodec struct{}

func (enemyCodec) Size() int { return 40 }
func (enemyCodec) Append(b []byte, v *Enemy) []byte {
	b = append(b, v.Surface, v.State)
	b = le.AppendUint16(b, v.Timer)
	b = appendF32(b, v.WalkVX)
	b = append(b, v.Type, v.Drop)
	b = le.AppendUint32(b, v.Age)
	b = appendF32(b, v.BaseY)
	b = appendF32(b, v.Speed)
	b = appendF32(b, v.Amp)
	b = le.AppendUint16(b, v.FireCD)
	b = le.AppendUint16(b, v.FireIvl)
	b = le.AppendUint16(b, v.Score)
	return le.AppendUint64(b, uint64(v.HitBy))
}
func (enemyCodec) Parse(b []byte, v *Enemy) error {
	if len(b) != 40 {
		return sizeErr("Enemy", 40, len(b))
	}
	v.Surface, v.State, v.Timer, v.WalkVX = b[0], b[1], le.Uint16(b[2:]), getF32(b[4:])
	b = b[8:]
	v.Type, v.Drop = b[0], b[1]
	v.Age = le.Uint32(b[2:])
	v.BaseY, v.Speed, v.Amp = getF32(b[6:]), getF32(b[10:]), getF32(b[14:])
	v.FireCD, v.FireIvl, v.Score = le.Uint16(b[18:]), le.Uint16(b[20:]), le.Uint16(b[22:])
	v.HitBy = ecs.Entity(le.Uint64(b[24:]))
	return nil
}

type shotCodec struct{}

func (shotCodec) Size() int { return 5 }
func (shotCodec) Append(b []byte, v *Shot) []byte {
	return append(le.AppendUint16(b, v.Damage), v.Slot, v.Pierce, v.Hit)
}
func (shotCodec) Parse(b []byte, v *Shot) error {
	if len(b) != 5 {
		return sizeErr("Shot", 5, len(b))
	}
	v.Damage, v.Slot, v.Pierce, v.Hit = le.Uint16(b), b[2], b[3], b[4]
	return nil
}

type lifetimeCodec struct{}

func (lifetimeCodec) Size() int                           { return 2 }
func (lifetimeCodec) Append(b []byte, v *Lifetime) []byte { return le.AppendUint16(b, v.Ticks) }
func (lifetimeCodec) Parse(b []byte, v *Lifetime) error {
	if len(b) != 2 {
		return sizeErr("Lifetime", 2, len(b))
	}
	v.Ticks = le.Uint16(b)
	return nil
}

type forceCtlCodec struct{}

func (forceCtlCodec) Size() int { return 4 }
func (forceCtlCodec) Append(b []byte, v *ForceCtl) []byte {
	return append(b, v.Recall, v.Lock, v.Back, v.FireCD)
}
func (forceCtlCodec) Parse(b []byte, v *ForceCtl) error {
	if len(b) != 4 {
		return sizeErr("ForceCtl", 4, len(b))
	}
	v.Recall, v.Lock, v.Back, v.FireCD = b[0], b[1], b[2], b[3]
	return nil
}

type guideCodec struct{}

func (guideCodec) Size() int { return 13 }
func (guideCodec) Append(b []byte, v *Guide) []byte {
	b = append(b, v.Mode, v.Left, v.Surf)
	b = le.AppendUint16(b, v.Age)
	b = le.AppendUint32(b, uint32(v.Col))
	return appendF32(b, v.Speed)
}
func (guideCodec) Parse(b []byte, v *Guide) error {
	if len(b) != 13 {
		return sizeErr("Guide", 13, len(b))
	}
	v.Mode, v.Left, v.Surf = b[0], b[1], b[2]
	v.Age = le.Uint16(b[3:])
	v.Col = int32(le.Uint32(b[5:]))
	v.Speed = getF32(b[9:])
	return nil
}

type capsuleCodec struct{}

func (capsuleCodec) Size() int                          { return 4 }
func (capsuleCodec) Append(b []byte, v *Capsule) []byte { return le.AppendUint32(b, v.Age) }
func (capsuleCodec) Parse(b []byte, v *Capsule) error {
	if len(b) != 4 {
		return sizeErr("Capsule", 4, len(b))
	}
	v.Age = le.Uint32(b)
	return nil
}

type bossCtlCodec struct{}

func (bossCtlCodec) Size() int { return 29 }
func (bossCtlCodec) Append(b []byte, v *BossCtl) []byte {
	b = le.AppendUint32(b, v.Age)
	b = le.AppendUint32(b, v.PhaseAt)
	b = le.AppendUint16(b, v.FireCD)
	b = le.AppendUint16(b, v.OpenCD)
	b = le.AppendUint16(b, v.Dying)
	b = le.AppendUint16(b, v.Angle)
	b = le.AppendUint64(b, uint64(v.Weak))
	return append(appendF32(b, v.BaseY), v.Parts)
}
func (bossCtlCodec) Parse(b []byte, v *BossCtl) error {
	if len(b) != 29 {
		return sizeErr("BossCtl", 29, len(b))
	}
	v.Parts = b[28]
	v.Age, v.PhaseAt = le.Uint32(b), le.Uint32(b[4:])
	v.FireCD, v.OpenCD, v.Dying, v.Angle = le.Uint16(b[8:]), le.Uint16(b[10:]), le.Uint16(b[12:]), le.Uint16(b[14:])
	v.Weak = ecs.Entity(le.Uint64(b[16:]))
	v.BaseY = getF32(b[24:])
	return nil
}
