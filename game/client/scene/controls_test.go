package scene

import "testing"

func TestControlsScreenAlone(t *testing.T) {
	for _, k := range []EventKind{EvBack, EvContinue} {
		m := at(Controls, false)
		ignores(t, m, EvStart, EvJoin, EvMenu, EvPlay, EvTick, EvGameEnd, EvConnected, EvOpenSettings)
		expect(t, m, m.Handle(Event{Kind: k}), Title)
	}
}
