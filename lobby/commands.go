package lobby

import "time"

// command is how the Core handles one client command: authed commands carry the user UUID
// that AUTHENTICATE gave this connection as their header (checked before handle runs).
type command struct {
	authed bool
	handle func(c *Core, now time.Duration, cs *connState, cmd Command)
}

// commands are the client commands the lobby answers (docs/PROTOCOL.md §2.4). Adding one is a
// Core method in the file of its part and one line here.
var commands = map[string]command{
	CmdAuthenticate:  {false, (*Core).authenticate}, // membership.go
	CmdJoinLobby:     {true, (*Core).join},          // membership.go
	CmdLeave:         {true, (*Core).leaveCmd},      // membership.go
	CmdGetLobbies:    {true, (*Core).getLobbies},    // listing.go
	CmdChat:          {true, (*Core).chat},          // listing.go
	CmdGetStages:     {true, (*Core).getStages},     // stages.go
	CmdSetStage:      {true, (*Core).setStage},      // stages.go
	CmdGetStage:      {true, (*Core).getStage},      // stages.go
	CmdSetDifficulty: {true, (*Core).setDifficulty}, // difficulty.go
	CmdSetSection:    {true, (*Core).setSection},    // practice.go
	CmdSetLives:      {true, (*Core).setLives},      // practice.go
	CmdRetry:         {true, (*Core).retry},         // practice.go
	CmdStart:         {true, (*Core).start},         // games.go
	CmdRejoin:        {true, (*Core).rejoin},        // rejoin.go
	CmdGetScores:     {true, (*Core).getScores},     // hall.go
	CmdGetGames:      {true, (*Core).getGames},      // hall.go
	CmdGetReplay:     {true, (*Core).getReplay},     // hall.go
}
