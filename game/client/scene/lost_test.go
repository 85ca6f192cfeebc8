package scene

import (
	"errors"
	"strings"
	"testing"
)

func TestLostScreen(t *testing.T) {
	m := at(Lost, false)
	m.Reason, m.Detail = "The server was shut down.", "shutting down"
	ignores(t, m, EvStart, EvJoin, EvMenu, EvPlay, EvTick, EvGameEnd)
	expect(t, m, m.Handle(Event{Kind: EvConnected}), Lost, CmdDisconnect) // a late dial
	expect(t, m, m.Handle(Event{Kind: EvBack}), Title)
	if m.Reason != "" || m.Detail != "" {
		t.Fatalf("reason %q detail %q kept", m.Reason, m.Detail)
	}
	m = at(Lost, false)
	m.Reason = "x"
	cmds := m.Handle(Event{Kind: EvRejoin, Addr: "10.0.0.2:4242", Code: "K7QF2", Slot: 1})
	expect(t, m, cmds, Connect, CmdDialLobby)
	if cmds[0].Addr != "10.0.0.2:4242" || !m.Rejoining || m.RejoinSlot != 1 || m.Reason != "" {
		t.Fatalf("rejoin: %+v, machine %+v", cmds[0], m)
	}
}

// After kill -9 of the server (the session ends "server gone", the lobby is gone too) the Lost
// screen checks the lobby server before a rejoin is offered: it does not answer, so
// LobbyAnswers stays false and the error says why; EvRetryConnect checks again, and once the
// server answers the rejoin may be offered (LobbyAnswers). A server that said it closes is not
// checked until the player asks.
func TestLostOffersRejoinOnlyWhileTheLobbyAnswers(t *testing.T) {
	m := playing(t)
	cmds := m.Handle(Event{Kind: EvDisconnected, Reason: "server gone (lobby connection lost, game silent for 1 s)"})
	expect(t, m, cmds, Lost, CmdCloseSession, CmdDisconnect, CmdDialLobby)
	if m.Busy != CheckingServer || m.LobbyAnswers {
		t.Fatalf("while checking: busy %q LobbyAnswers %v", m.Busy, m.LobbyAnswers)
	}
	expect(t, m, m.Handle(Event{Kind: EvConnectFailed, Err: errors.New("dial tcp 127.0.0.1:4242: connect: connection refused")}), Lost)
	if m.LobbyAnswers || m.Busy != "" || !strings.HasPrefix(m.Error, NoAnswer) {
		t.Fatalf("no answer: LobbyAnswers %v busy %q error %q", m.LobbyAnswers, m.Busy, m.Error)
	}
	expect(t, m, m.Handle(Event{Kind: EvRetryConnect}), Lost, CmdDialLobby)
	expect(t, m, m.Handle(Event{Kind: EvRetryConnect}), Lost) // one check at a time
	expect(t, m, m.Handle(Event{Kind: EvConnected}), Lost, CmdDisconnect)
	if !m.LobbyAnswers || m.Error != "" || m.Busy != "" {
		t.Fatalf("the server answers again: LobbyAnswers %v error %q busy %q", m.LobbyAnswers, m.Error, m.Busy)
	}
	expect(t, m, m.Handle(Event{Kind: EvBack}), Title)

	// CLOSING first: no check; the player may ask for one.
	m = playing(t)
	m.Handle(Event{Kind: EvServerClosing, Reason: ClosingWords(true, 0, "")})
	expect(t, m, m.Handle(Event{Kind: EvDisconnected, Reason: "server silent"}), Lost, CmdCloseSession, CmdDisconnect)
	if m.LobbyAnswers || m.Busy != "" {
		t.Fatalf("after CLOSING: LobbyAnswers %v busy %q", m.LobbyAnswers, m.Busy)
	}
	expect(t, m, m.Handle(Event{Kind: EvRetryConnect}), Lost, CmdDialLobby)
}
