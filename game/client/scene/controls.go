package scene

// controlsScreen is How to play: the keys in effect and what the game's things do; confirm or
// back returns to the title.
type controlsScreen struct{}

func init() { register(Controls, "controls", controlsScreen{}) }

func (controlsScreen) handle(m *Machine, ev Event) []Cmd {
	if ev.Kind == EvBack || ev.Kind == EvContinue {
		m.Scene = Title
	}
	return nil
}
