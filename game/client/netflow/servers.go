package netflow

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/rtype/rtype/game/client/scene"
	"github.com/rtype/rtype/net/query"
	"github.com/rtype/rtype/net/serverlist"
)

// ServerSource is where the server browser's servers come from: the server lists, the LAN
// probe, and each server's own answer to the client's query. NetSource is the real one; tests
// put a fake in its place (SetServerSource).
type ServerSource interface {
	// Lists returns the merged entries of the lists, one error per list that did not answer,
	// and how many lists there are (0: none is set).
	Lists(ctx context.Context) ([]serverlist.Entry, []error, int)
	// LAN returns the servers that answered the probe before ctx ended.
	LAN(ctx context.Context) ([]query.Info, error)
	// Ping queries addr (A2S_INFO, with its challenge) and measures the round trip.
	Ping(ctx context.Context, addr netip.AddrPort) (query.Info, time.Duration, error)
}

// NetSource reads the lists at URLs over HTTP (serverlist.Fetch), probes the LAN on
// LANPorts (query.DiscoverLAN) and queries servers with query.Ping.
type NetSource struct {
	HTTP     *http.Client // nil: a client with ListTimeout
	URLs     []string
	LANPorts []int
}

// Lists implements ServerSource.
func (s NetSource) Lists(ctx context.Context) ([]serverlist.Entry, []error, int) {
	if len(s.URLs) == 0 {
		return nil, nil, 0
	}
	c := s.HTTP
	if c == nil {
		c = &http.Client{Timeout: ListTimeout}
	}
	es, errs := serverlist.Fetch(ctx, c, s.URLs)
	return es, errs, len(s.URLs)
}

// LAN implements ServerSource.
func (s NetSource) LAN(ctx context.Context) ([]query.Info, error) {
	return query.DiscoverLAN(ctx, s.LANPorts)
}

// Ping implements ServerSource.
func (NetSource) Ping(ctx context.Context, addr netip.AddrPort) (query.Info, time.Duration, error) {
	return query.Ping(ctx, addr)
}

// ListTimeout bounds the reading of the lists; LANWait is how long the LAN probe collects
// answers.
const (
	ListTimeout = 5 * time.Second
	LANWait     = time.Second
)

// MaxPings is how many server queries run at once (a long list is queried in turn, the
// answers coming as they arrive).
const MaxPings = 32

// SetServerSource sets where the server browser's servers come from (NewRunner: none; the
// client sets a NetSource).
func (n *Runner) SetServerSource(s ServerSource) { n.servers = s }

// execServers runs CmdListServers and CmdPingServers on goroutines; a new listing or new
// queries stop the queries still under way.
func (n *Runner) execServers(c scene.Cmd) {
	src := n.servers
	if src == nil {
		src = NetSource{}
	}
	switch c.Kind {
	case scene.CmdListServers:
		view := c.View
		n.goDo(func() {
			ev := scene.Event{Kind: scene.EvServerList, View: view}
			switch view.Tab {
			case scene.TabLAN:
				ctx, cancel := context.WithTimeout(n.ctx, LANWait)
				infos, err := src.LAN(ctx)
				cancel()
				for _, in := range infos {
					ev.Servers = append(ev.Servers, fromInfo(in))
				}
				if err != nil && !errors.Is(err, context.DeadlineExceeded) {
					ev.Reason, ev.Err = "The local network could not be searched.", err
				} else if len(ev.Servers) == 0 {
					ev.Reason = "No server answered on the local network."
				}
			default:
				ctx, cancel := context.WithTimeout(n.ctx, ListTimeout)
				es, errs, lists := src.Lists(ctx)
				cancel()
				for _, e := range es {
					ev.Servers = append(ev.Servers, fromEntry(e))
				}
				ev.Reason, ev.Err = listsWords(len(errs), lists), errors.Join(errs...)
			}
			n.post(Reply{Ev: ev})
		})
	case scene.CmdPingServers:
		n.pingMu.Lock()
		if n.pingStop != nil {
			n.pingStop()
		}
		ctx, stop := context.WithCancel(n.ctx)
		n.pingStop = stop
		n.pingMu.Unlock()
		servers := c.Servers
		n.goDo(func() {
			sem := make(chan struct{}, MaxPings)
			var wg sync.WaitGroup
			for _, s := range servers {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					wg.Wait()
					return
				}
				wg.Go(func() {
					defer func() { <-sem }()
					ev := scene.Event{Kind: scene.EvServerPinged}
					r, err := pingOne(ctx, src, s)
					if ctx.Err() != nil {
						return // stopped: nobody waits for it
					}
					ev.Servers, ev.Err = []scene.Server{r}, err
					n.post(Reply{Ev: ev})
				})
			}
			wg.Wait()
		})
	}
}

