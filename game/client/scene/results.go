package scene

// ResultsGuardTicks is how long (60 Hz ticks) the results screen ignores confirm and back, so
// that buttons still pressed from the game (fire is also confirm) do not skip it.
const ResultsGuardTicks = 90

// resultsScreen shows how the game ended and the scores; after ResultsGuardTicks confirm (with
// Auto.On: Auto.ResultsTicks) returns to the room, or to the title when the lobby went.
type resultsScreen struct{}

func init() { register(Results, "results", resultsScreen{}) }

func (resultsScreen) handle(m *Machine, ev Event) []Cmd {
	switch ev.Kind {
	case EvTick:
		m.timer++
		if !m.auto.On || m.timer < m.auto.ResultsTicks {
			return nil
		}
	case EvContinue, EvBack:
		if m.timer < ResultsGuardTicks {
			return nil // fire (also "confirm") still being hammered from the game must not skip the results
		}
	default:
		return nil
	}
	if !m.connected {
		m.Scene, m.Reason = Title, ""
		return nil
	}
	m.Scene, m.Busy, m.Reason = Room, "", ""
	return []Cmd{{Kind: CmdWaitStart}}
}
