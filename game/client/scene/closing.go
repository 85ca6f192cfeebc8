package scene

// serverClosing handles EvServerClosing: the server closes (why, in player words). A game in
// progress plays on to its GAME_END, whose results then say why and lead to the title; the
// results of a game that just ended say it at once; any other scene that needs the lobby goes
// to Lost with the reason, whose Continue leads to the title (where Play connects again). A
// replay being watched, and the screens that need no server, carry on.
func (m *Machine) serverClosing(reason string) []Cmd {
	m.closing = reason
	if !m.connected {
		return nil
	}
	switch m.Scene {
	case Playing:
		m.lobbyLost = reason // said with the results at GAME_END (aborted)
		return nil
	case Results:
		m.connected, m.Reason = false, reason // Enter goes to the title, not to a lobby that is gone
		return []Cmd{{Kind: CmdDisconnect}}
	case Watching:
		m.connected, m.watchFrom = false, Title
		return []Cmd{{Kind: CmdDisconnect}}
	case Title, Settings, Controls, Replays:
		m.connected = false
		return []Cmd{{Kind: CmdDisconnect}}
	}
	return m.lose(reason)
}
