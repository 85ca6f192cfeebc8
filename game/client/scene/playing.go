package scene

// playingScreen is a game in progress: the in-game menu (CmdPause for a lone player), leaving,
// the end of the game (Results) or of its session (Lost). A lobby connection lost meanwhile is
// said with the results: the game runs over UDP.
type playingScreen struct{}

func init() { register(Playing, "playing", playingScreen{}) }

func (playingScreen) handle(m *Machine, ev Event) []Cmd {
	switch ev.Kind {
	case EvMenu:
		m.MenuOpen = !m.MenuOpen
		if m.Spectator {
			return nil // a spectator has no game to pause
		}
		return []Cmd{{Kind: CmdPause, Paused: m.MenuOpen}}
	case EvGameEnd:
		m.inSession, m.Resuming = false, false
		m.Scene, m.Result, m.timer, m.MenuOpen = Results, ev.Result, 0, false
		m.Reason = m.lobbyLost // why the lobby went (a server shutting down), shown with the results
		if m.lobbyLost != "" {
			m.connected, m.lobbyLost = false, "" // Enter goes to the title, not to a lobby that is gone
			return []Cmd{{Kind: CmdCloseSession}, {Kind: CmdClearTicket}, {Kind: CmdDisconnect}}
		}
		// the client keeps its own copy of the game (the server's GAME_ID push names it)
		return []Cmd{{Kind: CmdCloseSession}, {Kind: CmdClearTicket}, {Kind: CmdKeepReplay}}
	case EvDisconnected:
		words := LostWords(ev.Reason)
		if m.closing != "" {
			words = m.closing // the server said why it went
		}
		cmds := m.lose(words)
		m.Detail = ev.Reason              // the raw reason, for small print
		return append(cmds, m.probe()...) // a rejoin only if the lobby answers (lost.go)
	case EvLobbyLost:
		// The game runs over UDP; keep playing, the loss is reported when it ends. A player
		// whose server did not say it closes takes the place back (a lobby restarted while its
		// hosts play on, docs/DEPLOY.md): the room comes back after the game.
		m.lobbyLost = m.explain(ev.Err)
		if m.closing == "" && !m.Spectator && !m.Resuming && m.Code != "" {
			m.Resuming = true
			return []Cmd{{Kind: CmdResumeLobby, Addr: m.Addr, Code: m.Code}}
		}
	case EvResumed:
		m.Resuming, m.connected, m.lobbyLost = false, true, ""
	case EvResumeFailed:
		m.Resuming = false
		if ev.Err != nil {
			m.Detail = ev.Err.Error()
		}
	case EvRetry:
		if m.Spectator {
			return nil // a spectator has no game of its own to retry
		}
		// The game is left and played again: the room waits for the lobby's START push
		// (RETRY, docs/PROTOCOL.md §2.4.18); a refusal (not solo) is said there.
		m.inSession = false
		m.Scene, m.Busy, m.Error, m.MenuOpen = Room, "Restarting", "", false
		return []Cmd{{Kind: CmdCloseSession}, {Kind: CmdClearTicket}, {Kind: CmdRetry}, {Kind: CmdWaitStart}}
	case EvLeaveGame:
		m.inSession = false
		m.Scene, m.Code, m.Busy, m.MenuOpen, m.Spectator = Browser, "", "Loading lobbies", false, false
		return []Cmd{{Kind: CmdCloseSession}, {Kind: CmdLeave}, {Kind: CmdListLobbies}}
	}
	return nil
}
