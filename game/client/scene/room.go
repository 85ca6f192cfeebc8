package scene

// roomScreen is a lobby joined: its members, the owner's choices of stage, difficulty and
// practice section, START; the START push dials the game session (then Playing).
type roomScreen struct{}

func init() { register(Room, "room", roomScreen{}) }

func (roomScreen) handle(m *Machine, ev Event) []Cmd {
	switch ev.Kind {
	case EvStart:
		if m.Busy == "" {
			m.Busy, m.Error = "Starting", ""
			return []Cmd{{Kind: CmdStart}}
		}
	case EvStartFailed:
		m.fail(ev.Err)
	case EvSetStage:
		if m.Busy == "" {
			m.Error = ""
			return []Cmd{{Kind: CmdSetStage, Stage: ev.Stage}}
		}
	case EvSetDifficulty:
		if m.Busy == "" {
			m.Error = ""
			return []Cmd{{Kind: CmdSetDifficulty, Level: ev.Level}}
		}
	case EvSetSection:
		if m.Busy == "" {
			m.Error = ""
			return []Cmd{{Kind: CmdSetSection, Section: ev.Section}}
		}
	case EvSetLives:
		if m.Busy == "" {
			m.Error = ""
			return []Cmd{{Kind: CmdSetLives, Infinite: ev.Infinite}}
		}
	case EvStageFailed:
		m.Error = m.explain(ev.Err)
	case EvGameStarting:
		m.Busy, m.Error, m.Spectator = "Joining game", "", ev.Spectator
		if ev.Spectator {
			m.Busy = "Joining as a spectator"
		}
		return []Cmd{{Kind: CmdDialSession, Port: ev.Port, Token: ev.Token, Key: ev.Key, Addr: m.Addr, Stage: ev.Stage, StageHash: ev.StageHash}}
	case EvSessionReady:
		m.inSession = true
		m.Scene, m.Busy, m.Error, m.MenuOpen = Playing, "", "", false
		if m.Rejoining {
			m.Rejoining = false
			return []Cmd{{Kind: CmdClearTicket}}
		}
	case EvSessionFailed:
		msg := m.explain(ev.Err)
		return m.lose("Could not join the game. " + msg)
	case EvBack:
		m.Scene, m.Code, m.Busy, m.Error, m.Rejoining = Browser, "", "Loading lobbies", "", false
		return []Cmd{{Kind: CmdLeave}, {Kind: CmdListLobbies}}
	}
	return nil
}
