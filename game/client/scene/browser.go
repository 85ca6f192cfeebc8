package scene

// BrowserRefreshTicks is how often (60 Hz ticks) the lobby browser lists the lobbies again by
// itself (3 s).
const BrowserRefreshTicks = 180

// browserScreen is the lobby browser (GET_LOBBIES, refreshed by itself every
// BrowserRefreshTicks): join a lobby of the list or by code, create one, open the Hall of fame.
type browserScreen struct{}

func init() { register(Browser, "browser", browserScreen{}) }

func (browserScreen) handle(m *Machine, ev Event) []Cmd {
	switch ev.Kind {
	case EvTick:
		// The list refreshes itself every BrowserRefreshTicks, without a spinner.
		if m.refreshIn--; m.refreshIn <= 0 && m.Busy == "" && !m.quietList && !m.auto.On {
			m.refreshIn, m.quietList = BrowserRefreshTicks, true
			return []Cmd{{Kind: CmdListLobbies}}
		}
	case EvRefresh:
		if m.Busy == "" {
			m.Busy, m.Error = "Loading lobbies", ""
			return []Cmd{{Kind: CmdListLobbies}}
		}
	case EvLobbies:
		m.Lobbies, m.Stages, m.quietList, m.refreshIn = ev.Lobbies, ev.Stages, false, BrowserRefreshTicks
		if m.Busy == "Loading lobbies" {
			m.Busy = ""
		}
	case EvLobbiesFailed:
		if m.quietList && m.Busy == "" {
			m.quietList = false
			m.Error = m.explain(ev.Err)
			return nil
		}
		m.quietList = false
		m.fail(ev.Err)
	case EvJoin, EvCreate:
		if m.Busy != "" {
			return nil
		}
		c := Cmd{Kind: CmdJoin, Code: ev.Code}
		if ev.Kind == EvCreate {
			c.Code, c.Stage = "", ev.Stage
			m.Busy = "Creating lobby"
		} else {
			m.Busy = "Joining " + c.Code
		}
		m.Error = ""
		return []Cmd{c}
	case EvJoined:
		m.Scene, m.Code, m.Busy, m.Error = Room, ev.Code, "", ""
		cmds := []Cmd{{Kind: CmdWaitStart}}
		if m.Rejoining {
			m.Busy = "Rejoining the game" // the START push with a new token follows
			return cmds
		}
		if m.auto.On && m.auto.Start {
			m.Busy = "Starting"
			cmds = append(cmds, Cmd{Kind: CmdStart})
		}
		return cmds
	case EvJoinFailed:
		if m.auto.On {
			msg := m.explain(ev.Err)
			return m.lose(msg)
		}
		m.fail(ev.Err)
		if m.Rejoining {
			// the slot is gone (expired, game over): the ticket is useless; show the lobbies
			m.Rejoining, m.Error = false, "Could not rejoin the game. "+m.Error
			m.quietList = true
			return []Cmd{{Kind: CmdClearTicket}, {Kind: CmdListLobbies}}
		}
	case EvBack:
		m.connected = false
		// back to the server browser it came from, its list as it was
		m.Scene, m.Busy, m.Error, m.Lobbies = Servers, "", "", nil
		return []Cmd{{Kind: CmdDisconnect}}
	case EvOpenHall:
		if m.Busy == "" {
			return m.openHall()
		}
	}
	return nil
}
