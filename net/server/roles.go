package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/handoff"
	"github.com/rtype/rtype/lobby/lobbyserver"
	"github.com/rtype/rtype/net/fleet"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/linksim"
	"github.com/rtype/rtype/net/metrics"
)

// Roles of one rtype-server binary (-role): "" is all in one process (Run's default);
// RoleLobby runs the TCP lobby only and hands every game to a host (-hosts); RoleHost runs
// the UDP games only, handed over by its lobby on the control address (-control).
const (
	RoleLobby = "lobby"
	RoleHost  = "host"
)

// DefaultDrainTimeout bounds how long a draining server (SIGTERM; every role) lets its running
// games go on before it ends them with GAME_END (-drain-timeout).
const DefaultDrainTimeout = 10 * time.Minute

// FleetConfig is what a split server adds to Config (docs/DEPLOY.md).
type FleetConfig struct {
	// Role is "", RoleLobby or RoleHost.
	Role string
	// Secret is the control channel's shared secret (RTYPE_CONTROL_SECRET; docs/CONTROL.md).
	Secret []byte
	// TLS, when set, runs the control channel over mutual TLS (-control-cert, -control-key,
	// -control-ca; fleet.LoadTLS): a host's server side or a lobby's client side. Secret may
	// then be empty.
	TLS *tls.Config
	// Hosts are a lobby's hosts' control addresses (-hosts).
	Hosts []string
	// Control is a host's control address (-control), e.g. ":4243".
	Control string
	// Capacity is the games a host takes at once (-capacity; 0: fleet.DefaultCapacity).
	Capacity int
	// StartTimeout bounds a lobby's hand-over of one game to its hosts (0:
	// fleet.DefaultStartTimeout).
	StartTimeout time.Duration
	// DrainTimeout bounds the drain at shutdown of every role (-drain-timeout; 0:
	// DefaultDrainTimeout; negative: none, the games end at once): no new game, the running
	// ones go on until they end or it passes (or Config.Abort closes), then end with GAME_END.
	DrainTimeout time.Duration
	// LeaveGames makes a lobby's stop (SIGTERM) leave its running games to its hosts instead
	// of draining them (-leave-games): it exits at once, and the next lobby started on the same
	// data directory (the same fleet.RemoteConfig.ID) takes them back (docs/CONTROL.md §4.3).
	LeaveGames bool
	// HostGrace is how long a lobby keeps a host's games when its control connection to it
	// fails, while it redials (-host-grace; 0: fleet.DefaultHostGrace; negative: none, they
	// end at once as lost; fleet.RemoteConfig.HostGrace).
	HostGrace time.Duration
	// Agones makes a host a GameServer of an Agones fleet (-agones; agones.go): the SDK
	// sidecar's address and port to advertise, Ready, Health, the games counter, labels, and
	// Shutdown after the drain.
	Agones bool
	// AgonesSDK is the sidecar's base URL ("": http://localhost:$AGONES_SDK_HTTP_PORT).
	AgonesSDK string
	// AgonesPort names the GameServer's UDP port players reach (-agones-port; "":
	// AgonesGamePort).
	AgonesPort string
	// AgonesRecycleAfter makes an emptied host shut down after this many games (a fresh pod
	// replaces it; -agones-recycle-after); 0: an emptied host goes back to Ready.
	AgonesRecycleAfter int
	// Allocator is a lobby's Agones allocator service URL (-allocator): every START allocates
	// a game place on FleetName in Namespace instead of choosing among Hosts, over mTLS
	// (AllocatorTLS).
	Allocator, Namespace, FleetName string
	AllocatorTLS                    *tls.Config
	// OnControl receives a host's bound control address (tests use port 0).
	OnControl func(net.Addr)
	// OnHost and OnRemote receive the host's control endpoint and the lobby's Remote (tests).
	OnHost   func(*fleet.Host)
	OnRemote func(*fleet.Remote)
}

