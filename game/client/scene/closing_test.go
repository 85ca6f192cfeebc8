package scene

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// A server that shuts down says why (EvServerClosing, the CLOSING push): in a game the results
// of the aborted game say it and lead to the title, whichever of GAME_END and CLOSING comes
// first; in the room the Lost screen says it, not "closed the connection. EOF".
func TestServerClosingSaysWhy(t *testing.T) {
	why := ClosingWords(false, 0, "back at 10:00")
	if why != "The server is shutting down. The operator says: \"back at 10:00\"" {
		t.Fatalf("ClosingWords: %q", why)
	}
	toTitle := func(m *Machine) {
		t.Helper()
		for i := 0; i < ResultsGuardTicks; i++ {
			m.Handle(Event{Kind: EvTick})
		}
		expect(t, m, m.Handle(Event{Kind: EvContinue}), Title)
	}

	// CLOSING, then GAME_END (aborted).
	m := playing(t)
	expect(t, m, m.Handle(Event{Kind: EvServerClosing, Reason: why}), Playing)
	expect(t, m, m.Handle(Event{Kind: EvGameEnd, Result: 2}), Results, CmdCloseSession, CmdClearTicket, CmdDisconnect)
	if m.Reason != why {
		t.Fatalf("results reason %q, want %q", m.Reason, why)
	}
	toTitle(m)

	// GAME_END first, then CLOSING on the results screen.
	m = playing(t)
	m.Handle(Event{Kind: EvGameEnd, Result: 2})
	expect(t, m, m.Handle(Event{Kind: EvServerClosing, Reason: why}), Results, CmdDisconnect)
	if m.Reason != why {
		t.Fatalf("results reason %q after a late CLOSING", m.Reason)
	}
	toTitle(m)

	// The session ends without GAME_END after CLOSING: Lost says the server's words.
	m = playing(t)
	m.Handle(Event{Kind: EvServerClosing, Reason: why})
	m.Handle(Event{Kind: EvDisconnected, Reason: "server timeout"})
	if m.Scene != Lost || m.Reason != why {
		t.Fatalf("scene %v reason %q", m.Scene, m.Reason)
	}

	// In the room: Lost with the reason; the EOF that follows changes nothing.
	m = New("a:1", Auto{On: true})
	m.Begin()
	m.Handle(Event{Kind: EvConnected})
	m.Handle(Event{Kind: EvJoined, Code: "ABCDE"})
	expect(t, m, m.Handle(Event{Kind: EvServerClosing, Reason: why}), Lost, CmdDisconnect)
	if m.Reason != why || strings.Contains(m.Reason, "EOF") {
		t.Fatalf("room: reason %q", m.Reason)
	}
	expect(t, m, m.Handle(Event{Kind: EvLobbyLost, Err: errors.New("EOF")}), Lost)

	// A restart and a drain's time left.
	if got := ClosingWords(true, 90*time.Second, ""); got != "The server is restarting: connect again in a moment. Games end in 1m30s." {
		t.Errorf("ClosingWords(restart, 90 s): %q", got)
	}
}
