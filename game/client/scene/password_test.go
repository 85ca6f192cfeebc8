package scene

import (
	"strings"
	"testing"

	"github.com/rtype/rtype/lobby"
)

func refusal(reason string) error {
	return &lobby.ResponseError{Code: lobby.CodeWrongRequest, Reason: reason}
}

// TestPrivateServerAsksItsPassword: a private server's refusal opens the password prompt on
// the Connect screen (not an error to retry blind); an invalid password is said and not sent;
// the one typed is sent with a new dial; a wrong one asks again, saying so; the right one
// reaches the lobbies; Esc on the prompt closes it.
func TestPrivateServerAsksItsPassword(t *testing.T) {
	m := at(Connect, false)
	m.Handle(Event{Kind: EvSubmitAddr, Addr: "h:1"})
	expect(t, m, m.Handle(Event{Kind: EvConnectFailed, Err: refusal(lobby.NeedServerPassword)}), Connect)
	if m.Ask != lobby.AskServer || m.Busy != "" || !strings.Contains(m.Error, "private") {
		t.Fatalf("private server: ask %v busy %q error %q, want the password asked", m.Ask, m.Busy, m.Error)
	}
	expect(t, m, m.Handle(Event{Kind: EvSubmitPassword, Password: "has space"}), Connect)
	if m.Ask != lobby.AskServer || !strings.Contains(m.Error, lobby.PasswordRule) {
		t.Fatalf("an invalid password: ask %v error %q, want the rule said and the prompt kept", m.Ask, m.Error)
	}
	cmds := m.Handle(Event{Kind: EvSubmitPassword, Password: "guess"})
	expect(t, m, cmds, Connect, CmdDialLobby)
	if cmds[0].Addr != "h:1" || cmds[0].Password != "guess" || m.Ask != lobby.AskNone || m.Busy == "" {
		t.Fatalf("submit: %+v ask %v busy %q, want a dial of h:1 with the password", cmds[0], m.Ask, m.Busy)
	}
	expect(t, m, m.Handle(Event{Kind: EvConnectFailed, Err: refusal(lobby.WrongServerPassword)}), Connect)
	if m.Ask != lobby.AskServerAgain || !strings.Contains(m.Error, "Wrong password") {
		t.Fatalf("a wrong password: ask %v error %q, want it asked again, saying it was wrong", m.Ask, m.Error)
	}
	m.Handle(Event{Kind: EvSubmitPassword, Password: "hunter2"})
	expect(t, m, m.Handle(Event{Kind: EvConnected}), Browser, CmdListLobbies)
	if m.Ask != lobby.AskNone || m.Error != "" {
		t.Fatalf("connected: ask %v error %q", m.Ask, m.Error)
	}

	m = at(Connect, false)
	m.Handle(Event{Kind: EvSubmitAddr, Addr: "h:1"})
	m.Handle(Event{Kind: EvConnectFailed, Err: refusal(lobby.NeedServerPassword)})
	expect(t, m, m.Handle(Event{Kind: EvCancelPassword}), Connect)
	if m.Ask != lobby.AskNone || m.Error != "" {
		t.Fatalf("cancelled: ask %v error %q", m.Ask, m.Error)
	}
	// another refusal is an error as before, no prompt
	m.Handle(Event{Kind: EvSubmitAddr, Addr: "h:1"})
	m.Handle(Event{Kind: EvConnectFailed, Err: refusal("banned")})
	if m.Ask != lobby.AskNone || m.Error == "" {
		t.Fatalf("another refusal: ask %v error %q", m.Ask, m.Error)
	}
}

// TestPrivateLobbyAsksItsPassword: joining a private lobby by its code asks for its password
// on the Browser screen; the join is sent again with it; a wrong one asks again (the
// connection stays); Esc closes the prompt and the browser goes on.
func TestPrivateLobbyAsksItsPassword(t *testing.T) {
	m := at(Browser, true)
	expect(t, m, m.Handle(Event{Kind: EvJoin, Code: "K7QF2"}), Browser, CmdJoin)
	expect(t, m, m.Handle(Event{Kind: EvJoinFailed, Err: refusal(lobby.NeedLobbyPassword("K7QF2"))}), Browser)
	if m.Ask != lobby.AskLobby || m.Busy != "" || !strings.Contains(m.Error, "K7QF2") {
		t.Fatalf("private lobby: ask %v busy %q error %q", m.Ask, m.Busy, m.Error)
	}
	cmds := m.Handle(Event{Kind: EvSubmitPassword, Password: "guess"})
	expect(t, m, cmds, Browser, CmdJoin)
	if cmds[0].Code != "K7QF2" || cmds[0].Password != "guess" {
		t.Fatalf("join again: %+v", cmds[0])
	}
	m.Handle(Event{Kind: EvJoinFailed, Err: refusal(lobby.WrongLobbyPassword("K7QF2"))})
	if m.Ask != lobby.AskLobbyAgain || !strings.Contains(m.Error, "Wrong password for lobby K7QF2") {
		t.Fatalf("a wrong password: ask %v error %q", m.Ask, m.Error)
	}
	expect(t, m, m.Handle(Event{Kind: EvCancelPassword}), Browser)
	if m.Ask != lobby.AskNone {
		t.Fatal("the prompt stays after Esc")
	}
	m.Handle(Event{Kind: EvJoin, Code: "K7QF2"})
	m.Handle(Event{Kind: EvJoinFailed, Err: refusal(lobby.NeedLobbyPassword("K7QF2"))})
	m.Handle(Event{Kind: EvSubmitPassword, Password: "hunter2"})
	expect(t, m, m.Handle(Event{Kind: EvJoined, Code: "K7QF2"}), Room, CmdWaitStart)
}