// ParseRole checks -role.
func ParseRole(s string) (string, error) {
	switch s {
	case "", RoleLobby, RoleHost:
		return s, nil
	case "all", "all-in-one":
		return "", nil
	}
	return "", fmt.Errorf("-role %q: want lobby or host (or none: lobby and games in one process)", s)
}

// ParsePublicUDPHost reads a host's -public-udp: "PORT", ":PORT" or "HOST:PORT". Unlike the
// all-in-one server's (ParsePublicUDP), a host may name the address players reach: its lobby
// sends it in START (docs/PROTOCOL.md §2.5.1).
func ParsePublicUDPHost(s string) (host string, port int, err error) {
	if s == "" {
		return "", 0, nil
	}
	p := s
	if strings.Contains(s, ":") {
		if host, p, err = net.SplitHostPort(s); err != nil {
			return "", 0, fmt.Errorf("public udp %q: %w", s, err)
		}
	}
	if host != "" && !lobby.ValidHost(host) {
		return "", 0, fmt.Errorf("public udp %q: %q is not an IP address or DNS name (docs/PROTOCOL.md §2.5.1)", s, host)
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return "", 0, fmt.Errorf("public udp %q: the port must be 1..65535", s)
	}
	return host, n, nil
}

// managerConfig is the game runtime's configuration from cfg (all-in-one and host alike).
func managerConfig(cfg Config, stages *stagefile.Catalogue, ns linksim.Config, publicPort int, log *slog.Logger, onEnd func(*instance.Instance)) instance.Config {
	return instance.Config{
		Host: cfg.UDPHost, Port: cfg.UDPPort, PublicPort: publicPort, Stages: stages,
		NetSim: ns, SilenceTimeout: cfg.SilenceTimeout, RateLimit: cfg.UDPRate, RejoinWindow: cfg.RejoinWindow, Logger: log,
		OnGameEnd: onEnd,
	}
}

// runSplit is Run for -role lobby and -role host.
func runSplit(ctx context.Context, cfg Config) error {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
		cfg.Logger = log
	}
	if err := fleet.CheckAuth(cfg.Fleet.Secret, cfg.Fleet.TLS); err != nil {
		return err
	}
	if cfg.WebAddr != "" {
		return ErrWebSplit
	}
	if cfg.Stage == "" {
		cfg.Stage = stagefile.Default
	}
	stages, err := stagefile.LoadCatalogue(cfg.Stage, game.ParseScript)
	if err != nil {
		return fmt.Errorf("stage: %w", err)
	}
	switch cfg.Fleet.Role {
	case RoleHost:
		return runHost(ctx, cfg, stages)
	case RoleLobby:
		return runLobby(ctx, cfg, stages)
	}
	return fmt.Errorf("role %q", cfg.Fleet.Role)
}

// serveHTTP serves h on addr ("" = nothing) until the returned stop is called.
func serveHTTP(addr string, h func() http.Handler, log *slog.Logger, what string, onAddr func(net.Addr)) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s address: %w", what, err)
	}
	hs := &http.Server{Handler: h(), ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(ln)
	log.Info(what+" address listening", "addr", ln.Addr().String())
	if onAddr != nil {
		onAddr(ln.Addr())
	}
	return func() { hs.Close() }, nil
}

