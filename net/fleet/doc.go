// Package fleet is the control channel between a lobby and its game hosts when they run as
// separate processes (rtype-server -role lobby / -role host; docs/CONTROL.md): an
// authenticated, encrypted connection (a shared-secret HMAC handshake, AES-256-GCM frames)
// carrying the game hand-over — the stage files a host lacks, start, rejoin, spectate, drop one
// way; replies, ends (with records and replays), dropped spectators and the host's load the
// other.
//
// Host serves a host's games (a handoff.Starter, net/instance.Manager) to authenticated lobbies;
// Remote is the lobby's handoff.Starter over a list of hosts, choosing the least loaded
// (Choose, a pure function) and giving the lobby each game as a RemoteGame.
package fleet
