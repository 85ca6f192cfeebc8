package scene

// settingsScreen is fullscreen, volumes, accessibility and bindings; leaving it saves them and
// returns to the screen it was opened from.
type settingsScreen struct{}

func init() { register(Settings, "settings", settingsScreen{}) }

func (settingsScreen) handle(m *Machine, ev Event) []Cmd {
	if ev.Kind == EvBack || ev.Kind == EvContinue {
		m.Scene = m.settingsFrom
		return []Cmd{{Kind: CmdSaveSettings}}
	}
	return nil
}
