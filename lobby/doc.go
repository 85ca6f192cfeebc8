// Package lobby is the rtype TCP lobby's protocol (docs/PROTOCOL.md §2, seed 004 §2) as both ends
// share it, and the lobby's client: a CRLF-terminated text protocol where a client
// authenticates, lists, creates and joins lobbies of up to 4 players, and starts a game; the
// server then pushes each member the UDP port of the game instance and a per-player session
// token.
//
// The package has two parts:
//   - the line codec: ParseCommand/AppendCommand for client commands and server pushes,
//     ParseResponse/AppendResponse for responses, the bodies (ParseLobbies/AppendLobbies,
//     stages, hall-of-fame entries, replay parts), the text of CHAT (EncodeText) and the
//     LineReader both ends read lines with;
//   - Client, used by net/bot, net/load and game/client.
//
// The server (its pure Core and the Server runtime) is package lobby/lobbyserver, so that a
// program that only plays (the desktop client, the bot) links neither the server nor the hall
// of fame's database.
package lobby
