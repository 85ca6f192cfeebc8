package client

import (
	"image/color"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
)

// mountFlip is groundFlip for a turret on a structure of the terrain (a warship's deck or keel,
// stage 3): upright when a block is right below its box, upside down when one is right above it,
// else by the surface it spawned nearer (groundFlip).
func (a *app) mountFlip(e ecs.Entity, v uint8, x, y, h float32) float32 {
	if v == game.EnemyTurret {
		if t := a.stageTerrain(); t != nil && len(t.Blocks) > 0 {
			wx := x + a.draw.scroll
			const reach = 10 // px between the box and the structure it stands on
			if t.BlockAt(wx-4, y+h/2, wx+4, y+h/2+reach) >= 0 {
				return 1
			}
			if t.BlockAt(wx-4, y-h/2-reach, wx+4, y-h/2) >= 0 {
				return -1
			}
		}
	}
	return a.groundFlip(e, v, y)
}

// shadeHull darkens the lower part of every big block of a warship's hull (stage 3) in three
// steps, so the hull reads as a lit deck above a belly in shadow rather than a flat wall.
func (a *app) shadeHull(p painter, t *game.Terrain, scroll float32) {
	if t.Theme != game.ThemeWarship {
		return
	}
	for _, b := range t.Blocks {
		x0 := b.X - scroll
		if b.H < 200 || x0 > Width || x0+b.W < 0 {
			continue
		}
		for i, alpha := range [...]uint8{36, 72, 108} {
			y := b.Y + b.H*(0.5+0.15*float32(i))
			p.rect(x0, y, b.W, b.H*0.15, color.RGBA{0, 0, 0, alpha})
		}
	}
}
