// Package assets embeds the game's data files. It holds data only: no
// ebiten import, no decoding.
//
// Stages holds stages/*.json, the stage scripts read by game.LoadStage
// ("stage1" is the full first stage, "short" a stage of a few waves and a
// small boss used by tests and bots). Paths inside the FS are
// "stages/<name>.json".
package assets

import "embed"

// Stages is the embedded stage directory: stages/stage1.json, stages/short.json, ...
//
//go:embed stages/*.json
var Stages embed.FS

// StagePath returns the path of the named stage inside Stages
// (StagePath("short") == "stages/short.json").
func StagePath(name string) string { return "stages/" + name + ".json" }

// Sprites is the pixel art written by the sprite generator (assets/gen/sprites, go generate):
// sprites/atlas.png with its index sprites/atlas.json, the terrain tiles
// sprites/tile-<theme>-<fill|lip>.png and the parallax layers sprites/layer-<theme>-<far|mid|near>.png.
//
//go:embed sprites/*.png sprites/atlas.json
var Sprites embed.FS
