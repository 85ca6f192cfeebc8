package scene

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// inGame brings a fresh machine into a game (manual flow), joined as a spectator or not.
func inGame(t *testing.T, spectator bool) *Machine {
	t.Helper()
	m := New("127.0.0.1:4242", Auto{})
	m.Handle(Event{Kind: EvPlay})
	m.Handle(Event{Kind: EvSubmitAddr, Addr: "127.0.0.1:4242"})
	m.Handle(Event{Kind: EvConnected})
	m.Handle(Event{Kind: EvJoin, Code: "K7QF2"})
	m.Handle(Event{Kind: EvJoined, Code: "K7QF2"})
	m.Handle(Event{Kind: EvGameStarting, Port: 5000, Token: 7, Spectator: spectator})
	expect(t, m, m.Handle(Event{Kind: EvSessionReady}), Playing)
	return m
}

func TestSpectatorStart(t *testing.T) {
	m := inGame(t, true)
	if !m.Spectator {
		t.Fatal("a SPECTATE start does not make the machine a spectator")
	}
	// Esc opens the menu but asks for no pause: a spectator has no game to pause
	expect(t, m, m.Handle(Event{Kind: EvMenu}), Playing)
	if !m.MenuOpen {
		t.Fatal("menu not open")
	}
	if m := inGame(t, false); m.Spectator {
		t.Fatal("a normal START makes a spectator")
	}
}

func TestMenuRequestsPause(t *testing.T) {
	m := inGame(t, false)
	cmds := m.Handle(Event{Kind: EvMenu})
	expect(t, m, cmds, Playing, CmdPause)
	if !cmds[0].Paused || !m.MenuOpen {
		t.Fatalf("Esc: %+v, open %v; want a pause request", cmds[0], m.MenuOpen)
	}
	cmds = m.Handle(Event{Kind: EvMenu})
	expect(t, m, cmds, Playing, CmdPause)
	if cmds[0].Paused || m.MenuOpen {
		t.Fatalf("Esc again: %+v, open %v; want a resume request", cmds[0], m.MenuOpen)
	}
	// the label: "PAUSED" only when the server paused (solo), else the game goes on
	if MenuTitle(true) != "PAUSED" || !strings.Contains(MenuTitle(false), "goes on") {
		t.Fatalf("menu titles %q / %q", MenuTitle(true), MenuTitle(false))
	}
	// a game that ends with the menu open closes it
	m.Handle(Event{Kind: EvMenu})
	m.Handle(Event{Kind: EvGameEnd})
	if m.MenuOpen {
		t.Fatal("menu still open on the results")
	}
}

func rejoinEv() Event {
	return Event{Kind: EvRejoin, Addr: "10.0.0.9:4242", Code: "XYZ12", Slot: 1, Key: [16]byte{1, 2, 3}}
}

// rejoinFlow: lobby dialled, REJOIN sent with the ticket, START awaited, game resumed, ticket
// cleared.
func rejoinFlow(t *testing.T, m *Machine, cmds []Cmd) {
	t.Helper()
	expect(t, m, cmds, Connect, CmdDialLobby)
	if cmds[0].Addr != "10.0.0.9:4242" || m.Busy == "" {
		t.Fatalf("dial %+v busy %q", cmds[0], m.Busy)
	}
	cmds = m.Handle(Event{Kind: EvConnected})
	expect(t, m, cmds, Browser, CmdRejoin)
	if c := cmds[0]; c.Code != "XYZ12" || c.Slot != 1 || c.Key != [16]byte{1, 2, 3} {
		t.Fatalf("rejoin command %+v", c)
	}
	expect(t, m, m.Handle(Event{Kind: EvJoined, Code: "XYZ12"}), Room, CmdWaitStart)
	expect(t, m, m.Handle(Event{Kind: EvGameStarting, Port: 5001, Token: 9}), Room, CmdDialSession)
	expect(t, m, m.Handle(Event{Kind: EvSessionReady}), Playing, CmdClearTicket)
	if m.Rejoining || m.Spectator {
		t.Fatalf("after the rejoin: rejoining %v spectator %v", m.Rejoining, m.Spectator)
	}
}

func TestRejoinFromLostScreen(t *testing.T) {
	m := inGame(t, false)
	expect(t, m, m.Handle(Event{Kind: EvDisconnected, Reason: "server silent for 10 s"}), Lost, CmdCloseSession, CmdDisconnect, CmdDialLobby)
	expect(t, m, m.Handle(rejoinEv()), Lost) // not while the server is being checked
	expect(t, m, m.Handle(Event{Kind: EvConnected}), Lost, CmdDisconnect)
	if !m.LobbyAnswers || m.Busy != "" {
		t.Fatalf("the lobby answered: LobbyAnswers %v busy %q", m.LobbyAnswers, m.Busy)
	}
	rejoinFlow(t, m, m.Handle(rejoinEv()))
}

func TestRejoinFromTitle(t *testing.T) {
	m := New("127.0.0.1:4242", Auto{})
	rejoinFlow(t, m, m.Handle(rejoinEv()))
	// a rejoin without a ticket does nothing
	m = New("127.0.0.1:4242", Auto{})
	expect(t, m, m.Handle(Event{Kind: EvRejoin}), Title)
}

func TestRejoinRefused(t *testing.T) {
	m := New("127.0.0.1:4242", Auto{})
	m.Handle(rejoinEv())
	m.Handle(Event{Kind: EvConnected})
	expect(t, m, m.Handle(Event{Kind: EvJoinFailed, Err: errors.New("no such slot")}), Browser, CmdClearTicket, CmdListLobbies)
	if !strings.Contains(m.Error, "rejoin") || m.Rejoining {
		t.Fatalf("error %q rejoining %v", m.Error, m.Rejoining)
	}
	// the next successful join is a normal one
	m.Handle(Event{Kind: EvJoin, Code: "AAAAA"})
	expect(t, m, m.Handle(Event{Kind: EvJoined, Code: "AAAAA"}), Room, CmdWaitStart)
	if m.Busy != "" {
		t.Fatalf("busy %q after a normal join", m.Busy)
	}
}

func TestNoticeWords(t *testing.T) {
	for _, c := range []struct {
		slot, lives, own int
		want             string
	}{
		{0, 2, 0, "You were shot down — 2 ships left"},
		{0, 1, 0, "You were shot down — last ship!"},
		{0, 0, 0, "You were shot down — no ships left"},
		{1, 1, 0, "2P down (1 left)"},
		{3, 0, 0, "4P down — no ships left"},
		{0, 2, -1, "1P down (2 left)"},
	} {
		if got := DeathNotice(c.slot, c.lives, c.own); got != c.want {
			t.Errorf("DeathNotice(%d, %d, %d) = %q, want %q", c.slot, c.lives, c.own, got, c.want)
		}
	}
	if got := InterruptedNotice(3400 * time.Millisecond); got != "connection interrupted… 3 s" {
		t.Errorf("interrupted %q", got)
	}
	if got := LostWords("server silent for 10 s"); !strings.Contains(got, "stopped answering") {
		t.Errorf("lost words %q", got)
	}
	if got := LostWords("weird thing"); got != "Weird thing" {
		t.Errorf("unknown reason %q", got)
	}
	if got := RejoinLabel("XYZ12", 1); got != "Rejoin game XYZ12 (slot 2P)" {
		t.Errorf("rejoin label %q", got)
	}
}
