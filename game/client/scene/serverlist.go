package scene

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rtype/rtype/net/wire"
)

// PingTimeout is how long the server browser waits for a server's answer to its query
// (CmdPingServers) before showing "no answer"; the client's query gives up then too.
const PingTimeout = 2 * time.Second

// pingTicks is PingTimeout in 60 Hz frames (EvTick).
const pingTicks = int(PingTimeout * 60 / time.Second)

// MaxRecent is how many recent servers are kept (the newest first).
const MaxRecent = 10

// ServerTab is a tab of the server browser.
type ServerTab uint8

// The tabs, in the order Left/Right steps through them.
const (
	TabInternet ServerTab = iota // the servers of the lists (merged, by address)
	TabLAN                       // the servers that answered a probe on the local network
	TabSaved                     // the favourites, then the recent servers
	NumServerTabs
)

var serverTabNames = [...]string{"Internet", "LAN", "Favourites & recent"}

func (t ServerTab) String() string {
	if t < NumServerTabs {
		return serverTabNames[t]
	}
	return fmt.Sprintf("tab(%d)", uint8(t))
}

// ServerSort is the order of the server browser's rows.
type ServerSort uint8

// The orders, in the order the sort key steps through them.
const (
	SortPing    ServerSort = iota // the nearest first (no answer last)
	SortPlayers                   // the fullest first (where the game is)
	SortName                      // by name
	NumServerSorts
)

var serverSortNames = [...]string{"ping", "players", "name"}

func (s ServerSort) String() string {
	if s < NumServerSorts {
		return serverSortNames[s]
	}
	return fmt.Sprintf("sort(%d)", uint8(s))
}

// ServerView is what the server browser shows: a tab, an order, and filters.
type ServerView struct {
	Tab        ServerTab
	Sort       ServerSort
	HasRoom    bool   // only servers with a free place
	Compatible bool   // only servers this client can play on (Server.Incompatible)
	Region     string // only servers of this region ("" every one)
}

// valid returns v with an unknown tab or order replaced by the first.
func (v ServerView) valid() ServerView {
	if v.Tab >= NumServerTabs {
		v.Tab = TabInternet
	}
	if v.Sort >= NumServerSorts {
		v.Sort = SortPing
	}
	return v
}

// NextRegion is the region filter after region among regions: every region (""), then each in
// turn, then every region again.
func NextRegion(regions []string, region string) string {
	i := slices.Index(regions, region)
	if region == "" {
		i = -1
	}
	if i+1 < len(regions) {
		return regions[i+1]
	}
	return ""
}

// Server is one row of the server browser: what a list or a LAN answer says of a server, and
// what the client measured itself (Ping).
type Server struct {
	Name    string
	MOTD    string
	Addr    string // the lobby address host:port (TCP), as players dial it
	Query   string // the query address host:port (UDP: A2S); "" is Addr's (the default ports)
	Version string // the server's build
	// Protocol is the server's wire.Version (0: not known yet, a saved server not answered).
	Protocol int
	Players  int
	Capacity int // 0: not known
	Lobbies  int
	Password bool
	Region   string
	Fleet    bool
	// Ping is the round trip of the client's own query (Pinged); NoAnswer: the query got no
	// answer in PingTimeout.
	Ping     time.Duration
	Pinged   bool
	NoAnswer bool
}

// QueryAddr is the address the client queries (Query, else Addr: the query port is the lobby's
// port number unless the server says otherwise).
func (s Server) QueryAddr() string {
	if s.Query != "" {
		return s.Query
	}
	return s.Addr
}

// Incompatible says why this client cannot play on s, in player words ("" when it can, or when
// it is not known yet).
func (s Server) Incompatible() string {
	if s.Protocol != 0 && s.Protocol != wire.Version {
		return fmt.Sprintf("it speaks protocol %d, this client %d (version %s)", s.Protocol, wire.Version, s.Version)
	}
	return ""
}

// Full reports whether s has no free place.
func (s Server) Full() bool { return s.Capacity > 0 && s.Players >= s.Capacity }

func (s Server) title() string {
	if s.Name != "" {
		return s.Name
	}
	return s.Addr
}

