package instance

import "github.com/rtype/rtype/game/rules"

// Abort ends the game as aborted: its players get GAME_END (result 2) and Done closes once it
// is delivered. A game host calls it when the lobby that started the game is gone
// (net/fleet): nobody could learn the game's end nor rejoin it.
func (in *Instance) Abort() { in.stop(rules.ResultAborted) }
