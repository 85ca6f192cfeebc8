package scene

// connectScreen dials the lobby server typed (CmdDialLobby), or the one of a rejoin ticket; once
// connected it goes to the lobby browser (or, rejoining, sends REJOIN there; with Auto.On it
// joins or creates the lobby at once).
type connectScreen struct{}

func init() { register(Connect, "connect", connectScreen{}) }

func (connectScreen) handle(m *Machine, ev Event) []Cmd {
	switch ev.Kind {
	case EvSubmitAddr:
		if m.Busy != "" {
			return nil
		}
		m.Addr, m.Busy, m.Error, m.Detail = ev.Addr, "Connecting", "", ""
		m.noteRecent(ev.Addr) // saved with the address
		return []Cmd{{Kind: CmdSaveSettings}, {Kind: CmdDialLobby, Addr: ev.Addr}}
	case EvBack:
		busy := m.Busy != ""
		m.Scene = Servers // the server browser it came from
		if m.Rejoining || m.auto.On {
			m.Scene = Title
		}
		m.Busy, m.Error, m.Rejoining = "", "", false
		if busy {
			return []Cmd{{Kind: CmdDisconnect}}
		}
	case EvConnected:
		if m.Busy == "" {
			return []Cmd{{Kind: CmdDisconnect}}
		}
		m.connected = true
		m.Scene, m.Error = Browser, ""
		if m.Rejoining {
			m.Busy = "Rejoining " + m.Code
			return []Cmd{{Kind: CmdRejoin, Code: m.Code, Slot: m.RejoinSlot, Key: m.rejoinKey}}
		}
		if m.auto.On {
			m.Busy = "Joining lobby"
			c := Cmd{Kind: CmdJoin, Code: m.auto.Lobby}
			if c.Code == "" {
				c.Stage = m.auto.Stage
			}
			return []Cmd{c}
		}
		m.Busy = "Loading lobbies"
		return []Cmd{{Kind: CmdListLobbies}}
	case EvConnectFailed:
		if m.auto.On || m.Rejoining {
			m.Rejoining = false
			msg := m.explain(ev.Err)
			return m.lose(msg)
		}
		m.fail(ev.Err)
	}
	return nil
}

// rejoin dials the lobby server of a lost game's ticket (ev: Addr, Code, Slot, Key); once
// connected it sends REJOIN, then waits for the START push like a room (docs/PROTOCOL.md §5.12).
func (m *Machine) rejoin(ev Event) []Cmd {
	if ev.Code == "" {
		return nil
	}
	if ev.Addr != "" {
		m.Addr = ev.Addr
	}
	m.Scene, m.Busy, m.Error, m.Detail = Connect, "Rejoining "+ev.Code, "", ""
	m.Rejoining, m.Code, m.RejoinSlot, m.rejoinKey, m.Spectator = true, ev.Code, ev.Slot, ev.Key, false
	return []Cmd{{Kind: CmdDialLobby, Addr: m.Addr}}
}
