package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	"github.com/rtype/rtype/game/buildinfo"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby/lobbyserver"
	"github.com/rtype/rtype/net/serverlist"
	"github.com/rtype/rtype/net/wire"
)

// checkListing checks the server list settings (-list, -name, -motd, -region) and returns the
// answerers' source: the registration's secret when listed, none when private.
func checkListing(cfg Config) (*querySource, error) {
	q := &querySource{}
	if len(cfg.Lists) == 0 {
		return q, nil
	}
	for _, u := range cfg.Lists {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, fmt.Errorf("-list %q: want an http:// or https:// URL of a list server", u)
		}
	}
	if cfg.Name == "" {
		return nil, errors.New("-list needs -name, the server's name in the list")
	}
	for _, f := range []struct {
		flag, s string
		max     int
	}{{"-name", cfg.Name, serverlist.MaxName}, {"-motd", cfg.MOTD, serverlist.MaxMOTD}, {"-region", cfg.Region, serverlist.MaxRegion}} {
		if err := serverlist.CheckText(f.flag, f.s, f.max); err != nil {
			return nil, err
		}
	}
	q.secret = serverlist.NewSecret()
	return q, nil
}

// listHost is the host of the lobby address the lists get: the IP address the lobby binds when
// it names one, else none (the list server takes the address the registration comes from).
func listHost(ln net.Addr) netip.Addr {
	ta, ok := ln.(*net.TCPAddr)
	if !ok {
		return netip.Addr{}
	}
	a, ok := netip.AddrFromSlice(ta.IP)
	if !ok || a.IsUnspecified() {
		return netip.Addr{}
	}
	return a.Unmap()
}

// lobbyEntry is the server's entry from its lobby's state now: fleet for a split lobby (whose
// players are the fleet's: the lobby counts those of the games on its hosts).
func lobbyEntry(cfg Config, srv *lobbyserver.Server, stages *stagefile.Catalogue, ln net.Addr, queryPort int, fleet bool) func() serverlist.Entry {
	host := ""
	if a := listHost(ln); a.IsValid() {
		host = a.String()
	}
	port := 0
	if ta, ok := ln.(*net.TCPAddr); ok {
		port = ta.Port
	}
	maxLobbies := cfg.MaxLobbies
	if maxLobbies <= 0 {
		maxLobbies = lobbyserver.DefaultMaxLobbies
	}
	names := stages.Names()
	return func() serverlist.Entry {
		st := srv.Stats()
		return serverlist.Entry{Name: cfg.Name, MOTD: cfg.MOTD, Addr: net.JoinHostPort(host, strconv.Itoa(port)), QueryPort: queryPort,
			Version: buildinfo.Get(), Protocol: wire.Version, Players: st.Members + st.Playing, Capacity: maxLobbies * rules.MaxPlayers,
			Lobbies: st.Lobbies - st.LobbiesRunning, Stages: names, Password: cfg.Password != "", Region: cfg.Region, Fleet: fleet}
	}
}

// startListing registers the server with its lists (serverlist.Announce) until ctx ends, then
// leaves them; wait (which also ends it) returns once it has left. Nothing when the server is private.
func startListing(ctx context.Context, cfg Config, q *querySource, ln net.Addr, log *slog.Logger) (wait func()) {
	if len(cfg.Lists) == 0 {
		return func() {}
	}
	c := cfg.ListClient
	if c == nil {
		// a lobby bound to one address registers from it: the list checks the entry's host is
		// the request's source
		d := &net.Dialer{Timeout: 10 * time.Second}
		if a := listHost(ln); a.IsValid() {
			d.LocalAddr = &net.TCPAddr{IP: a.AsSlice()}
		}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DialContext = d.DialContext
		c = &http.Client{Timeout: 10 * time.Second, Transport: tr}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		serverlist.Announce(ctx, serverlist.AnnounceConfig{Lists: cfg.Lists, Secret: q.secret, Entry: q.Entry, Client: c, Interval: cfg.ListInterval, Logger: log})
	}()
	log.Info("listing the server", "lists", len(cfg.Lists), "name", cfg.Name)
	return func() { cancel(); <-done }
}
