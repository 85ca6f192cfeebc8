// Package server is the whole rtype server: the TCP lobby (package lobby/lobbyserver) on one address and a
// game instance (package net/instance) per started lobby, all on one UDP port. cmd/rtype-server wires flags into
// Config and calls Run; tests run it in-process on loopback.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/lobby/lobbyserver"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/linksim"
	"github.com/rtype/rtype/net/metrics"
)

// Config is the server's configuration (the flags of cmd/rtype-server).
type Config struct {
	Addr    string // TCP lobby address, e.g. ":4242" (seed 004 §2)
	UDPHost string // host the game socket binds ("" = all interfaces)
	UDPPort int    // UDP port shared by every game (0 = chosen by the OS); START hands it out
	// PublicUDP, when set, is the UDP port players reach, handed out by START instead of the
	// bound one: ":PORT" or "PORT" (behind Docker's -p PORT:UDPPort/udp, a NAT port forward).
	// The host is always the lobby's (START carries no host, docs/PROTOCOL.md §2.5.1), so a
	// host here is refused.
	PublicUDP  string
	MaxLobbies int
	// Stage is the default stage of new lobbies: an embedded stage's name ("stage1", "short") or
	// a path to a stage JSON file, which is then offered too (stagefile.LoadCatalogue).
	Stage string
	// Arcade names the stages of the arcade run lobbies may choose (docs/PROTOCOL.md §2.4.15),
	// separated by commas: "" is stagefile.DefaultRun (those of its stages offered), "none" no run.
	Arcade string
	NetSim string // link simulator spec applied to every instance socket ("" = none)
	// IdleTimeout closes lobby connections without a valid command (0 = lobby default).
	IdleTimeout time.Duration
	// Limits of the lobby (0 = the lobby.Default* values; docs/PROTOCOL.md §2.3).
	MaxConns          int
	MaxConnsPerAddr   int
	MaxLobbiesPerAddr int
	CommandRate       float64 // lines per second per connection
	AuthTimeout       time.Duration
	// TrustedProxies may open a lobby connection with a PROXY protocol header naming the
	// player's address (-trusted-proxies; lobbyListener); none: no header is accepted.
	TrustedProxies []netip.Prefix
	// MetricsAddr, when set, serves only GET /metrics, /healthz and /readyz over HTTP on this
	// address (MetricsHandler); "" = off.
	MetricsAddr string
	// AdminAddr, when set, serves the same and, behind AdminToken, /debug/pprof/ and POST
	// /broadcast (AdminHandler); "" = off. A non-loopback address is warned about at start.
	AdminAddr string
	// AdminToken is the bearer token of the admin address's pprof and broadcast endpoints; ""
	// refuses them.
	AdminToken string
	// HTTPHosts are the host names (besides IP literals and localhost) the metrics and admin
	// addresses answer to in a request's Host header (DNS rebinding defence).
	HTTPHosts []string
	// WebAddr, when set, serves the browser client over HTTP on this address (-web): WebPage at
	// "/" and the WebSocket lobby at lobby.WebSocketPath (webHandler); "" = off. The all-in-one server
	// only (not -role).
	WebAddr string
	// WebPage serves the client page's files on the web address (nil: a 404 that says so).
	WebPage http.Handler
	// OnWeb, when set, receives the bound web address (tests use port 0).
	OnWeb func(addr net.Addr)
	// OnAdmin and OnMetrics, when set, receive the bound admin and metrics addresses (tests use
	// port 0).
	OnAdmin, OnMetrics func(addr net.Addr)
	// SilenceTimeout drops a silent player from a game (0 = 10 s).
	SilenceTimeout time.Duration
	// UDPRate is how many datagrams per second each source address may send to the game port
	// (bursts of twice as many); the excess is dropped (0 = instance.DefaultRateLimit, 240;
	// negative = no limit).
	UDPRate int
	// RejoinWindow keeps a lost player's slot for a rejoin (0 = instance.RejoinWindow, 60 s).
	RejoinWindow time.Duration
	Logger       *slog.Logger
	// DataDir is the data directory: the SQLite database (rtype.db) and the replays (replays/)
	// of the hall of fame (docs/HOSTING.md "Where the data lives").
	DataDir string
	// DB is the hall of fame's database: "sqlite" (DataDir/rtype.db), "sqlite:PATH", a
	// "postgres://" URL, or "" / "off": none (no game is kept; GET_SCORES gets 500).
	DB string
	// KeepDays and KeepBytes are the replays' retention (0: no limit; scoredb.Config).
	KeepDays  int
	KeepBytes int64
	// Replays, when set, returns an ended game's replay file, kept with its record (nil: the
	// instance's own recording, instance.Instance.Replay; tests replace it).
	Replays func(in *instance.Instance) []byte
	// NoVerify stores finished games without replaying them first (-verify-scores=false; the
	// tests whose Replays are not real replays). By default the hall of fame keeps a game only
	// when its replay reproduces it (VerifyGame).
	NoVerify bool
	// Abort, when closed during the drain that follows ctx's end, ends the running games at once
	// (a second SIGTERM).
	Abort <-chan struct{}
	// OnGameEnd, when set, is called with each instance after its game ended (tests).
	OnGameEnd func(in *instance.Instance)
	// Ready, when set, receives the bound lobby address once listening (tests use port 0). A
	// host (-role host) gives its control address; a lobby (-role lobby) a nil Manager.
	Ready func(lobbyAddr net.Addr, m *instance.Manager)
	// Fleet splits the server into a lobby or a game host (-role; roles.go); zero: all in one.
	Fleet FleetConfig
	// Password, when set, makes the lobby private (lobbyserver.ServerConfig.Password).
	Password string
	// Reloads, when set, brings configuration reloads (SIGHUP) to the running lobby
	// (applyReloads); nil: none.
	Reloads <-chan Reload
	// Lists are the base URLs of the server lists this server registers with (-list;
	// listing.go, docs/PROTOCOL.md §11); none: the server stays private.
	Lists []string
	// Name, MOTD and Region are the server's entry in its lists (-name, -motd, -region); Name
	// is also its name in A2S_INFO and LAN answers ("": DefaultName).
	Name, MOTD, Region string
	// ListClient makes the list requests (nil: a client bound to the lobby's host; tests).
	ListClient *http.Client
	// ListInterval is how often the registration is refreshed (0: serverlist.RefreshInterval;
	// tests).
	ListInterval time.Duration
	// QueryAddr is a split lobby's UDP query socket (it answers the lists' tokens, which come
	// to the entry's query port): "" is the host and port number of the lobby's address. The
	// socket is opened only when the lobby is listed.
	QueryAddr string
}

