package client

// lostChoice is what a Lost screen item does.
type lostChoice int

const (
	lostRejoin lostChoice = iota // dial the lost game again with the ticket
	lostRetry                    // check again whether the lobby server answers (scene.EvRetryConnect)
	lostBack                     // back to the title
)
