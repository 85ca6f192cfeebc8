package scene

import "testing"

func TestTitleScreen(t *testing.T) {
	m := at(Title, false)
	ignores(t, m, EvBack, EvJoin, EvStart, EvGameEnd, EvTick, EvContinue)
	expect(t, m, m.Handle(Event{Kind: EvPlay}), Servers, CmdListServers) // the server browser, its Internet tab
	for _, c := range []struct {
		ev   EventKind
		to   ID
		cmds []CmdKind
	}{
		{EvOpenSettings, Settings, nil},
		{EvOpenControls, Controls, nil},
		{EvOpenReplays, Replays, []CmdKind{CmdListReplays}},
		{EvOpenHall, HallOfFame, []CmdKind{CmdDialLobby}}, // the hall's own connection
		{EvWatch, Replays, []CmdKind{CmdOpenReplay}},      // -replay FILE: opened on the Replays screen
		{EvRejoin, Connect, []CmdKind{CmdDialLobby}},
	} {
		m := at(Title, false)
		expect(t, m, m.Handle(Event{Kind: c.ev, Code: "K7QF2", Path: "/r/a.rtr"}), c.to, c.cmds...)
	}
	m = at(Title, false)
	expect(t, m, m.Handle(Event{Kind: EvConnected}), Title, CmdDisconnect) // a late dial after Back
	expect(t, m, m.Handle(Event{Kind: EvRejoin}), Title)                   // no ticket: nothing to rejoin
}
