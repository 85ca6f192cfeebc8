package scene

import "testing"

func TestSettingsScreen(t *testing.T) {
	for _, from := range []ID{Title, Room} {
		m := at(Settings, false)
		m.settingsFrom = from
		ignores(t, m, EvStart, EvJoin, EvMenu, EvPlay, EvTick, EvGameEnd, EvConnected)
		expect(t, m, m.Handle(Event{Kind: EvBack}), from, CmdSaveSettings)
	}
}