// runHost runs the games only (-role host): the UDP runtime and the control endpoint its
// lobby hands games over on. On ctx's end it drains: no new game, the running ones end on
// their own within DrainTimeout (then with GAME_END), and the control connections close.
func runHost(ctx context.Context, cfg Config, stages *stagefile.Catalogue) error {
	log := cfg.Logger
	if cfg.Fleet.Control == "" {
		return errors.New("-role host needs -control ADDR, the address its lobby connects to (e.g. :4243)")
	}
	if cfg.AdminAddr != "" {
		return errors.New("-admin serves the lobby (pprof, POST /broadcast); a host serves -metrics only")
	}
	ns, err := linksim.Parse(cfg.NetSim)
	if err != nil {
		return err
	}
	publicHost, publicPort, err := ParsePublicUDPHost(cfg.PublicUDP)
	if err != nil {
		return err
	}
	var ag *agonesHost
	if cfg.Fleet.Agones {
		if ag, err = newAgonesHost(ctx, cfg, log); err != nil {
			return err
		}
		if publicPort == 0 { // -public-udp wins over the GameServer's status
			publicHost, publicPort = ag.host, ag.port
		}
	}
	cln, err := net.Listen("tcp", cfg.Fleet.Control)
	if err != nil {
		return fmt.Errorf("control address: %w", err)
	}
	var reg *metrics.Registry
	mgr, err := instance.NewManager(managerConfig(cfg, stages, ns, publicPort, log, func(in *instance.Instance) {
		reg.GameEnded(in)
		if ag != nil {
			ag.ended()
		}
		if cfg.OnGameEnd != nil {
			cfg.OnGameEnd(in)
		}
	}))
	if err != nil {
		cln.Close()
		return err
	}
	reg = metrics.New(nil, mgr)
	// The host's own stages: a start names the lobby's by hash, and the lobby sends the files
	// the host does not have (docs/CONTROL.md §4.2).
	hc := fleet.HostConfig{Secret: cfg.Fleet.Secret, TLS: cfg.Fleet.TLS, Starter: mgr, Stages: stages, Capacity: cfg.Fleet.Capacity, PublicHost: publicHost, Logger: log,
		Report: hostReport(replaysOf(cfg))} // every game's record and replay go to its lobby's hall of fame
	var h *fleet.Host
	if ag != nil {
		// The games counter is the games; the lifecycle's busy count has the ends held for an
		// away lobby too: a host holding one stays Allocated (Agones deletes only Ready
		// GameServers), until the lobby comes back and takes it.
		hc.OnLoad = func(l fleet.Load) {
			ag.counter.Set(l.Games)
			ag.games(func() int { return h.Load().Games + h.Held() })
		}
	}
	h = fleet.NewHost(hc)
	draining := make(chan struct{})
	stopMetrics, err := serveHTTP(cfg.MetricsAddr, func() http.Handler {
		return MetricsHandler(reg, HTTPConfig{Hosts: cfg.HTTPHosts, NotReady: func() string {
			select {
			case <-draining:
				return NotReadyShuttingDown
			default:
				return ""
			}
		}})
	}, log, "metrics", cfg.OnMetrics)
	if err != nil {
		cln.Close()
		mgr.Shutdown(context.Background())
		return err
	}
	defer stopMetrics()
	log.Info("rtype game host listening", "control", cln.Addr().String(), "udp", net.JoinHostPort(cfg.UDPHost, strconv.Itoa(mgr.Port())),
		"udp_public", net.JoinHostPort(publicHost, strconv.Itoa(mgr.PublicPort())), "capacity", h.Load().Capacity,
		"stages", strings.Join(stages.Names(), ","))
	if cfg.Fleet.OnControl != nil {
		cfg.Fleet.OnControl(cln.Addr())
	}
	if cfg.Fleet.OnHost != nil {
		cfg.Fleet.OnHost(h)
	}
	if cfg.Ready != nil {
		cfg.Ready(cln.Addr(), mgr)
	}
	hostCtx, stopHost := context.WithCancel(context.Background())
	defer stopHost()
	served := make(chan error, 1)
	go func() { served <- h.Serve(hostCtx, cln) }()
	if ag != nil {
		if err := ag.start(ctx, h.Load().Capacity, stages, mgr, func() int { return mgr.Running() + h.Held() }, h.Drain); err != nil {
			log.Error("agones: the GameServer could not be made Ready", "err", err)
		}
		defer ag.stop()
	}
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
		served <- serveErr
	}
	close(draining)
	h.Drain()
	if ag != nil {
		ag.drain()
	}
	drainGames(func() int { return h.Load().Games }, cfg.Fleet.DrainTimeout, cfg.Abort, log)
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	shutErr := mgr.Shutdown(sctx) // what is left ends with GAME_END; the lobbies hear "ended"
	waitIdle(h, sctx)
	stopHost()
	if err := <-served; err != nil && serveErr == nil {
		serveErr = err
	}
	log.Info("rtype game host stopped")
	if serveErr != nil && !errors.Is(serveErr, net.ErrClosed) {
		return serveErr
	}
	return shutErr
}

