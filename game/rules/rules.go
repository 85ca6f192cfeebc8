// Package rules holds the terms of a game that the lobby, the hall of fame and the simulation
// share: the player slots, the difficulty levels with what each changes, and how a game ends.
// It is a leaf, so that the lobby and the hall of fame (lobby, lobby/scores) know them without
// linking the simulation (package game, which plays by them).
package rules

// MaxPlayers is the number of player slots of a game (slot = colour index 0..3), the largest
// lobby (docs/PROTOCOL.md §2.4.3).
const MaxPlayers = 4

// Result is how a game ended (wire value of GAME_END, the END push, the hall of fame).
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
