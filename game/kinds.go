package game

import "github.com/rtype/rtype/game/rules"

// KindInfo is what is fixed for every entity of one EntityKind: its name, its variants' sizes
// and how the simulation's systems, the autopilot and the respawn rule treat it. The table of
// them (EntityKind.Info) is where a kind's facts are declared: the systems read it instead of
// switching on the kind, and a new kind is one more entry. It is read-only.
type KindInfo struct {
	// Name is the kind's name in logs and tests (EntityKind.String).
	Name string
	// Variants are the kind's variants by Kind.Variant (Variant). A variant past the end, or
	// one with a 0×0 size (level 0 of a Force or a beam), has no look: clients draw no sprite
	// for it, and the simulation never makes one (docs/PROTOCOL.md §4.1). The stage
	// singleton's variant is a run state (RunTally), not a look: it has none.
	Variants []VariantInfo
	// Hostile kinds hurt a ship that touches them: the autopilot steers clear of them, a
	// respawning ship is placed away from them, and a stage-clear tally removes them.
	Hostile bool
	// ExpiresOutside kinds are destroyed as soon as their Position leaves the field
	// (ExpiresOutsideField).
	ExpiresOutside bool

	// target is the grid layer sysCollide inserts it in as a target (layEnemy ... layPower);
	// 0: not a target.
	target uint8
	// probe is its probe class in sysCollide (probeForce ... probeShip); probeNone: not a probe.
	probe probeClass
	// stopsAtTerrain kinds are destroyed when they touch terrain (but variants that pass it).
	stopsAtTerrain bool
	// selfMoved kinds are moved by their own system (sysInput, sysForce, sysBits), not by
	// sysMove from their Velocity (which clients extrapolate with).
	selfMoved bool
	// auto is what the autopilot makes of it besides a Hostile threat.
	auto autoRole
}

// VariantInfo is what is fixed for one variant of a kind.
type VariantInfo struct {
	// Size is the hitbox and drawn size in virtual px (SizeOf).
	Size Size
	// Life is how many ticks an entity of this variant lives (explosions; 0: until destroyed).
	// Clients run an explosion's animation over it.
	Life uint16
	// Ground enemies stand on the floor or hang from the ceiling (turret, walker, hopper;
	// docs/PROTOCOL.md §4.3).
	Ground bool
	// passesTerrain: a variant of a kind that stopsAtTerrain which survives the contact (blue
	// lasers bounce, yellow ones crawl).
	passesTerrain bool
}

// autoRole is what Autopilot makes of an entity besides avoiding it when it is Hostile.
type autoRole uint8

const (
	autoNone     autoRole = iota
	autoTarget            // an enemy to line up with and shoot
	autoBossCore          // the boss's weak point: where it is and whether it is open
	autoPickup            // a capsule to fly into
	autoForce             // a Force (its own: whether it is attached)
	autoScroll            // the stage singleton: the scroll and its speed
)

// kinds holds the KindInfo of every kind, indexed by EntityKind.
var kinds = [NumKinds]KindInfo{
	KindNone: {Name: "none"},
	KindPlayer: {
		Name:      "player",
		Variants:  same(rules.MaxPlayers, Size{shipW, shipH}), // by slot
		probe:     probeShip,
		selfMoved: true,
	},
	KindForce: {
		Name:      "force",
		Variants:  levels(Size{forceSize, forceSize}),
		probe:     probeForce,
		selfMoved: true,
		auto:      autoForce,
	},
	KindPlayerBullet: {
		Name:           "player-bullet",
		Variants:       shotVariants(),
		ExpiresOutside: true,
		probe:          probeShot,
		stopsAtTerrain: true,
	},
	KindBeam: {
		Name:           "beam",
		Variants:       beamVariants(),
		ExpiresOutside: true,
		probe:          probeShot,
		stopsAtTerrain: true,
	},
	KindEnemyBullet: {
		Name:           "enemy-bullet",
		Variants:       []VariantInfo{BulletSmall: {Size: Size{16, 16}}, BulletBig: {Size: Size{24, 24}}},
		Hostile:        true,
		ExpiresOutside: true,
		target:         layEBullet,
		stopsAtTerrain: true,
	},
	KindEnemy: {
		Name:           "enemy",
		Variants:       enemyVariants(),
		Hostile:        true,
		ExpiresOutside: true,
		target:         layEnemy,
		auto:           autoTarget,
	},
	KindBoss: { // the body: blocks shots, kills ships, cannot be destroyed
		Name:     "boss",
		Variants: bossVariants(),
		Hostile:  true,
		target:   layBoss,
	},
	KindBossWeakPoint: {
		Name:     "boss-weak-point",
		Variants: same(2, Size{weakPointSize, weakPointSize}), // closed, open
		Hostile:  true,
		target:   layWeak,
		auto:     autoBossCore,
	},
	KindPowerUp: {
		Name:           "power-up",
		Variants:       same(numPowers, Size{powerUpSize, powerUpSize}),
		ExpiresOutside: true,
		target:         layPower,
		auto:           autoPickup,
	},
	KindExplosion: {
		Name: "explosion",
		Variants: []VariantInfo{
			ExplosionSmall: {Size: Size{64, 64}, Life: 24},
			ExplosionBig:   {Size: Size{128, 128}, Life: 40},
			ExplosionBoss:  {Size: Size{256, 256}, Life: 30},
		},
	},
	KindStage: {Name: "stage", auto: autoScroll},
	KindBit: {
		Name:      "bit",
		Variants:  same(2, Size{bitSize, bitSize}), // above, below its ship
		probe:     probeBit,
		selfMoved: true,
	},
	KindBossPart: { // the tail and tentacles: block shots, kill ships, cannot be destroyed
		Name: "boss-part",
		Variants: []VariantInfo{
			PartTail:        {Size: Size{64, 64}},
			PartTailTip:     {Size: Size{72, 72}},
			PartTentacle:    {Size: Size{56, 56}},
			PartTentacleTip: {Size: Size{64, 64}},
		},
		Hostile: true,
		target:  layBoss,
	},
}

