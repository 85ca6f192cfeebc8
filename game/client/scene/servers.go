package scene

// serversScreen is the server browser, before the lobby browser: the servers of the lists
// (Internet), of the LAN, and the favourites and recent servers (Saved), each queried by the
// client itself for its round trip (CmdPingServers); sorted and filtered by View; joining one
// dials its lobby (the Connect screen's EvSubmitAddr), Direct connect types an address.
type serversScreen struct{}

func init() { register(Servers, "servers", serversScreen{}) }

func (serversScreen) handle(m *Machine, ev Event) []Cmd {
	switch ev.Kind {
	case EvBack:
		m.Scene, m.Busy, m.Error, m.Detail = Title, "", "", ""
	case EvDirectConnect:
		m.Scene, m.Busy, m.Error, m.Detail = Connect, "", "", ""
	case EvRefresh:
		return m.listServers()
	case EvServerView:
		tab := ev.View.Tab != m.View.Tab
		m.View = ev.View.valid()
		if tab {
			return m.listServers()
		}
	case EvServerList:
		if ev.View.Tab != m.View.Tab {
			return nil // a late answer for another tab
		}
		m.Busy, m.Error, m.Detail = "", ev.Reason, ""
		if ev.Err != nil {
			m.Detail = ev.Err.Error()
		}
		m.Servers = ev.Servers
		return m.pingServers()
	case EvServerPinged:
		if len(ev.Servers) == 1 {
			m.pinged(ev.Servers[0], ev.Err)
		}
	case EvTick:
		if m.pingsDue > 0 {
			if m.pingsDue--; m.pingsDue == 0 {
				for i := range m.Servers {
					if !m.Servers[i].Pinged {
						m.Servers[i].NoAnswer = true
					}
				}
			}
		}
	case EvFavourite:
		if ev.Addr != "" {
			m.Favourites = toggle(m.Favourites, ev.Addr)
			return []Cmd{{Kind: CmdSaveSettings}}
		}
	case EvSubmitAddr:
		if ev.Addr == "" {
			return nil
		}
		for _, s := range m.Servers {
			if s.Addr == ev.Addr {
				if why := s.Incompatible(); why != "" {
					m.Error, m.Detail = "Cannot join "+s.title()+": "+why+".", ""
					return nil
				}
			}
		}
		// a listing still under way is not waited for: its answer comes to Connect, which
		// ignores it
		m.Scene, m.Busy, m.pingsDue = Connect, "", 0
		return connectScreen{}.handle(m, ev)
	case EvConnected:
		return []Cmd{{Kind: CmdDisconnect}} // a late reply after Back
	}
	return nil
}
