package client

import (
	"fmt"
	"image/color"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/art"
	"github.com/rtype/rtype/game/client/fx"
	"github.com/rtype/rtype/game/client/synth"
)

// kindLook is how the client shows entities of one kind: the atlas animation of each variant,
// the drawing order, the sounds and the debris. kindLooks holds one per game.EntityKind (the
// client's half of the kind table; the variants are game.KindInfo.Variants), and the drawing
// code reads it instead of switching on the kind; how each kind is drawn (drawItem) is still
// code. TestEveryKindHasItsLook checks the entries against the game's kinds and the atlas.
type kindLook struct {
	// frames names the animation of variant n in the atlas: "<frames>/<look(n)>" (look nil:
	// n), or frames itself for every variant when single. "": none (a grey box is drawn).
	frames string
	single bool
	look   func(v uint8) uint8
	// layer orders drawing: layer 0 first (at the back) .. numLayers-1 last.
	layer int
	// appear is the sound of a new entity (nil: silent); with near, only within nearSound
	// px of the own ship (the other players' streams of shots would drown the mix).
	appear func(v uint8) synth.Effect
	near   bool
	// vanish is the sound of one that disappears on screen (destroyed; nil: silent) and debris
	// the particles it leaves, which with edge > 0 it leaves only more than edge px inside
	// the left and right edges (a bullet that flies off the screen leaves none).
	vanish func(v uint8) synth.Effect
	debris []burst
	edge   float32
}

// burst is a spray of debris particles (fx.Particles.Burst) of colour col, or with byVariant
// of the colour of the entity's variant (none for a variant past its end).
type burst struct {
	n         int
	speed     float32
	life      int
	size      float32
	col       fx.Color
	byVariant []color.RGBA
}

// nearSound is how near the own ship (px) a new entity that sounds only near it must be.
const nearSound = 200

// kindLooks holds the kindLook of every kind, indexed by game.EntityKind.
var kindLooks = [game.NumKinds]kindLook{
	game.KindNone:  {layer: 3},
	game.KindStage: {layer: 3}, // never drawn
	game.KindBoss: {
		frames: "boss", layer: 0,
		vanish: always(synth.ExplosionLarge),
		debris: []burst{{n: 200, speed: 18, life: 70, size: 9, col: rgb(255, 180, 80)}},
	},
	game.KindBossPart: {frames: "part", layer: 0},
	game.KindBossWeakPoint: {
		frames: "weak", single: true, layer: 1, // closed, open: the frame follows the boss
		vanish: always(synth.ExplosionMedium),
		debris: enemyDebris,
	},
	game.KindEnemy: {
		frames: "enemy", layer: 2,
		vanish: always(synth.ExplosionSmall),
		debris: enemyDebris,
	},
	game.KindPowerUp: {
		frames: "power", layer: 3,
		debris: []burst{{n: 20, speed: 7, life: 25, size: 4, col: rgb(140, 220, 255)}},
	},
	game.KindPlayerBullet: {
		frames: "shot", look: game.ShotLook, layer: 4,
		appear: always(synth.Shot), near: true,
		debris: bulletDebris, edge: 20,
	},
	game.KindBeam: {
		frames: "beam", layer: 4,
		appear: func(v uint8) synth.Effect { return synth.BeamEffect(int(v)) },
	},
	game.KindPlayer: {
		frames: "ship", layer: 5, // by slot, drawn by Player.Slot
		debris: []burst{
			{n: 60, speed: 12, life: 50, size: 7, byVariant: art.SlotColors[:]},
			{n: 40, speed: 8, life: 40, size: 5, col: rgb(255, 255, 255)},
		},
	},
	game.KindForce: {frames: "force", layer: 6},
	game.KindBit:   {frames: "bit", single: true, layer: 6},
	game.KindEnemyBullet: {
		frames: "ebullet", layer: 7,
		debris: bulletDebris, edge: 20,
	},
	game.KindExplosion: {
		frames: "explosion", layer: 8, // the animation runs once over the variant's Life
		appear: explosionEffect,
	},
}

// noLook is the kindLook of a kind past game.NumKinds.
var noLook = kindLook{layer: 3}

// enemyDebris is what an enemy (or the boss's weak point) leaves: sparks and pieces of the colour
// of its variant (art.EnemyColors; the weak point's closed and open variants take the first two).
var enemyDebris = []burst{
	{n: 22, speed: 9, life: 28, size: 5, col: rgb(255, 200, 90)},
	{n: 10, speed: 6, life: 36, size: 6, byVariant: art.EnemyColors[:]},
}

// bulletDebris is the spark of a bullet that hit something.
var bulletDebris = []burst{{n: 4, speed: 4, life: 8, size: 2.5, col: rgb(255, 255, 200)}}

// always is a sound that does not depend on the variant.
func always(e synth.Effect) func(uint8) synth.Effect { return func(uint8) synth.Effect { return e } }

// lookOf is the kindLook of k.
func lookOf(k game.EntityKind) *kindLook {
	if int(k) < len(kindLooks) {
		return &kindLooks[k]
	}
	return &noLook
}

// name is the atlas animation of variant v.
func (lk *kindLook) name(v uint8) string {
	if lk.single {
		return lk.frames
	}
	if lk.look != nil {
		v = lk.look(v)
	}
	return fmt.Sprintf("%s/%d", lk.frames, v)
}

// colour is the burst's colour for variant v (ok false: none for that variant).
func (b *burst) colour(v uint8) (fx.Color, bool) {
	if b.byVariant == nil {
		return b.col, true
	}
	if int(v) < len(b.byVariant) {
		c := b.byVariant[v]
		return rgb(c.R, c.G, c.B), true
	}
	return fx.Color{}, false
}
