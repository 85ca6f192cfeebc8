package scene

// watchingScreen plays a replay (pause, speed, seek, whose ship the HUD follows); Back returns
// to the screen it was opened from.
type watchingScreen struct{}

func init() { register(Watching, "watching", watchingScreen{}) }

func (watchingScreen) handle(m *Machine, ev Event) []Cmd {
	if ev.Kind == EvBack {
		m.Scene = m.watchFrom
		cmds := []Cmd{{Kind: CmdCloseReplay}}
		if m.Scene == Replays {
			m.Busy = "Loading replays"
			cmds = append(cmds, Cmd{Kind: CmdListReplays})
		}
		return cmds
	}
	return nil
}

// watch opens the replay file path from the current scene (Title, Replays or HallOfFame);
// Watching goes back there. The open is shown on that screen ("Opening replay"; the Replays
// screen for the title's -replay FILE), where a failure is said.
func (m *Machine) watch(path string) []Cmd {
	if path == "" {
		return nil
	}
	m.watchFrom = m.Scene
	if m.Scene == Title {
		m.Scene = Replays
	}
	m.Busy, m.Error = "Opening replay", ""
	return []Cmd{{Kind: CmdOpenReplay, Path: path}}
}
