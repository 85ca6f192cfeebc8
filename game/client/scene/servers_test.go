package scene

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/rtype/rtype/net/wire"
)

// source plays the network side of the server browser: what the lists say (Internet) and what
// each server answers to the client's query, by address (absent: no answer).
type source struct {
	listed []Server
	answer map[string]Server
}

// run answers the commands as the client's runtime would, the answers of the queries in the
// order of the servers.
func (s source) run(t *testing.T, m *Machine, cmds []Cmd) {
	t.Helper()
	for _, c := range cmds {
		switch c.Kind {
		case CmdListServers:
			s.run(t, m, m.Handle(Event{Kind: EvServerList, View: c.View, Servers: slices.Clone(s.listed)}))
		case CmdPingServers:
			for _, q := range c.Servers {
				if a, ok := s.answer[q.QueryAddr()]; ok {
					a.Addr = q.Addr
					m.Handle(Event{Kind: EvServerPinged, Servers: []Server{a}})
				}
			}
		}
	}
}

func addrs(rows []Server) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.Addr)
	}
	return out
}

// TestServersScreen: the browser lists the lists' servers with the round trip the client
// measured, the silent ones said so after PingTimeout of frames; sort and filters reorder and
// hide rows; an incompatible server is not dialled; joining dials its lobby.
func TestServersScreen(t *testing.T) {
	src := source{
		listed: []Server{
			{Name: "Alpha", Addr: "10.0.0.1:4242", Protocol: wire.Version, Players: 3, Capacity: 4, Region: "eu"},
			{Name: "bravo", Addr: "10.0.0.2:4242", Protocol: wire.Version, Players: 4, Capacity: 4, Region: "us"},
			{Name: "Charlie", Addr: "10.0.0.3:4242", Query: "10.0.0.3:5000", Protocol: wire.Version + 1, Version: "v9", Players: 1, Capacity: 8, Region: "eu"},
			{Name: "Delta", Addr: "10.0.0.4:4242", Protocol: wire.Version, Capacity: 4},
		},
		answer: map[string]Server{
			"10.0.0.1:4242": {Ping: 40 * time.Millisecond, Players: 2, Capacity: 4, Protocol: wire.Version},
			"10.0.0.2:4242": {Ping: 15 * time.Millisecond},
			"10.0.0.3:5000": {Ping: 90 * time.Millisecond}, // its query port, not its lobby's
		},
	}
	m := at(Title, false)
	cmds := m.Handle(Event{Kind: EvPlay})
	expect(t, m, cmds, Servers, CmdListServers)
	if m.Busy == "" || cmds[0].View.Tab != TabInternet {
		t.Fatalf("the Internet tab is not being listed: busy %q, %+v", m.Busy, cmds[0])
	}
	src.run(t, m, cmds)
	if m.Busy != "" || len(m.Servers) != 4 {
		t.Fatalf("listed: busy %q, %d servers", m.Busy, len(m.Servers))
	}
	if got, want := addrs(m.Rows()), []string{"10.0.0.2:4242", "10.0.0.1:4242", "10.0.0.3:4242", "10.0.0.4:4242"}; !slices.Equal(got, want) {
		t.Errorf("by ping: %v, want %v (the silent one last)", got, want)
	}
	if r := m.Rows()[1]; r.Ping != 40*time.Millisecond || r.Players != 2 {
		t.Errorf("the query's answer does not replace the list's figures: %+v", r)
	}
	if m.Rows()[3].NoAnswer {
		t.Error("no answer said before PingTimeout")
	}
	for range pingTicks - 1 {
		m.Handle(Event{Kind: EvTick})
	}
	if m.Rows()[3].NoAnswer {
		t.Error("no answer said one frame before PingTimeout")
	}
	m.Handle(Event{Kind: EvTick})
	if r := m.Rows()[3]; !r.NoAnswer || r.Pinged {
		t.Errorf("Delta never answered: %+v", r)
	}

	v := m.View
	v.Sort = SortPlayers
	expect(t, m, m.Handle(Event{Kind: EvServerView, View: v}), Servers) // same tab: no new listing
	if got, want := addrs(m.Rows()), []string{"10.0.0.2:4242", "10.0.0.1:4242", "10.0.0.3:4242", "10.0.0.4:4242"}; !slices.Equal(got, want) {
		t.Errorf("by players: %v, want %v", got, want)
	}
	v.Sort, v.HasRoom, v.Compatible = SortName, true, true
	m.Handle(Event{Kind: EvServerView, View: v})
	if got, want := addrs(m.Rows()), []string{"10.0.0.1:4242", "10.0.0.4:4242"}; !slices.Equal(got, want) {
		t.Errorf("with room, compatible, by name: %v, want %v", got, want)
	}
	v.HasRoom, v.Compatible = false, false
	if got := m.Regions(); !slices.Equal(got, []string{"eu", "us"}) {
		t.Fatalf("regions %v", got)
	}
	v.Region = NextRegion(m.Regions(), "")
	m.Handle(Event{Kind: EvServerView, View: v})
	if got, want := addrs(m.Rows()), []string{"10.0.0.1:4242", "10.0.0.3:4242"}; !slices.Equal(got, want) {
		t.Errorf("region eu: %v, want %v", got, want)
	}
	if NextRegion(m.Regions(), "eu") != "us" || NextRegion(m.Regions(), "us") != "" {
		t.Error("the region filter does not step eu, us, every region")
	}

	// Charlie speaks another protocol: said, and not dialled
	if why := m.Servers[2].Incompatible(); why == "" {
		t.Fatal("Charlie is compatible")
	}
	expect(t, m, m.Handle(Event{Kind: EvSubmitAddr, Addr: "10.0.0.3:4242"}), Servers)
	if m.Error == "" {
		t.Error("joining an incompatible server says nothing")
	}
	cmds = m.Handle(Event{Kind: EvSubmitAddr, Addr: "10.0.0.1:4242"})
	expect(t, m, cmds, Connect, CmdSaveSettings, CmdDialLobby)
	if cmds[1].Addr != "10.0.0.1:4242" || m.Recent[0] != "10.0.0.1:4242" {
		t.Fatalf("join dials %+v, recent %v", cmds[1], m.Recent)
	}
	expect(t, m, m.Handle(Event{Kind: EvConnected}), Browser, CmdListLobbies)
}

