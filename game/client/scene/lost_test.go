package scene

import "testing"

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
