package scene

import "testing"

func TestHallScreen(t *testing.T) {
	m := at(HallOfFame, false)
	m.Busy, m.hallFrom = "Connecting", Title
	ignores(t, m, EvStart, EvJoin, EvMenu, EvPlay, EvTick, EvGameEnd)
	expect(t, m, m.Handle(Event{Kind: EvConnected}), HallOfFame, CmdGetScores)
	expect(t, m, m.Handle(Event{Kind: EvScores}), HallOfFame)
	if m.Busy != "" {
		t.Fatalf("busy %q after the page came", m.Busy)
	}
	cmds := m.Handle(Event{Kind: EvHallQuery, Hall: Hall{View: HallRecent, Page: 1}})
	expect(t, m, cmds, HallOfFame, CmdGetScores)
	if cmds[0].Hall != (Hall{View: HallRecent, Page: 1}) || m.Hall != cmds[0].Hall {
		t.Fatalf("query %+v, shown %+v", cmds[0].Hall, m.Hall)
	}
	expect(t, m, m.Handle(Event{Kind: EvScoresFailed, Err: errRefused}), HallOfFame)
	if m.Error == "" || m.Games != nil {
		t.Fatalf("failed page: error %q games %v", m.Error, m.Games)
	}
	cmds = m.Handle(Event{Kind: EvWatchGame, Code: "0123456789abcdef"})
	expect(t, m, cmds, HallOfFame, CmdFetchReplay)
	if cmds[0].Code != "0123456789abcdef" {
		t.Fatalf("fetch %+v", cmds[0])
	}
	expect(t, m, m.Handle(Event{Kind: EvHallQuery}), HallOfFame) // not while fetching
	expect(t, m, m.Handle(Event{Kind: EvReplayFetched, Path: "/r/g.rtr"}), HallOfFame, CmdOpenReplay)
	expect(t, m, m.Handle(Event{Kind: EvWatchReady}), Watching)

	m = at(HallOfFame, true)
	m.hallFrom = Title
	expect(t, m, m.Handle(Event{Kind: EvBack}), Title, CmdDisconnect) // the hall's own connection
	m = at(HallOfFame, true)
	m.hallFrom = Browser
	expect(t, m, m.Handle(Event{Kind: EvBack}), Browser, CmdListLobbies) // the browser's connection stays
}
