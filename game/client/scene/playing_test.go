package scene

import "testing"

func TestPlayingScreen(t *testing.T) {
	m := at(Playing, true)
	m.inSession = true
	ignores(t, m, EvStart, EvJoin, EvBack, EvContinue, EvTick, EvPlay)
	cmds := m.Handle(Event{Kind: EvMenu})
	expect(t, m, cmds, Playing, CmdPause)
	if !m.MenuOpen || !cmds[0].Paused {
		t.Fatalf("menu open %v, pause %+v", m.MenuOpen, cmds[0])
	}
	if cmds = m.Handle(Event{Kind: EvMenu}); m.MenuOpen || cmds[0].Paused {
		t.Fatalf("closing the menu resumes: open %v, %+v", m.MenuOpen, cmds)
	}
	expect(t, m, m.Handle(Event{Kind: EvGameEnd, Result: 1}), Results, CmdCloseSession, CmdClearTicket, CmdKeepReplay)
	if m.Result != 1 || m.inSession {
		t.Fatalf("result %d, in session %v", m.Result, m.inSession)
	}

	m = at(Playing, true)
	m.Spectator = true
	expect(t, m, m.Handle(Event{Kind: EvMenu}), Playing) // a spectator has no game to pause
	m = at(Playing, true)
	m.Code = "ABCDE"
	expect(t, m, m.Handle(Event{Kind: EvLobbyLost, Err: errRefused}), Playing, CmdResumeLobby) // the game goes on over UDP
	expect(t, m, m.Handle(Event{Kind: EvGameEnd}), Results, CmdCloseSession, CmdClearTicket, CmdDisconnect)
	if m.Reason == "" {
		t.Fatal("the lost lobby is said with the results")
	}
	m = at(Playing, true)
	m.inSession = true
	expect(t, m, m.Handle(Event{Kind: EvDisconnected, Reason: "server timeout"}), Lost, CmdCloseSession, CmdDisconnect, CmdDialLobby) // the lobby is checked before a rejoin is offered
	if m.Detail != "server timeout" || m.Reason == "" {
		t.Fatalf("reason %q detail %q", m.Reason, m.Detail)
	}
	m = at(Playing, true)
	expect(t, m, m.Handle(Event{Kind: EvLeaveGame}), Browser, CmdCloseSession, CmdLeave, CmdListLobbies)
}
