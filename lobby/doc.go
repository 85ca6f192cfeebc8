// Package lobby implements the rtype TCP lobby (docs/PROTOCOL.md §2, seed
// 004 §2): a CRLF-terminated text protocol where a client authenticates,
// lists, creates and joins lobbies of up to 4 players, and starts a game; the
// server then pushes each member the UDP port of the game instance and a
// per-player session token.
//
// The package has four parts:
//   - the line codec: ParseCommand/AppendCommand for client commands and
//     server pushes, ParseResponse/AppendResponse for responses,
//     ParseLobbies/AppendLobbies for the GET_LOBBIES body;
//   - Core, the server's protocol core: a state machine fed connection
//     events and lines with the time (Open, Line, Closed, Tick, GameEnded,
//     Answered, Started, Called), which leaves the lines to send in its Outbox, hands
//     games to a Starter (net/instance.Manager; or, AsyncStart, asks its runtime
//     to start them, Out.Start, when the Starter waits on the network: a game
//     host, starting.go; likewise its games' Rejoin and Spectate, Out.Call,
//     calling.go) and asks its runtime the hall-of-fame questions
//     (Out.Request: it never waits for the database, hall.go); its rules are
//     tested in virtual time;
//   - Server, its runtime: it accepts connections, reads and writes lines,
//     runs the timers, watches the games and puts the Core's requests to its
//     Hall (lobby/scores) on goroutines;
//   - Client, used by net/bot and game/client.
package lobby
