package client

// pauseChoice is what an in-game menu item does.
type pauseChoice int

const (
	pauseResume pauseChoice = iota // close the menu (and end the pause)
	pauseRetry                     // a solo game starts again (scene.EvRetry: RETRY, docs/PROTOCOL.md §2.4.18)
	pauseLeave                     // leave the game
)