// pingOne queries s at its query address (resolved if a name) within scene.PingTimeout.
func pingOne(ctx context.Context, src ServerSource, s scene.Server) (scene.Server, error) {
	ctx, cancel := context.WithTimeout(ctx, scene.PingTimeout)
	defer cancel()
	out := scene.Server{Addr: s.Addr}
	ap, err := resolve(ctx, s.QueryAddr())
	if err != nil {
		return out, err
	}
	in, rtt, err := src.Ping(ctx, ap)
	if err != nil {
		return out, err
	}
	r := fromInfo(in)
	r.Addr, r.Ping = s.Addr, rtt
	// A2S carries one byte per count: a saturated one says no more than the list's figure
	if r.Capacity == query.MaxCount && s.Capacity > r.Capacity {
		r.Capacity = s.Capacity
	}
	if r.Players == query.MaxCount && s.Players > r.Players {
		r.Players = s.Players
	}
	return r, nil
}

// resolve returns the UDP address of host:port, looking a name up.
func resolve(ctx context.Context, hostport string) (netip.AddrPort, error) {
	if ap, err := netip.ParseAddrPort(hostport); err == nil {
		return ap, nil
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return netip.AddrPort{}, err
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("port %q: %w", port, err)
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return netip.AddrPort{}, err
	}
	if len(ips) == 0 {
		return netip.AddrPort{}, fmt.Errorf("%s: no address", host)
	}
	return netip.AddrPortFrom(ips[0].Unmap(), uint16(p)), nil
}

// listsWords says, in player words, what came of reading lists lists of which failed did not
// answer ("" when all answered).
func listsWords(failed, lists int) string {
	switch {
	case lists == 0:
		return `No server list is set: start with -list URL, or add "lists" to settings.json. The LAN tab and Direct connect still work.`
	case failed == lists:
		return "No server list answered."
	case failed > 0:
		return fmt.Sprintf("%d of %d server lists did not answer: the others' servers are shown.", failed, lists)
	}
	return ""
}

// fromEntry is the browser's row of a list's entry; its query address is the entry's query
// port on the lobby's host.
func fromEntry(e serverlist.Entry) scene.Server {
	s := scene.Server{Name: e.Name, MOTD: e.MOTD, Addr: e.Addr, Version: e.Version, Protocol: e.Protocol,
		Players: e.Players, Capacity: e.Capacity, Lobbies: e.Lobbies, Password: e.Password, Region: e.Region, Fleet: e.Fleet}
	if host, port, err := net.SplitHostPort(e.Addr); err == nil && e.QueryPort > 0 && strconv.Itoa(e.QueryPort) != port {
		s.Query = net.JoinHostPort(host, strconv.Itoa(e.QueryPort))
	}
	return s
}

// fromInfo is the browser's row of a query's answer.
func fromInfo(in query.Info) scene.Server {
	return scene.Server{Name: in.Name, Addr: in.Addr, Version: in.Version, Protocol: in.Protocol,
		Players: in.Players, Capacity: in.MaxPlayers, Password: in.Password}
}
