// Package lobbyserver is the rtype TCP lobby's server (docs/PROTOCOL.md §2): the protocol and
// its codec are package lobby, which the clients link without this one.
//
// The package has two parts:
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
//     Hall (lobby/scores/scoredb) on goroutines.
//
// Its tests also drive lobby.Client against a Server over loopback.
package lobbyserver
