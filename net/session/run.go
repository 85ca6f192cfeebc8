package session

import "github.com/rtype/rtype/game"

// Arcade runs (docs/PROTOCOL.md §2.4.15, §4.1): the game plays the stages of ClientConfig.Run
// one after the other; the stage singleton's Kind variant says which (and whether the
// stage-clear tally is on), so the terrain a client places crawling lasers on, and draws, is
// that stage's.

// stageOf returns the stage singleton's Kind variant and scroll (its Position x) in the mirror;
// found false before the singleton has arrived.
func (c *Client) stageOf() (variant uint8, scroll float32, found bool) {
	for it := c.qKind.Iter(); it.Next(); {
		if k, p := it.Get(); k.Kind == game.KindStage {
			return k.Variant, p.X, true
		}
	}
	return 0, 0, false
}

// terrainOf returns the terrain of the run's stage index (Run), or Terrain in a one-stage game
// (or an index outside the run: a server that sent more stages than the lobby said).
func (c *Client) terrainOf(index int) *game.Terrain {
	if len(c.cfg.Run) > 0 {
		if index >= 0 && index < len(c.cfg.Run) {
			return c.cfg.Run[index]
		}
		return nil
	}
	return c.cfg.Terrain
}

// Stage returns the index of the stage being played in the game's arcade run (0 for a one-stage
// game, or before the stage singleton has arrived), whether the stage-clear tally after it is on,
// and that stage's terrain.
func (v *View) Stage() (index int, tally bool, terrain *game.Terrain) {
	variant, _, _ := v.c.stageOf()
	index, tally = game.RunVariant(variant)
	return index, tally, v.c.terrainOf(index)
}
