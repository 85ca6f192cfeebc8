package scene

// titleScreen is the main menu: Play, Replays, Hall of fame, How to play, Settings, Quit, and
// Rejoin while a lost game keeps the player's slot.
type titleScreen struct{}

func init() { register(Title, "title", titleScreen{}) }

func (titleScreen) handle(m *Machine, ev Event) []Cmd {
	switch ev.Kind {
	case EvPlay:
		m.Scene = Servers
		return m.listServers()
	case EvOpenSettings:
		m.Scene, m.settingsFrom = Settings, Title
	case EvOpenControls:
		m.Scene = Controls
	case EvOpenReplays:
		m.Scene, m.Busy, m.Error, m.Replays, m.watchFrom = Replays, "Loading replays", "", nil, Replays
		return []Cmd{{Kind: CmdListReplays}}
	case EvWatch:
		return m.watch(ev.Path)
	case EvOpenHall:
		return m.openHall()
	case EvRejoin:
		return m.rejoin(ev)
	case EvConnected:
		return []Cmd{{Kind: CmdDisconnect}} // late reply after Back
	}
	return nil
}
