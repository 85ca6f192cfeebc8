package scene

// hallScreen is the Hall of fame: the server's best and recent games, a page at a time
// (CmdGetScores), one watched by downloading its replay (CmdFetchReplay, then Watching). From
// the title it has a lobby connection of its own.
type hallScreen struct{}

func init() { register(HallOfFame, "hall-of-fame", hallScreen{}) }

func (hallScreen) handle(m *Machine, ev Event) []Cmd {
	switch ev.Kind {
	case EvConnected:
		if m.Busy != "Connecting" {
			return []Cmd{{Kind: CmdDisconnect}}
		}
		m.connected, m.Busy = true, "Loading scores"
		return []Cmd{{Kind: CmdGetScores, Hall: m.Hall}}
	case EvConnectFailed:
		m.fail(ev.Err)
	case EvHallQuery:
		if !m.connected || m.Busy == "Fetching replay" || m.Busy == "Opening replay" {
			return nil
		}
		m.Hall, m.Busy, m.Error = ev.Hall, "Loading scores", ""
		return []Cmd{{Kind: CmdGetScores, Hall: ev.Hall}}
	case EvScores:
		m.Games = ev.Games
		if m.Busy == "Loading scores" {
			m.Busy = ""
		}
	case EvScoresFailed:
		m.Games = nil
		m.fail(ev.Err)
	case EvWatchGame:
		if m.Busy == "" && m.connected && ev.Code != "" {
			m.Busy, m.Error = "Fetching replay", ""
			return []Cmd{{Kind: CmdFetchReplay, Code: ev.Code}}
		}
	case EvReplayFetched:
		if m.Busy == "Fetching replay" {
			return m.watch(ev.Path)
		}
	case EvFetchFailed:
		m.fail(ev.Err)
	case EvWatchReady:
		m.Scene, m.Busy, m.Error, m.MenuOpen = Watching, "", "", false
	case EvWatchFailed:
		m.Busy, m.Error = "", "Cannot play this replay: "+ev.Err.Error()
	case EvBack:
		m.Busy, m.Error, m.Games = "", "", nil
		if m.hallFrom == Browser && m.connected {
			m.Scene, m.Busy = Browser, "Loading lobbies"
			return []Cmd{{Kind: CmdListLobbies}}
		}
		m.Scene = Title
		if m.connected {
			m.connected = false
			return []Cmd{{Kind: CmdDisconnect}}
		}
	}
	return nil
}

// openHall shows the Hall of fame (its first view); from the title it dials the lobby of the
// server in use first (the connection is closed again on Back).
func (m *Machine) openHall() []Cmd {
	m.hallFrom = m.Scene
	m.Scene, m.Error, m.Detail, m.Games, m.Hall = HallOfFame, "", "", nil, Hall{}
	if !m.connected {
		m.Busy = "Connecting"
		return []Cmd{{Kind: CmdDialLobby, Addr: m.Addr}}
	}
	m.Busy = "Loading scores"
	return []Cmd{{Kind: CmdGetScores, Hall: m.Hall}}
}
