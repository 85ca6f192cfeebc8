package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/lobbyserver"
	"github.com/rtype/rtype/lobby/scores"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/server"
)

// envName is the environment variable that sets flag name: RTYPE_ and the name in upper case,
// '-' as '_' (-max-conns: RTYPE_MAX_CONNS).
func envName(name string) string {
	return "RTYPE_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// noEnv are the flags that are not configuration: no environment variable sets them.
var noEnv = map[string]bool{"version": true}

// bindEnv sets every flag of fs (but noEnv) from its environment variable (envName), as lookup
// finds it, and names the variable in the flag's help. Call it before fs.Parse, so that the
// command line overrides the environment. A boolean flag also takes yes/on and no/off (and an
// empty value for false).
func bindEnv(fs *flag.FlagSet, lookup func(string) (string, bool)) error {
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if noEnv[f.Name] {
			return
		}
		name := envName(f.Name)
		f.Usage += " (env " + name + ")"
		v, ok := lookup(name)
		if !ok {
			return
		}
		if b, isBool := f.Value.(interface{ IsBoolFlag() bool }); isBool && b.IsBoolFlag() {
			switch strings.ToLower(v) {
			case "yes", "on":
				v = "true"
			case "no", "off", "":
				v = "false"
			}
		}
		if err := fs.Set(f.Name, v); err != nil {
			errs = append(errs, fmt.Errorf("%s=%q (-%s): %v", name, v, f.Name, err))
		}
	})
	return errors.Join(errs...)
}

// options are where the server's flags land.
type options struct {
	cfg                                               server.Config
	logFormat, logLevel                               string
	udpPort, tokenFile, httpHosts, keepBytes, cpuProf *string
	trustedProxies, config, passwordFile, lists       *string
	webDir                                            *string
	version, verifyScores                             *bool
	dataErr                                           error // why there is no default -data
	fleet                                             *fleetFlags
	agones                                            *agonesFlags
}

