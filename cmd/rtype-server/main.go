// Command rtype-server hosts rtype games: a TCP lobby (default :4242) and one UDP port shared by the
// game instances of every started lobby. Every flag can also be set with the environment variable shown by -h.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"

	"github.com/rtype/rtype/game/buildinfo"
	"github.com/rtype/rtype/lobby/scores"
	"github.com/rtype/rtype/net/server"
	"github.com/rtype/rtype/net/webpage"
)

// stopSignals returns a context that ends at the first stop signal and a channel that closes at
// the second.
func stopSignals() (context.Context, <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	abort := make(chan struct{})
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel()
		<-sigs
		close(abort)
		signal.Stop(sigs)
	}()
	return ctx, abort
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "broadcast" {
		os.Exit(broadcast(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "admin" {
		os.Exit(admin(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "health" {
		os.Exit(health(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "replay" {
		os.Exit(replayCmd(os.Args[2:]))
	}
	fs, o, err := loadOptions(os.Args[1:], os.LookupEnv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		if !isParseErr(err) {
			fmt.Fprintln(os.Stderr, "rtype-server:", err)
		}
		os.Exit(2)
	}
	cfg, ff, af := o.cfg, o.fleet, o.agones
	logFormat, logLevel, dataErr := o.logFormat, o.logLevel, o.dataErr
	version, keepBytes, tokenFile, httpHosts, udpPort, cpuProfile := o.version, o.keepBytes, o.tokenFile, o.httpHosts, o.udpPort, o.cpuProf
	if *version {
		fmt.Println(buildinfo.String("rtype-server"))
		return
	}
	if cfg.TrustedProxies, err = server.ParseTrustedProxies(*o.trustedProxies); err != nil {
		fmt.Fprintln(os.Stderr, "rtype-server:", err)
		os.Exit(2)
	}
	cfg.NoVerify = !*o.verifyScores
	if cfg.KeepBytes, err = scores.ParseSize(*keepBytes); err != nil {
		fmt.Fprintln(os.Stderr, "rtype-server: -keep-bytes:", err)
		os.Exit(2)
	}
	if cfg.KeepDays < 0 {
		fmt.Fprintln(os.Stderr, "rtype-server: -keep-days must be 0 (keep) or more")
		os.Exit(2)
	}
	if cfg.DataDir == "" && cfg.DB != "off" {
		fmt.Fprintf(os.Stderr, "rtype-server: no data directory (%v): give -data DIR, or -db off\n", dataErr)
		os.Exit(2)
	}
	tok, err := adminToken(*tokenFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rtype-server:", err)
		os.Exit(2)
	}
	cfg.AdminToken = tok
	if cfg.Password, err = serverPassword(*o.passwordFile); err != nil {
		fmt.Fprintln(os.Stderr, "rtype-server:", err)
		os.Exit(2)
	}
	for _, u := range strings.Split(*o.lists, ",") {
		if u = strings.TrimSpace(u); u != "" {
			cfg.Lists = append(cfg.Lists, u)
		}
	}
	if cfg.WebAddr != "" {
		page := os.DirFS(*o.webDir)
		if err := webpage.Check(page); err != nil {
			fmt.Fprintf(os.Stderr, "rtype-server: -web-dir %q: %v\n", *o.webDir, err)
			os.Exit(2)
		}
		cfg.WebPage = webpage.Handler(page, buildinfo.Get())
	}
	for _, h := range strings.Split(*httpHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			cfg.HTTPHosts = append(cfg.HTTPHosts, h)
		}
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "rtype-server: unexpected argument %q: flags only (see -h); the subcommands are \"admin\", \"broadcast\", \"health\" and \"replay\", first\n", fs.Arg(0))
		os.Exit(2)
	}
	addrHost, addrPort, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rtype-server: -addr %q: %v (want host:port, e.g. :4242 or 127.0.0.1:4242)\n", cfg.Addr, err)
		os.Exit(2)
	}
	if err := checkLimits(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "rtype-server:", err)
		os.Exit(2)
	}
	if cfg.UDPHost == "" {
		cfg.UDPHost = addrHost // a lobby on loopback keeps its games on loopback too
	}
	err = ff.apply(&cfg, *af.allocator)
	if err == nil {
		err = af.apply(&cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rtype-server:", err)
		os.Exit(2)
	}

	level := new(slog.LevelVar) // SIGHUP may change it (reload)
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		fmt.Fprintln(os.Stderr, "rtype-server: -log-level:", err)
		os.Exit(2)
	}
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: server.ReplaceLogAttr}
	switch logFormat {
	case "text":
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, opts))
	case "json":
		cfg.Logger = slog.New(slog.NewJSONHandler(os.Stderr, opts))
	default:
		fmt.Fprintln(os.Stderr, "rtype-server: -log-format must be text or json")
		os.Exit(2)
	}
	p, from := *udpPort, "-udp-port"
	if p == "" {
		p, from = addrPort, "the port of -addr" // the UDP port defaults to the lobby's
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 0 || n > 65535 {
		fmt.Fprintf(os.Stderr, "rtype-server: %s %q is not a port number (0..65535)\n", from, p)
		os.Exit(2)
	}
	cfg.UDPPort = n
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "rtype-server: -cpuprofile:", err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	// The first SIGINT or SIGTERM (systemctl stop, docker stop, a pod's deletion) drains: no new
	// game, the running ones go on for -drain-timeout, then end with GAME_END; a second one ends
	// them at once. SIGHUP reloads the config file and the bans (reload) and never ends a game.
	ctx, abort := stopSignals()
	cfg.Abort = abort
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	reloads := make(chan server.Reload, 1)
	cfg.Reloads = reloads
	go func() {
		cur := fs
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				if next := reload(fs, cur, os.Args[1:], os.LookupEnv, level, cfg.Logger, reloads); next != nil {
					cur = next
				}
			}
		}
	}()
	if err := server.Run(ctx, cfg); err != nil {
		cfg.Logger.Error("server failed", "err", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}