// drainGames waits until games() is 0, at most d (0: DefaultDrainTimeout; negative: not at
// all), or until abort closes (a second SIGTERM): the drain of every role.
func drainGames(games func() int, d time.Duration, abort <-chan struct{}, log *slog.Logger) {
	if d == 0 {
		d = DefaultDrainTimeout
	}
	if d < 0 || games() == 0 {
		return
	}
	log.Info("draining: no new game; waiting for the running ones to end (a second SIGTERM ends them now)", "games", games(), "drain_timeout", d)
	deadline := time.Now().Add(d)
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for games() > 0 && time.Now().Before(deadline) {
		select {
		case <-t.C:
		case <-abort:
			log.Warn("drain cut short: ending the games still running", "games", games())
			return
		}
	}
	if n := games(); n > 0 {
		log.Warn("drain timeout: ending the games still running", "games", n)
	}
}

// drainLeft is what CLOSING tells the players their games have left in a drain of d (as
// drainGames reads d).
func drainLeft(d time.Duration) time.Duration {
	switch {
	case d == 0:
		return DefaultDrainTimeout
	case d < 0:
		return 0
	}
	return d
}

// waitIdle waits until h counts no game (their ends reported to the lobbies), or ctx.
func waitIdle(h *fleet.Host, ctx context.Context) {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for h.Load().Games > 0 {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// LobbyIDFile is the file of the lobby's data directory that keeps its name for its hosts
// (fleet.RemoteConfig.ID, docs/CONTROL.md §4.3): the same across restarts, so that a restarted
// lobby gets back the games it left running on its hosts.
const LobbyIDFile = "lobby-id"

// lobbyID is the lobby's name for its hosts: a random UUID kept in DataDir (made at the first
// start), or, without a data directory, its -addr and the machine's host name.
func lobbyID(cfg Config) (string, error) {
	if cfg.DataDir == "" {
		name, _ := os.Hostname()
		return "addr:" + cfg.Addr + "@" + name, nil
	}
	path := filepath.Join(cfg.DataDir, LobbyIDFile)
	if b, err := os.ReadFile(path); err == nil {
		if id := strings.TrimSpace(string(b)); id != "" && len(id) <= 128 {
			return id, nil
		}
		return "", fmt.Errorf("%s: not a lobby id (remove it to make a new one)", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("lobby id: %w", err)
	}
	if err := os.MkdirAll(cfg.DataDir, 0o750); err != nil {
		return "", fmt.Errorf("lobby id: %w", err)
	}
	id := uuid.NewString()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(id+"\n"), 0o640); err != nil {
		return "", fmt.Errorf("lobby id: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("lobby id: %w", err)
	}
	return id, nil
}

// runLobby runs the TCP lobby only (-role lobby): every START goes to one of cfg.Fleet.Hosts.
func runLobby(ctx context.Context, cfg Config, stages *stagefile.Catalogue) error {
	log := cfg.Logger
	if len(cfg.Fleet.Hosts) == 0 && cfg.Fleet.Allocator == "" {
		return errors.New("-role lobby needs -hosts host:port,... (the hosts' -control addresses) or -allocator (Agones)")
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	q, err := checkListing(cfg)
	if err != nil {
		ln.Close()
		return err
	}
	// A listed lobby answers the lists' tokens (and the queries) on its own UDP socket: it has
	// no game socket.
	var qconn *net.UDPConn
	if len(cfg.Lists) > 0 {
		if qconn, err = listenQuery(cfg.QueryAddr, ln.Addr()); err != nil {
			ln.Close()
			return err
		}
		defer qconn.Close()
	}
	ln = lobbyListener(ln, cfg.TrustedProxies)
	// The hall of fame is the lobby's, as in one process: its hosts send each game's record
	// and replay (docs/CONTROL.md §4.1).
	hall, err := openHall(ctx, cfg, log)
	if err != nil {
		ln.Close()
		return fmt.Errorf("hall of fame: %w", err)
	}
	if hall != nil {
		defer closeHall(hall, log) // after the hosts' connections: the games they end are kept
	}
	id, err := lobbyID(cfg)
	if err != nil {
		ln.Close()
		return err
	}
	rc := fleet.RemoteConfig{Hosts: cfg.Fleet.Hosts, Secret: cfg.Fleet.Secret, TLS: cfg.Fleet.TLS, Logger: log, StartTimeout: cfg.Fleet.StartTimeout, ID: id,
		HostGrace: cfg.Fleet.HostGrace}
	if cfg.Fleet.Allocator != "" {
		rc.Allocate = allocate(cfg.Fleet, log)
		if cfg.DataDir != "" {
			// The allocated hosts that hold this lobby's games: its next run attaches to them
			// (docs/CONTROL.md §4.3).
			rc.AllocatedFile = filepath.Join(cfg.DataDir, fleet.AllocatedHostsFile)
		}
	}
	var lh lobbyserver.Hall // a nil *scoredb.Hall must stay a nil interface
	if hall != nil {
		lh = hall
		rc.OnGameEnd = func(spec handoff.GameSpec, end fleet.GameEnd) {
			if !spec.Practice() { // a practice game is not kept (docs/PROTOCOL.md §2.5.9)
				hall.Record(splitRecord(spec, end), end.Replay)
			}
		}
	}
	var srv *lobbyserver.Server // set before remote runs
	rc.OnAdopt = func(spec handoff.GameSpec, g handoff.Game) { srv.AdoptGame(spec, g) }
	remote := fleet.NewRemote(rc)
	// AsyncStart: a START waits for a host's reply off the lobby's lock (lobby/lobbyserver/starting.go).
	srv = lobbyserver.NewServer(lobbyserver.ServerConfig{MaxLobbies: cfg.MaxLobbies, IdleTimeout: cfg.IdleTimeout, Starter: remote, AsyncStart: true, Hall: lh, Logger: log,
		Stages: stages, MaxConns: cfg.MaxConns, MaxConnsPerAddr: cfg.MaxConnsPerAddr, MaxLobbiesPerAddr: cfg.MaxLobbiesPerAddr,
		CommandRate: cfg.CommandRate, AuthTimeout: cfg.AuthTimeout, Password: cfg.Password})
	mod := newModeration(srv, hall, log)
	stopMod := mod.run(ctx, cfg.Reloads)
	defer stopMod()
	if qconn != nil {
		q.setEntry(lobbyEntry(cfg, srv, stages, ln.Addr(), qconn.LocalAddr().(*net.UDPAddr).Port, true), stages.Default().Name)
		qctx, stopQuery := context.WithCancel(context.Background())
		queryDone := make(chan struct{})
		go func() { defer close(queryDone); serveQuery(qctx, qconn, answerers(q), cfg.UDPRate) }()
		defer func() { stopQuery(); <-queryDone }()
		log.Info("lobby query socket listening", "udp", qconn.LocalAddr().String())
		waitListing := startListing(ctx, cfg, q, ln.Addr(), log) // leaves the lists when ctx ends
		defer waitListing()
	}
	reg := metrics.New(srv, nil)
	reg.WatchFleet(remote.Hosts)
	if hall != nil {
		reg.WatchHall(hall.Stats)
	}
	// Ready (GET /readyz) while serving with at least one host up: a lobby without hosts
	// cannot start a game.
	hcfg := HTTPConfig{Token: cfg.AdminToken, Hosts: cfg.HTTPHosts, mod: mod, NotReady: func() string {
		switch {
		case ctx.Err() != nil:
			return NotReadyShuttingDown
		case remote.Up() == 0 && rc.Allocate == nil:
			return NotReadyNoHosts
		}
		return ""
	}}
	stopMetrics, err := serveHTTP(cfg.MetricsAddr, func() http.Handler { return MetricsHandler(reg, hcfg) }, log, "metrics", cfg.OnMetrics)
	if err != nil {
		ln.Close()
		return err
	}
	defer stopMetrics()
	stopAdmin, err := serveHTTP(cfg.AdminAddr, func() http.Handler { return AdminHandler(reg, srv, log, hcfg) }, log, "admin", cfg.OnAdmin)
	if err != nil {
		ln.Close()
		return err
	}
	defer stopAdmin()
	log.Info("rtype lobby listening", "lobby", ln.Addr().String(), "hosts", strings.Join(cfg.Fleet.Hosts, ","),
		"stage", stages.Default().Name, "stages", strings.Join(stages.Names(), ","))
	if cfg.Fleet.OnRemote != nil {
		cfg.Fleet.OnRemote(remote)
	}
	if cfg.Ready != nil {
		cfg.Ready(ln.Addr(), nil)
	}
	remoteCtx, stopRemote := context.WithCancel(context.Background())
	remoteDone := make(chan struct{})
	go func() { defer close(remoteDone); remote.Run(remoteCtx) }()
	// The games of this lobby's earlier run come back from its hosts (their lobbies recreated:
	// AdoptGame) before the players it serves RESUME them, within fleet.AttachWait.
	attachWait := time.NewTimer(fleet.AttachWait)
	select {
	case <-remote.Attached():
	case <-attachWait.C:
		log.Warn("not every game host answered in time: the lobby serves, their games come back when they do", "waited", fleet.AttachWait)
	case <-ctx.Done():
	}
	attachWait.Stop()
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
	log.Info("rtype lobby shutting down")
	if cfg.Fleet.LeaveGames {
		// An upgrade: the games go on on the hosts, which hand them back to the next lobby on
		// this data directory; the players' clients get back into it by themselves.
		log.Info("leaving the running games to their hosts for the next lobby (-leave-games)", "games", srv.Stats().LobbiesRunning)
		remote.LeaveGames() // first: the players' connections closing send no drop
		stopLobby()
		<-serveErr
		stopRemote()
		<-remoteDone
		log.Info("rtype lobby stopped")
		return nil
	}
	// No new game; every connection is told why and how long the games have left (CLOSING,
	// docs/PROTOCOL.md §2.5.13); the games on the hosts go on for the drain, then end.
	running := func() int { return srv.Stats().LobbiesRunning }
	left := drainLeft(cfg.Fleet.DrainTimeout)
	if running() == 0 {
		left = 0
	}
	srv.Drain(left)
	drainGames(running, cfg.Fleet.DrainTimeout, cfg.Abort, log)
	if running() > 0 {
		srv.Closing(lobby.ClosingShutdown, 0) // the drain is over: the games end now
	}
	// The hosts' connections close first: the hosts end this lobby's games (GAME_END to the
	// players) and the lobby pushes END for each; then the lobby's connections close.
	stopRemote()
	<-remoteDone
	stopLobby()
	err2 = <-serveErr
	log.Info("rtype lobby stopped")
	if err2 != nil && !errors.Is(err2, context.Canceled) && !errors.Is(err2, net.ErrClosed) {
		return err2
	}
	return nil
}

// listenQuery opens a split lobby's UDP query socket on addr, or ("") on the host and port
// number of the lobby's address lobby.
func listenQuery(addr string, lobby net.Addr) (*net.UDPConn, error) {
	if addr == "" {
		addr = lobby.String()
	}
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err == nil {
		var c *net.UDPConn
		if c, err = net.ListenUDP("udp", ua); err == nil {
			return c, nil
		}
	}
	return nil, fmt.Errorf("lobby query socket (UDP %s, the lists' tokens come to it): %w", addr, err)
}