// Info is the KindInfo of k; a kind past NumKinds has KindNone's.
func (k EntityKind) Info() *KindInfo {
	if int(k) < len(kinds) {
		return &kinds[k]
	}
	return &kinds[KindNone]
}

// Variant is the VariantInfo of variant v, and whether v has a look (a size).
func (ki *KindInfo) Variant(v uint8) (VariantInfo, bool) {
	if int(v) < len(ki.Variants) {
		vi := ki.Variants[v]
		return vi, vi.Size.W > 0 && vi.Size.H > 0
	}
	return VariantInfo{}, false
}

// same is n variants of size sz.
func same(n int, sz Size) []VariantInfo {
	out := make([]VariantInfo, n)
	for i := range out {
		out[i].Size = sz
	}
	return out
}

// levels are the variants of a kind whose variant is a level 1..maxForceLevel of size sz
// (level 0 has no look).
func levels(sz Size) []VariantInfo {
	out := same(1+maxForceLevel, sz)
	out[0] = VariantInfo{}
	return out
}

// laserSizes is the hitbox of each laser shot by colour (LaserRed..LaserYellow) and level 1..3.
var laserSizes = [4][4]Size{
	LaserRed:    {{}, {64, 28}, {80, 40}, {96, 56}}, // helix envelope
	LaserBlue:   {{}, {40, 12}, {52, 16}, {64, 20}}, // angled reflecting beams
	LaserYellow: {{}, {36, 14}, {44, 18}, {52, 22}}, // crawling beams
}

// shotVariants are the KindPlayerBullet variants: the plain shots, the lasers by colour and
// level (laserSizes), and the crawling lasers, which have the size of the yellow laser of
// their level (ShotLook).
func shotVariants() []VariantInfo {
	out := make([]VariantInfo, NumShotVariants)
	out[ShotNormal].Size = Size{32, 10}
	out[ShotForce].Size = Size{24, 12}
	out[ShotMissile].Size = Size{28, 12}
	for v := range out {
		if colour, level, ok := LaserOf(uint8(v)); ok {
			out[v].Size = laserSizes[colour][level]
			out[v].passesTerrain = colour == LaserBlue || colour == LaserYellow
		}
	}
	return out
}

// enemyVariants are the KindEnemy variants: their sizes are in enemyDefaults (with their other
// figures), the ground kinds are isGround's.
func enemyVariants() []VariantInfo {
	out := make([]VariantInfo, numEnemyKinds)
	for v := range out {
		out[v] = VariantInfo{Size: Size{enemyDefaults[v].w, enemyDefaults[v].h}, Ground: isGround(uint8(v))}
	}
	return out
}

// bossVariants are the KindBoss variants: their body sizes are bossGeom's.
func bossVariants() []VariantInfo {
	out := make([]VariantInfo, len(bossGeom))
	for v, g := range bossGeom {
		out[v].Size = Size{g.w, g.h}
	}
	return out
}

// beamVariants are the KindBeam variants: charge levels 1..3 (beamLevels).
func beamVariants() []VariantInfo {
	out := make([]VariantInfo, len(beamLevels))
	for v := 1; v < len(beamLevels); v++ {
		out[v].Size = Size{beamLevels[v].w, beamLevels[v].h}
	}
	return out
}