// Run serves until ctx is cancelled, then ends every running game with GAME_END, closes every
// socket and returns (nil on a clean shutdown).
func Run(ctx context.Context, cfg Config) error {
	if cfg.Fleet.Role != "" {
		return runSplit(ctx, cfg)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if cfg.Stage == "" {
		cfg.Stage = stagefile.Default
	}
	stages, err := stagefile.LoadCatalogue(cfg.Stage, game.ParseScript)
	if err != nil {
		return fmt.Errorf("stage: %w", err)
	}
	switch cfg.Arcade {
	case "":
	case "none":
		err = stages.SetRun(nil)
	default:
		err = stages.SetRun(strings.Split(cfg.Arcade, ","))
	}
	if err != nil {
		return fmt.Errorf("arcade: %w", err)
	}
	ns, err := linksim.Parse(cfg.NetSim)
	if err != nil {
		return err
	}
	if cfg.UDPPort < 0 || cfg.UDPPort > 65535 {
		return fmt.Errorf("udp port %d is not valid", cfg.UDPPort)
	}
	publicPort, err := ParsePublicUDP(cfg.PublicUDP)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	ln = lobbyListener(ln, cfg.TrustedProxies)
	var adminLn, metricsLn net.Listener
	webLn, err := listenWeb(cfg.WebAddr)
	if err != nil {
		ln.Close()
		return err
	}
	if cfg.AdminAddr != "" {
		if adminLn, err = net.Listen("tcp", cfg.AdminAddr); err != nil {
			ln.Close()
			if webLn != nil {
				webLn.Close()
			}
			return fmt.Errorf("admin address: %w", err)
		}
	}
	if cfg.MetricsAddr != "" {
		if metricsLn, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			ln.Close()
			for _, l := range []net.Listener{adminLn, webLn} {
				if l != nil {
					l.Close()
				}
			}
			return fmt.Errorf("metrics address: %w", err)
		}
	}
	hall, err := openHall(ctx, cfg, log)
	if err != nil {
		ln.Close()
		for _, l := range []net.Listener{adminLn, metricsLn, webLn} {
			if l != nil {
				l.Close()
			}
		}
		return fmt.Errorf("hall of fame: %w", err)
	}
	if hall != nil {
		defer closeHall(hall, log)
	}
	q, err := checkListing(cfg)
	if err != nil {
		ln.Close()
		for _, l := range []net.Listener{adminLn, metricsLn} {
			if l != nil {
				l.Close()
			}
		}
		return err
	}
	// every game's replay is kept with its record
	k := &keeper{hall: hall, replays: replaysOf(cfg), specs: map[*instance.Instance]handoff.GameSpec{}}
	var reg *metrics.Registry // set before any game can end: games start from the lobby, served below
	q.keeper.Store(k)         // A2S_PLAYER: the players of the running games
	var mgrp atomic.Pointer[instance.Manager]
	mcfg := managerConfig(cfg, stages, ns, publicPort, log, func(in *instance.Instance) {
		reg.GameEnded(in)
		k.gameEnded(in)
		if cfg.OnGameEnd != nil {
			cfg.OnGameEnd(in)
		}
	})
	as := answerers(q)
	var rtcp atomic.Pointer[rtcPeers] // with -web: WebRTC on the game socket (rtc.go), made once it is bound
	if webLn != nil {
		as = append(as, func(b []byte, from netip.AddrPort, reply func([]byte, netip.AddrPort) error) bool {
			if r := rtcp.Load(); r != nil {
				return r.offer(b, from, reply)
			}
			return false
		})
		mcfg.Divert = func(b []byte, to netip.AddrPort) bool {
			if r := rtcp.Load(); r != nil {
				return r.divert(b, to)
			}
			return IsRTCAddr(to)
		}
	}
	mcfg.Connectionless = compose(as, managerReply(&mgrp))
	mgr, err := instance.NewManager(mcfg)
	if err != nil {
		ln.Close()
		for _, l := range []net.Listener{adminLn, metricsLn, webLn} {
			if l != nil {
				l.Close()
			}
		}
		return err
	}
	log.Info("rtype server listening", "lobby", ln.Addr().String(), "udp", net.JoinHostPort(cfg.UDPHost, strconv.Itoa(mgr.Port())), "udp_public_port", mgr.PublicPort(),
		"stage", stages.Default().Name, "stages", strings.Join(stages.Names(), ","), "arcade", len(stages.Run()), "udp_rate", udpRate(cfg.UDPRate))
	if cfg.Ready != nil {
		cfg.Ready(ln.Addr(), mgr)
	}
	mgrp.Store(mgr)
	k.mgr = mgr
	var rtcAns lobbyserver.RTCAnswerer // nil: RTC_OFFER is refused (no -web)
	if webLn != nil {
		r := newRTCPeers(gameUDPAddr(cfg.UDPHost, mgr.Port()), mgr.PublicPort(), mgr.WriteTo, mgr.Receive, log)
		rtcp.Store(r)
		defer r.close()
		rtcAns = r
	}
	var lh lobbyserver.Hall // a nil *scoredb.Hall must stay a nil interface
	if hall != nil {
		lh = hall
	}
	srv := lobbyserver.NewServer(lobbyserver.ServerConfig{MaxLobbies: cfg.MaxLobbies, IdleTimeout: cfg.IdleTimeout, Starter: k, Hall: lh, Logger: log,
		Stages: stages, MaxConns: cfg.MaxConns, MaxConnsPerAddr: cfg.MaxConnsPerAddr, MaxLobbiesPerAddr: cfg.MaxLobbiesPerAddr,
		CommandRate: cfg.CommandRate, AuthTimeout: cfg.AuthTimeout, Password: cfg.Password, RTC: rtcAns})
	mod := newModeration(srv, hall, log)
	stopMod := mod.run(ctx, cfg.Reloads)
	defer stopMod()
	q.setEntry(lobbyEntry(cfg, srv, stages, ln.Addr(), mgr.PublicPort(), false), stages.Default().Name) // lists, A2S, LAN answers
	waitListing := startListing(ctx, cfg, q, ln.Addr(), log)                                            // leaves the lists when ctx ends
	defer waitListing()
	reg = metrics.New(srv, mgr)
	if hall != nil {
		reg.WatchHall(hall.Stats)
	}
	hcfg := HTTPConfig{Token: cfg.AdminToken, Hosts: cfg.HTTPHosts, mod: mod, NotReady: func() string {
		if ctx.Err() != nil {
			return NotReadyShuttingDown
		}
		return ""
	}}
	if metricsLn != nil {
		hs := &http.Server{Handler: MetricsHandler(reg, hcfg), ReadHeaderTimeout: 5 * time.Second}
		go hs.Serve(metricsLn)
		defer hs.Close()
		log.Info("metrics address listening", "addr", metricsLn.Addr().String(), "paths", "/metrics /healthz /readyz")
		if cfg.OnMetrics != nil {
			cfg.OnMetrics(metricsLn.Addr())
		}
	}
	if adminLn != nil {
		hs := &http.Server{Handler: AdminHandler(reg, srv, log, hcfg), ReadHeaderTimeout: 5 * time.Second}
		go hs.Serve(adminLn)
		defer hs.Close()
		log.Info("admin address listening", "addr", adminLn.Addr().String(), "paths", "/metrics /healthz /readyz, with the token /debug/pprof/ POST /broadcast")
		if ta, ok := adminLn.Addr().(*net.TCPAddr); ok && !ta.IP.IsLoopback() {
			log.Warn("the admin address is not loopback: anyone who reaches it can try the admin token; prefer 127.0.0.1 (and -metrics for a remote Prometheus)", "addr", adminLn.Addr().String())
		}
		if cfg.AdminToken == "" {
			log.Warn("no admin token (RTYPE_ADMIN_TOKEN or -admin-token-file): /debug/pprof/ and POST /broadcast refuse every request")
		}
		if cfg.OnAdmin != nil {
			cfg.OnAdmin(adminLn.Addr())
		}
	}
	if webLn != nil {
		hs := &http.Server{Handler: webHandler(srv, cfg.WebPage, hcfg, cfg.TrustedProxies, log), ReadHeaderTimeout: 5 * time.Second, MaxHeaderBytes: 16 << 10}
		go hs.Serve(webLn)
		defer hs.Close()
		log.Info("web address listening", "addr", webLn.Addr().String(), "paths", "/ (the client page), "+lobby.WebSocketPath+" (the WebSocket lobby)")
		if cfg.OnWeb != nil {
			cfg.OnWeb(webLn.Addr())
		}
	}
	// The lobby outlives ctx a little: on shutdown the games end first (GAME_END, acknowledged),
	// then the lobby closes its connections (closing them first would drop the players instead).
	lobbyCtx, stopLobby := context.WithCancel(context.Background())
	defer stopLobby()
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(lobbyCtx, ln) }()
	var err2 error
	select {
	case <-ctx.Done():
	case err2 = <-serveErr:
		serveErr <- err2
	}
	log.Info("rtype server shutting down", "games", mgr.Running())
	// No new game; every connection is told why and how long its games have left (CLOSING,
	// docs/PROTOCOL.md §2.5.13); the running games go on for the drain, then end with GAME_END.
	left := drainLeft(cfg.Fleet.DrainTimeout)
	if mgr.Running() == 0 {
		left = 0
	}
	srv.Drain(left)
	drainGames(mgr.Running, cfg.Fleet.DrainTimeout, cfg.Abort, log)
	if mgr.Running() > 0 {
		srv.Closing(lobby.ClosingShutdown, 0) // the drain is over: the games end now
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	shutErr := mgr.Shutdown(sctx)
	stopLobby()
	err2 = <-serveErr
	log.Info("rtype server stopped")
	if err2 != nil && !errors.Is(err2, context.Canceled) && !errors.Is(err2, net.ErrClosed) {
		return err2
	}
	return shutErr
}

