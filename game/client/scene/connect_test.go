package scene

import "testing"

func TestConnectScreen(t *testing.T) {
	m := at(Connect, false)
	ignores(t, m, EvJoin, EvStart, EvTick, EvGameEnd, EvLobbies)
	cmds := m.Handle(Event{Kind: EvSubmitAddr, Addr: "10.0.0.1:4242"})
	expect(t, m, cmds, Connect, CmdSaveSettings, CmdDialLobby)
	if cmds[1].Addr != "10.0.0.1:4242" || m.Addr != "10.0.0.1:4242" || m.Busy == "" {
		t.Fatalf("dial %+v, addr %q, busy %q", cmds[1], m.Addr, m.Busy)
	}
	expect(t, m, m.Handle(Event{Kind: EvSubmitAddr, Addr: "x:1"}), Connect) // busy: once
	expect(t, m, m.Handle(Event{Kind: EvConnectFailed, Err: errRefused}), Connect)
	if m.Busy != "" || m.Error == "" {
		t.Fatalf("a failed dial is said and can be retried: busy %q error %q", m.Busy, m.Error)
	}
	expect(t, m, m.Handle(Event{Kind: EvConnected}), Connect, CmdDisconnect) // no dial pending
	m.Handle(Event{Kind: EvSubmitAddr, Addr: "h:1"})
	expect(t, m, m.Handle(Event{Kind: EvConnected}), Browser, CmdListLobbies)
	if !m.connected {
		t.Fatal("connected not recorded")
	}

	m = at(Connect, false)
	m.Handle(Event{Kind: EvSubmitAddr, Addr: "h:1"})
	expect(t, m, m.Handle(Event{Kind: EvBack}), Servers, CmdDisconnect) // the dial under way is dropped
	m = at(Connect, false)
	expect(t, m, m.Handle(Event{Kind: EvBack}), Servers) // Direct connect goes back to the server browser
	if len(m.Recent) != 0 {
		t.Fatalf("recent %v before any address was submitted", m.Recent)
	}
	m.Handle(Event{Kind: EvSubmitAddr, Addr: "h:1"})
	if len(m.Recent) != 1 || m.Recent[0] != "h:1" {
		t.Fatalf("the server connected to is not the first recent one: %v", m.Recent)
	}
}
