package scene

import "testing"

func TestRoomScreen(t *testing.T) {
	m := at(Room, true)
	ignores(t, m, EvJoin, EvCreate, EvRefresh, EvGameEnd, EvTick, EvPlay)
	for _, c := range []struct {
		ev  Event
		cmd CmdKind
	}{
		{Event{Kind: EvSetStage, Stage: "stage2"}, CmdSetStage},
		{Event{Kind: EvSetDifficulty, Level: "hard"}, CmdSetDifficulty},
		{Event{Kind: EvSetSection, Section: 2}, CmdSetSection},
	} {
		cmds := m.Handle(c.ev)
		expect(t, m, cmds, Room, c.cmd)
		if cmds[0].Stage != c.ev.Stage || cmds[0].Level != c.ev.Level || cmds[0].Section != c.ev.Section {
			t.Fatalf("%v: %+v", c.cmd, cmds[0])
		}
	}
	expect(t, m, m.Handle(Event{Kind: EvStageFailed, Err: errRefused}), Room)
	if m.Error == "" {
		t.Fatal("a refused choice is said")
	}
	expect(t, m, m.Handle(Event{Kind: EvStart}), Room, CmdStart)
	expect(t, m, m.Handle(Event{Kind: EvStart}), Room) // once
	expect(t, m, m.Handle(Event{Kind: EvStartFailed, Err: errRefused}), Room)
	cmds := m.Handle(Event{Kind: EvGameStarting, Port: 5000, Token: 7, Stage: "stage1", StageHash: "ab"})
	expect(t, m, cmds, Room, CmdDialSession)
	if c := cmds[0]; c.Port != 5000 || c.Token != 7 || c.Addr != "h:4242" || c.Stage != "stage1" || c.StageHash != "ab" {
		t.Fatalf("dial session %+v", c)
	}
	expect(t, m, m.Handle(Event{Kind: EvSessionReady}), Playing)

	m = at(Room, true)
	m.Handle(Event{Kind: EvGameStarting})
	expect(t, m, m.Handle(Event{Kind: EvSessionFailed, Err: errRefused}), Lost, CmdDisconnect)
	m = at(Room, true)
	expect(t, m, m.Handle(Event{Kind: EvBack}), Browser, CmdLeave, CmdListLobbies)
}