// gameUDPAddr is the game socket's address as the WebRTC mux sees it: the host it binds (""
// every interface: the unspecified IPv6 address, as the socket is dual-stack) and its port.
func gameUDPAddr(host string, port int) *net.UDPAddr {
	ip := net.IPv6unspecified
	if a, err := netip.ParseAddr(host); err == nil {
		ip = net.IP(a.Unmap().AsSlice())
	} else if host != "" {
		if ips, err := net.LookupIP(host); err == nil && len(ips) > 0 {
			ip = ips[0]
		}
	}
	return &net.UDPAddr{IP: ip, Port: port}
}

// udpRate is the per-address datagram rate limit in effect, for the start-up log: "240/s" or
// "off" (Config.UDPRate: 0 the default, negative none).
func udpRate(r int) string {
	switch {
	case r == 0:
		r = instance.DefaultRateLimit
	case r < 0:
		return "off"
	}
	return strconv.Itoa(r) + "/s"
}

// ParsePublicUDP reads Config.PublicUDP: the port START advertises (0: none given, the bound
// one). It accepts "PORT", ":PORT" and "[]:PORT"; a host is refused, because START carries only
// a port and players send to the lobby's host.
func ParsePublicUDP(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	host, port := "", s
	if strings.Contains(s, ":") {
		var err error
		if host, port, err = net.SplitHostPort(s); err != nil {
			return 0, fmt.Errorf("public udp %q: %w", s, err)
		}
	}
	if host != "" {
		return 0, fmt.Errorf("public udp %q: give only the port (\":%s\"): players send UDP to the host they reached the lobby at, START carries only the port (docs/PROTOCOL.md §2.5.1)", s, port)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("public udp %q: the port must be 1..65535", s)
	}
	return n, nil
}