// defineFlags defines the server's flags on fs, with the defaults of the packages they configure.
func defineFlags(fs *flag.FlagSet) *options {
	o := &options{}
	cfg := &o.cfg
	fs.StringVar(&cfg.Addr, "addr", ":"+strconv.Itoa(lobby.DefaultPort), "TCP lobby address host:port")
	fs.StringVar(&cfg.UDPHost, "udp-addr", "", "host the game socket binds (UDP); empty = the host of -addr (all interfaces when -addr names none); 0.0.0.0 or :: = all interfaces")
	fs.StringVar(&cfg.PublicUDP, "public-udp", "", "UDP port players reach, advertised by START instead of the bound one: :PORT (behind Docker -p PORT:4242/udp or a NAT port forward; players send to the lobby's host), or HOST:PORT with -role host (where players reach this host); empty = the bound port")
	o.udpPort = fs.String("udp-port", "", "UDP port every game shares; empty = the port number of -addr, 0 = chosen by the OS")
	fs.IntVar(&cfg.MaxLobbies, "max-lobbies", lobbyserver.DefaultMaxLobbies, "maximum number of lobbies at once")
	fs.IntVar(&cfg.MaxConns, "max-conns", lobbyserver.DefaultMaxConns, "maximum lobby connections at once")
	fs.IntVar(&cfg.MaxConnsPerAddr, "max-conns-per-addr", lobbyserver.DefaultMaxConnsPerAddr, "maximum lobby connections at once from one IP address")
	fs.IntVar(&cfg.MaxLobbiesPerAddr, "max-lobbies-per-addr", lobbyserver.DefaultMaxLobbiesPerAddr, "maximum lobbies at once whose owner connects from one IP address")
	fs.Float64Var(&cfg.CommandRate, "rate", lobbyserver.DefaultCommandRate, fmt.Sprintf("lobby lines per second per connection, in bursts of %d or 2 seconds' worth, whichever is more", lobbyserver.CommandBurst))
	fs.DurationVar(&cfg.AuthTimeout, "auth-timeout", lobbyserver.DefaultAuthTimeout, "close lobby connections that have not authenticated after this long; negative = never")
	fs.DurationVar(&cfg.IdleTimeout, "idle-timeout", lobbyserver.DefaultIdleTimeout, "close lobby connections without a valid command for this long, except in game; negative = never")
	fs.StringVar(&cfg.MetricsAddr, "metrics", "", "serve only GET /metrics (Prometheus), /healthz and /readyz over HTTP on this address, e.g. 127.0.0.1:9100; empty = off")
	fs.StringVar(&cfg.AdminAddr, "admin", "", "serve the metrics endpoints and, with the admin token, /debug/pprof/, POST /broadcast and the moderation endpoints (players, kick, ban, mute) over HTTP on this address, e.g. 127.0.0.1:9090; keep it on loopback; empty = off")
	fs.StringVar(&cfg.WebAddr, "web", "", "serve the browser client over HTTP on this address, e.g. :8080: the page at / and the WebSocket lobby at /lobby (the game goes over WebRTC on the UDP port); empty = off")
	o.tokenFile = fs.String("admin-token-file", "", "file holding the admin token that /debug/pprof/ and POST /broadcast require (Authorization: Bearer TOKEN); else the env RTYPE_ADMIN_TOKEN; neither = those endpoints are off")
	o.passwordFile = fs.String("password-file", "", "file whose first line is the server password: a private server, whose players must give it to authenticate (docs/PROTOCOL.md §2.4.1); empty = public")
	o.webDir = fs.String("web-dir", "bin/web", "the browser client's page that -web serves at / (make web writes it); checked at start when -web is set")
	o.trustedProxies = fs.String("trusted-proxies", "", "comma-separated addresses or CIDRs of load balancers that may open a lobby connection with a PROXY protocol header (v1/v2) naming the player's address, which the per-address limits and logs then use; empty = none")
	o.httpHosts = fs.String("http-hosts", "", "comma-separated host names the metrics, admin and web addresses answer to, besides IP addresses and localhost (others are refused: DNS rebinding)")
	fs.StringVar(&cfg.Arcade, "arcade", "", "stages of the arcade run lobbies may choose, comma-separated offered stages (default stage1,stage2,stage3, those offered; none: no arcade run)")
	fs.StringVar(&cfg.Stage, "stage", stagefile.Default, "default stage of new lobbies: an embedded stage (stage1, short, ...) or a path to a stage JSON file, which is then offered too; a comma-separated list of them offers exactly those stages, the first the default; lobbies may choose any offered stage")
	fs.IntVar(&cfg.UDPRate, "udp-rate", instance.DefaultRateLimit, "datagrams per second each source address (IP and port) may send to the game port, in bursts of twice as many; the excess is dropped; negative = no limit")
	fs.StringVar(&cfg.NetSim, "netsim", "", `simulate a bad network on game sockets, e.g. "lat=75ms,jitter=10ms,loss=5%,dup=1%"`)
	var dataDir string
	dataDir, o.dataErr = scores.DefaultDataDir()
	fs.StringVar(&cfg.DataDir, "data", dataDir, "data directory: the hall of fame's SQLite database (rtype.db) and the replays (replays/); docs/HOSTING.md \"Where the data lives\"")
	fs.StringVar(&cfg.DB, "db", "sqlite", "hall of fame database: sqlite (DIR/rtype.db of -data), sqlite:PATH, a postgres://user:password@host/db URL, or off (no game kept)")
	fs.IntVar(&cfg.KeepDays, "keep-days", 0, "remove the replays of games older than this many days (the 10 best of each stage and player count stay; scores are never removed); 0 = keep")
	o.verifyScores = fs.Bool("verify-scores", true, "replay every finished game before it enters the hall of fame and keep it only if its replay reproduces its results (false: store what the game or host reports)")
	o.keepBytes = fs.String("keep-bytes", "0", "remove the oldest replays while they take more than this, e.g. 500M or 20G (the 10 best of each stage and player count stay); 0 = no limit")
	fs.StringVar(&o.logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	o.config = fs.String("config", "", "TOML file of flag settings, keys the flag names (max-conns = 64); the environment and the command line override it; SIGHUP reloads it (docs/HOSTING.md \"Config file\")")
	o.version = fs.Bool("version", false, "print the version and exit (not configuration: no env)")
	o.lists = fs.String("list", "", "comma-separated URLs of server lists to register with (e.g. https://list.example.org), so that strangers find the server; empty = private, not listed (docs/HOSTING.md \"Listing a server\")")
	fs.StringVar(&cfg.Name, "name", "", "the server's name in the server lists (at most 64 bytes); needed with -list")
	fs.StringVar(&cfg.MOTD, "motd", "", "the server's description in the server lists (at most 200 bytes)")
	fs.StringVar(&cfg.Region, "region", "", "the server's region in the server lists, as you name it (e.g. eu-west; at most 32 bytes)")
	o.cpuProf = fs.String("cpuprofile", "", "write a CPU profile of the whole run to this file, for capacity measurements")
	o.fleet, o.agones = addFleetFlags(fs), addAgonesFlags(fs)
	return o
}
