package session

import "time"

// HostGoneReason is why a session ends once its lobby ended the game (END) while the game's
// host had sent no GAME_END: the host is gone (a split server, docs/DEPLOY.md).
const HostGoneReason = "the game host stopped answering: the lobby ended the game"

// EndedByLobby tells the core that the lobby pushed END for this game while it runs without a
// GAME_END from the game: its host is gone (killed, or its link to the lobby cut). As after
// LobbyLost, a silence of InterruptedAfter (1 s) then ends the session, with HostGoneReason; a
// game whose datagrams still come goes on (its GAME_END is on the way).
func (c *Client) EndedByLobby(now time.Duration) {
	c.hostGone = true
	c.LobbyLost(now)
}

// EndedByLobby is Client.EndedByLobby on the session's core.
func (s *Session) EndedByLobby() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.c.EndedByLobby(s.now())
}
