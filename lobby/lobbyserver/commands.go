package lobbyserver

import (
	"time"

	"github.com/rtype/rtype/lobby"
)

// command is how the Core handles one client command: authed commands carry the user UUID
// that AUTHENTICATE gave this connection as their header (checked before handle runs).
type command struct {
	authed bool
	handle func(c *Core, now time.Duration, cs *connState, cmd lobby.Command)
}

// commands are the client commands the lobby answers (docs/PROTOCOL.md §2.4). Adding one is a
// Core method in the file of its part and one line here.
var commands = map[string]command{
	lobby.CmdAuthenticate:  {false, (*Core).authenticate}, // membership.go
	lobby.CmdJoinLobby:     {true, (*Core).join},          // membership.go
	lobby.CmdLeave:         {true, (*Core).leaveCmd},      // membership.go
	lobby.CmdGetLobbies:    {true, (*Core).getLobbies},    // listing.go
	lobby.CmdChat:          {true, (*Core).chat},          // listing.go
	lobby.CmdGetStages:     {true, (*Core).getStages},     // stages.go
	lobby.CmdSetStage:      {true, (*Core).setStage},      // stages.go
	lobby.CmdGetStage:      {true, (*Core).getStage},      // stages.go
	lobby.CmdSetDifficulty: {true, (*Core).setDifficulty}, // difficulty.go
	lobby.CmdSetSection:    {true, (*Core).setSection},    // practice.go
	lobby.CmdSetLives:      {true, (*Core).setLives},      // practice.go
	lobby.CmdRetry:         {true, (*Core).retry},         // practice.go
	lobby.CmdStart:         {true, (*Core).start},         // games.go
	lobby.CmdRejoin:        {true, (*Core).rejoin},        // rejoin.go
	lobby.CmdResume:        {true, (*Core).resume},        // resume.go
	lobby.CmdGetScores:     {true, (*Core).getScores},     // hall.go
	lobby.CmdGetGames:      {true, (*Core).getGames},      // hall.go
	lobby.CmdGetReplay:     {true, (*Core).getReplay},     // hall.go
	lobby.CmdRTCOffer:      {true, (*Core).rtcOffer},      // rtc.go
}
