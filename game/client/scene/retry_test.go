package scene

import (
	"errors"
	"testing"
)

// Retry from the pause menu (docs/PROTOCOL.md §2.4.18): the session is closed, RETRY sent and
// the room waits, "Restarting", for the lobby's START push, which plays the next game; a
// refusal is said in the room. A spectator has nothing to retry.
func TestRetryFromPauseMenu(t *testing.T) {
	m := playing(t)
	m.Handle(Event{Kind: EvMenu})
	expect(t, m, m.Handle(Event{Kind: EvRetry}), Room, CmdCloseSession, CmdClearTicket, CmdRetry, CmdWaitStart)
	if m.Busy != "Restarting" || m.MenuOpen {
		t.Fatalf("busy %q menu open %v", m.Busy, m.MenuOpen)
	}
	expect(t, m, m.Handle(Event{Kind: EvGameStarting, Port: 1, Token: 3}), Room, CmdDialSession)
	expect(t, m, m.Handle(Event{Kind: EvSessionReady}), Playing)

	m.Handle(Event{Kind: EvRetry})
	expect(t, m, m.Handle(Event{Kind: EvStartFailed, Err: errors.New("retry is for a solo game (2 players here)")}), Room)
	if m.Busy != "" || m.Error == "" {
		t.Fatalf("a refused retry: busy %q error %q", m.Busy, m.Error)
	}

	s := playing(t)
	s.Spectator = true
	expect(t, s, s.Handle(Event{Kind: EvRetry}), Playing)
}

// The practice trainer's choice in the room (SET_LIVES).
func TestSetLivesInRoom(t *testing.T) {
	m := New("a:1", Auto{})
	m.Scene, m.connected = Room, true
	cmds := m.Handle(Event{Kind: EvSetLives, Infinite: true})
	expect(t, m, cmds, Room, CmdSetLives)
	if !cmds[0].Infinite {
		t.Fatal("CmdSetLives without Infinite")
	}
	if CmdRetry.String() != "retry" || CmdSetLives.String() != "set-lives" {
		t.Errorf("names %q %q", CmdRetry, CmdSetLives)
	}
}
