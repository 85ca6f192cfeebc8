package scene

// replaysScreen lists the replays kept on this computer (CmdListReplays); one is watched
// (Watching comes back here).
type replaysScreen struct{}

func init() { register(Replays, "replays", replaysScreen{}) }

func (replaysScreen) handle(m *Machine, ev Event) []Cmd {
	switch ev.Kind {
	case EvReplayList:
		m.Replays = ev.Replays
		if m.Busy == "Loading replays" {
			m.Busy = ""
		}
		if ev.Err != nil {
			m.Error = "Could not read the replays folder: " + ev.Err.Error()
		}
	case EvWatch:
		if m.Busy == "" {
			return m.watch(ev.Path)
		}
	case EvWatchReady:
		m.Scene, m.Busy, m.Error, m.MenuOpen = Watching, "", "", false
	case EvWatchFailed:
		// said on the Replays screen, whose list comes with it (also for -replay FILE)
		m.Busy, m.watchFrom, m.Error = "", Replays, "Cannot play this replay: "+ev.Err.Error()
		return []Cmd{{Kind: CmdListReplays}}
	case EvBack:
		m.Scene, m.Busy, m.Error = Title, "", ""
	}
	return nil
}
