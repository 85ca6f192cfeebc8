// Package lobby implements the rtype TCP lobby (docs/PROTOCOL.md §2, seed
// 004 §2): a CRLF-terminated text protocol where a client authenticates,
// lists, creates and joins lobbies of up to 4 players, and starts a game; the
// server then pushes each member the UDP port of the game instance and a
// per-player session token.
//
// The package has three parts:
//   - the line codec: ParseCommand/AppendCommand for client commands and
//     server pushes, ParseResponse/AppendResponse for responses,
//     ParseLobbies/AppendLobbies for the GET_LOBBIES body;
//   - Server, which serves the lobby over a net.Listener and starts games
//     through a Starter (net/instance.Manager);
//   - Client, used by net/bot and game/client.
package lobby