// TestServersTabs: the LAN tab lists what the probe found; the saved tab lists the favourites
// then the recent servers without asking a list, and queries them; a late answer for another
// tab is dropped; a list that failed is said while the others' servers show.
func TestServersTabs(t *testing.T) {
	m := at(Servers, false)
	m.Favourites, m.Recent = []string{"f:1"}, []string{"r:1", "f:1", "r:2"}
	cmds := m.Handle(Event{Kind: EvServerView, View: ServerView{Tab: TabLAN}})
	expect(t, m, cmds, Servers, CmdListServers)
	if cmds[0].View.Tab != TabLAN || m.Busy == "" {
		t.Fatalf("LAN: %+v busy %q", cmds[0], m.Busy)
	}
	cmds = m.Handle(Event{Kind: EvServerView, View: ServerView{Tab: TabSaved}})
	expect(t, m, cmds, Servers, CmdPingServers)
	if got := addrs(cmds[0].Servers); !slices.Equal(got, []string{"f:1", "r:1", "r:2"}) {
		t.Fatalf("saved servers queried: %v", got)
	}
	expect(t, m, m.Handle(Event{Kind: EvServerList, View: ServerView{Tab: TabLAN}, Servers: []Server{{Addr: "x:1"}}}), Servers)
	if len(m.Servers) != 3 {
		t.Fatalf("the LAN's late answer replaced the saved servers: %v", addrs(m.Servers))
	}
	expect(t, m, m.Handle(Event{Kind: EvFavourite, Addr: "r:2"}), Servers, CmdSaveSettings)
	expect(t, m, m.Handle(Event{Kind: EvFavourite, Addr: "f:1"}), Servers, CmdSaveSettings)
	if !slices.Equal(m.Favourites, []string{"r:2"}) || !m.IsFavourite("r:2") || m.IsFavourite("f:1") {
		t.Fatalf("favourites %v", m.Favourites)
	}

	m = at(Servers, false)
	cmds = m.Handle(Event{Kind: EvRefresh})
	expect(t, m, cmds, Servers, CmdListServers)
	cmds = m.Handle(Event{Kind: EvServerList, View: cmds[0].View, Servers: []Server{{Addr: "a:1"}},
		Reason: "1 of 2 lists did not answer.", Err: errors.New("list https://b: 503")})
	expect(t, m, cmds, Servers, CmdPingServers)
	if m.Error == "" || m.Detail == "" || len(m.Servers) != 1 {
		t.Fatalf("partial list: error %q detail %q servers %v", m.Error, m.Detail, addrs(m.Servers))
	}
	expect(t, m, m.Handle(Event{Kind: EvDirectConnect}), Connect)
	expect(t, m, m.Handle(Event{Kind: EvBack}), Servers)
	expect(t, m, m.Handle(Event{Kind: EvBack}), Title)
	ignores(t, at(Servers, false), EvStart, EvJoin, EvMenu, EvGameEnd, EvContinue)
}

// TestRecentBounded: the recent servers are the newest MaxRecent, each once.
func TestRecentBounded(t *testing.T) {
	m := at(Connect, false)
	for i := range MaxRecent + 5 {
		m.noteRecent(string(rune('a'+i)) + ":1")
	}
	m.noteRecent("f:1")
	if len(m.Recent) != MaxRecent || m.Recent[0] != "f:1" || slices.Index(m.Recent[1:], "f:1") >= 0 {
		t.Fatalf("recent %v", m.Recent)
	}
}