// Rows are the servers of the view shown: filtered and sorted (ties by address, so the order
// never flickers).
func (m *Machine) Rows() []Server {
	v := m.View
	var out []Server
	for _, s := range m.Servers {
		if (v.HasRoom && s.Full()) || (v.Compatible && s.Incompatible() != "") || (v.Region != "" && s.Region != v.Region) {
			continue
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b Server) int {
		var c int
		switch v.Sort {
		case SortPing:
			c = cmp.Compare(pingKey(a), pingKey(b))
		case SortPlayers:
			c = cmp.Compare(b.Players, a.Players)
		case SortName:
			c = strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
		}
		return cmp.Or(c, strings.Compare(a.Addr, b.Addr))
	})
	return out
}

// pingKey orders by round trip, the servers not answered (yet) last.
func pingKey(s Server) time.Duration {
	if !s.Pinged {
		return 1 << 62
	}
	return s.Ping
}

// Regions are the regions of the servers listed, sorted.
func (m *Machine) Regions() []string {
	var out []string
	for _, s := range m.Servers {
		if s.Region != "" && !slices.Contains(out, s.Region) {
			out = append(out, s.Region)
		}
	}
	slices.Sort(out)
	return out
}

// IsFavourite reports whether addr is a favourite.
func (m *Machine) IsFavourite(addr string) bool { return slices.Contains(m.Favourites, addr) }

// listServers asks for the servers of the tab shown; the saved ones are listed at once.
func (m *Machine) listServers() []Cmd {
	m.Error, m.Detail, m.Servers, m.pingsDue = "", "", nil, 0
	if m.View.Tab == TabSaved {
		for _, a := range append(slices.Clone(m.Favourites), m.Recent...) {
			if !slices.ContainsFunc(m.Servers, func(s Server) bool { return s.Addr == a }) {
				m.Servers = append(m.Servers, Server{Addr: a})
			}
		}
		m.Busy = ""
		return m.pingServers()
	}
	m.Busy = "Looking for servers"
	if m.View.Tab == TabLAN {
		m.Busy = "Looking on the local network"
	}
	return []Cmd{{Kind: CmdListServers, View: m.View}}
}

// pingServers queries every server listed; those that do not answer in PingTimeout show so.
func (m *Machine) pingServers() []Cmd {
	if len(m.Servers) == 0 {
		return nil
	}
	m.pingsDue = pingTicks
	return []Cmd{{Kind: CmdPingServers, Servers: slices.Clone(m.Servers)}}
}

// pinged takes the answer of s's query: the round trip, and what it says of the server (its
// players now: a list's entry may be older); err: no answer.
func (m *Machine) pinged(s Server, err error) {
	i := slices.IndexFunc(m.Servers, func(r Server) bool { return r.Addr == s.Addr })
	if i < 0 {
		return // a late answer for a list no longer shown
	}
	r := &m.Servers[i]
	if err != nil {
		r.NoAnswer = true
		return
	}
	r.Pinged, r.NoAnswer, r.Ping = true, false, s.Ping
	if r.Name == "" {
		r.Name = s.Name // a saved server: the list's name (the operator's registration) otherwise
	}
	if s.Version != "" {
		r.Version = s.Version
	}
	if s.Protocol != 0 {
		r.Protocol = s.Protocol
	}
	if s.Capacity > 0 {
		r.Players, r.Capacity = s.Players, s.Capacity
	}
	r.Password = r.Password || s.Password
}

// noteRecent puts addr first among the recent servers (MaxRecent kept).
func (m *Machine) noteRecent(addr string) {
	m.Recent = slices.DeleteFunc(slices.Clone(m.Recent), func(a string) bool { return a == addr })
	m.Recent = append([]string{addr}, m.Recent...)
	if len(m.Recent) > MaxRecent {
		m.Recent = m.Recent[:MaxRecent]
	}
}

// toggle adds s to list, or takes it out.
func toggle(list []string, s string) []string {
	if i := slices.Index(list, s); i >= 0 {
		return slices.Delete(slices.Clone(list), i, i+1)
	}
	return append(slices.Clone(list), s)
}
