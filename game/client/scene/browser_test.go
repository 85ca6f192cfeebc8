package scene

import "testing"

func TestBrowserScreen(t *testing.T) {
	m := at(Browser, true)
	ignores(t, m, EvStart, EvGameEnd, EvSubmitAddr, EvPlay, EvMenu)
	expect(t, m, m.Handle(Event{Kind: EvLobbies, Lobbies: []Lobby{{Code: "K7QF2"}}, Stages: []string{"stage1"}}), Browser)
	if len(m.Lobbies) != 1 || len(m.Stages) != 1 {
		t.Fatalf("list not kept: %+v %v", m.Lobbies, m.Stages)
	}
	expect(t, m, m.Handle(Event{Kind: EvRefresh}), Browser, CmdListLobbies)
	expect(t, m, m.Handle(Event{Kind: EvJoin, Code: "K7QF2"}), Browser) // busy listing
	m.Handle(Event{Kind: EvLobbies})
	cmds := m.Handle(Event{Kind: EvCreate, Stage: "stage2"})
	expect(t, m, cmds, Browser, CmdJoin)
	if cmds[0].Code != "" || cmds[0].Stage != "stage2" {
		t.Fatalf("create: %+v", cmds[0])
	}
	expect(t, m, m.Handle(Event{Kind: EvJoinFailed, Err: errRefused}), Browser)
	if m.Busy != "" || m.Error == "" {
		t.Fatalf("refused join: busy %q error %q", m.Busy, m.Error)
	}
	cmds = m.Handle(Event{Kind: EvJoin, Code: "K7QF2"})
	expect(t, m, cmds, Browser, CmdJoin)
	if cmds[0].Code != "K7QF2" {
		t.Fatalf("join: %+v", cmds[0])
	}
	expect(t, m, m.Handle(Event{Kind: EvJoined, Code: "K7QF2"}), Room, CmdWaitStart)
	if m.Code != "K7QF2" {
		t.Fatalf("code %q", m.Code)
	}

	m = at(Browser, true)
	expect(t, m, m.Handle(Event{Kind: EvOpenHall}), HallOfFame, CmdGetScores) // on the browser's connection
	m = at(Browser, true)
	expect(t, m, m.Handle(Event{Kind: EvBack}), Servers, CmdDisconnect) // the server browser it came from
	if m.connected {
		t.Fatal("Back closes the lobby connection")
	}
}
