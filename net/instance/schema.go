package instance

import (
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/net/wire"
)

// The wire and the game declare the same facts twice where the wire package must not import the
// game (it is the protocol alone, docs/PROTOCOL.md); these compile-time checks tie them: a
// constant index out of [1]int's range does not compile, so each line breaks the build when the
// two sides differ. The component sizes are tied by TestSchemaMatchesGame (the game's codecs
// give their sizes at run time).
var (
	_ = [1]int{}[wire.ResultDefeat-uint8(rules.ResultDefeat)]
	_ = [1]int{}[wire.ResultVictory-uint8(rules.ResultVictory)]
	_ = [1]int{}[wire.ResultAborted-uint8(rules.ResultAborted)]

	_ = [1]int{}[wire.CompPosition-uint16(game.CompPosition)]
	_ = [1]int{}[wire.CompVelocity-uint16(game.CompVelocity)]
	_ = [1]int{}[wire.CompKind-uint16(game.CompKind)]
	_ = [1]int{}[wire.CompPlayer-uint16(game.CompPlayer)]
	_ = [1]int{}[wire.CompHealth-uint16(game.CompHealth)]
	_ = [1]int{}[wire.CompForce-uint16(game.CompForce)]
	_ = [1]int{}[wire.CompBoss-uint16(game.CompBoss)]
	_ = [1]int{}[wire.CompStage-uint16(game.CompStage)]

	_ = [1]int{}[wire.ButtonsMask-uint8(game.BtnUp|game.BtnDown|game.BtnLeft|game.BtnRight|game.BtnFire|game.BtnForce)]
)
