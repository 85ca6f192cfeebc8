package scene

import (
	"errors"
	"testing"
)

// A lobby connection lost mid-game (a lobby restarted while its host plays on) is taken back by
// itself: CmdResumeLobby with the server and the lobby; once resumed the game ends into the room
// as if nothing happened.
func TestLobbyLossMidGameResumes(t *testing.T) {
	m := playing(t)
	cmds := m.Handle(Event{Kind: EvLobbyLost, Err: errors.New("EOF")})
	expect(t, m, cmds, Playing, CmdResumeLobby)
	if cmds[0].Addr != m.Addr || cmds[0].Code != m.Code || m.Code == "" || !m.Resuming {
		t.Fatalf("resume %+v for %s/%s, resuming %v", cmds[0], m.Addr, m.Code, m.Resuming)
	}
	expect(t, m, m.Handle(Event{Kind: EvLobbyLost, Err: errors.New("EOF")}), Playing) // one resume at a time
	expect(t, m, m.Handle(Event{Kind: EvResumed}), Playing)
	if m.Resuming {
		t.Fatal("still resuming after EvResumed")
	}
	expect(t, m, m.Handle(Event{Kind: EvGameEnd, Result: 1}), Results, CmdCloseSession, CmdClearTicket, CmdKeepReplay)
	if m.Reason != "" {
		t.Fatalf("results say %q: the lobby is back", m.Reason)
	}
	for i := 0; i < ResultsGuardTicks; i++ {
		m.Handle(Event{Kind: EvTick})
	}
	expect(t, m, m.Handle(Event{Kind: EvContinue}), Room, CmdWaitStart)
}

// A refused resume leaves the game playing; its end goes to the title with why the lobby went.
func TestResumeRefusedEndsAtTitle(t *testing.T) {
	m := playing(t)
	expect(t, m, m.Handle(Event{Kind: EvLobbyLost, Err: errors.New("EOF")}), Playing, CmdResumeLobby)
	expect(t, m, m.Handle(Event{Kind: EvResumeFailed, Err: errors.New("no lobby with code ABCDE")}), Playing)
	if m.Resuming {
		t.Fatal("still resuming after a refusal")
	}
	expect(t, m, m.Handle(Event{Kind: EvGameEnd, Result: 2}), Results, CmdCloseSession, CmdClearTicket, CmdDisconnect)
	if m.Reason == "" {
		t.Fatal("no reason for the lost lobby with the results")
	}
	// a resume that succeeds after the game ended is closed at once
	expect(t, m, m.Handle(Event{Kind: EvResumed}), Results, CmdDisconnect)
}

// A spectator and a player whose server said it closes do not resume.
func TestNoResumeForSpectatorOrClosingServer(t *testing.T) {
	m := playing(t)
	m.Spectator = true
	expect(t, m, m.Handle(Event{Kind: EvLobbyLost, Err: errors.New("EOF")}), Playing)
	m = playing(t)
	m.Handle(Event{Kind: EvServerClosing, Reason: "the server restarts"})
	if cmds := m.Handle(Event{Kind: EvLobbyLost, Err: errors.New("EOF")}); len(cmds) != 0 {
		t.Fatalf("a closing server's lost lobby: %v", cmds)
	}
}
