// Command rtype-server hosts rtype games: a TCP lobby (default :4242) and one UDP port shared by the
// game instances of every started lobby. Every flag can also be set with the environment variable shown by -h.
package main

import (
	"context"
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
	"time"

	"github.com/rtype/rtype/game/buildinfo"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/scores"
	"github.com/rtype/rtype/net/instance"
	"github.com/rtype/rtype/net/server"
)

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func envInt(name string, def int) int {
	if v, ok := os.LookupEnv(name); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "rtype-server: %s=%q is not a number\n", name, v)
			os.Exit(2)
		}
		return n
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if v, ok := os.LookupEnv(name); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "rtype-server: %s=%q is not a duration\n", name, v)
			os.Exit(2)
		}
		return d
	}
	return def
}

func envFloat(name string, def float64) float64 {
	if v, ok := os.LookupEnv(name); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			fmt.Fprintf(os.Stderr, "rtype-server: %s=%q is not a number\n", name, v)
			os.Exit(2)
		}
		return f
	}
	return def
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "broadcast" {
		os.Exit(broadcast(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "health" {
		os.Exit(health(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "replay" {
		os.Exit(replayCmd(os.Args[2:]))
	}
	var cfg server.Config
	var logFormat, logLevel string
	flag.StringVar(&cfg.Addr, "addr", env("RTYPE_ADDR", ":4242"), "TCP lobby address host:port (env RTYPE_ADDR)")
	flag.StringVar(&cfg.UDPHost, "udp-addr", env("RTYPE_UDP_ADDR", ""), "host the game socket binds (UDP); empty = the host of -addr (all interfaces when -addr names none); 0.0.0.0 or :: = all interfaces (env RTYPE_UDP_ADDR)")
	flag.StringVar(&cfg.PublicUDP, "public-udp", env("RTYPE_PUBLIC_UDP", ""), "UDP port players reach, advertised by START instead of the bound one, as :PORT (behind Docker -p PORT:4242/udp or a NAT port forward); empty = the bound port (env RTYPE_PUBLIC_UDP)")
	udpPort := flag.String("udp-port", env("RTYPE_UDP_PORT", ""), "UDP port every game shares; empty = the port number of -addr, 0 = chosen by the OS (env RTYPE_UDP_PORT)")
	flag.IntVar(&cfg.MaxLobbies, "max-lobbies", envInt("RTYPE_MAX_LOBBIES", 64), "maximum number of lobbies at once; 0 or less means the default 64 (env RTYPE_MAX_LOBBIES)")
	flag.IntVar(&cfg.MaxConns, "max-conns", envInt("RTYPE_MAX_CONNS", lobby.DefaultMaxConns), "maximum lobby connections at once (env RTYPE_MAX_CONNS)")
	flag.IntVar(&cfg.MaxConnsPerAddr, "max-conns-per-addr", envInt("RTYPE_MAX_CONNS_PER_ADDR", lobby.DefaultMaxConnsPerAddr), "maximum lobby connections at once from one IP address (env RTYPE_MAX_CONNS_PER_ADDR)")
	flag.IntVar(&cfg.MaxLobbiesPerAddr, "max-lobbies-per-addr", envInt("RTYPE_MAX_LOBBIES_PER_ADDR", lobby.DefaultMaxLobbiesPerAddr), "maximum lobbies at once whose owner connects from one IP address (env RTYPE_MAX_LOBBIES_PER_ADDR)")
	flag.Float64Var(&cfg.CommandRate, "rate", envFloat("RTYPE_RATE", lobby.DefaultCommandRate), "lobby lines per second per connection, in bursts of 20 (env RTYPE_RATE)")
	flag.DurationVar(&cfg.AuthTimeout, "auth-timeout", envDuration("RTYPE_AUTH_TIMEOUT", lobby.DefaultAuthTimeout), "close lobby connections that have not authenticated after this long; negative = never (env RTYPE_AUTH_TIMEOUT)")
	flag.DurationVar(&cfg.IdleTimeout, "idle-timeout", envDuration("RTYPE_IDLE_TIMEOUT", lobby.DefaultIdleTimeout), "close lobby connections without a valid command for this long, except in game; negative = never (env RTYPE_IDLE_TIMEOUT)")
	flag.StringVar(&cfg.MetricsAddr, "metrics", env("RTYPE_METRICS", ""), "serve only GET /metrics (Prometheus), /healthz and /readyz over HTTP on this address, e.g. 127.0.0.1:9100; empty = off (env RTYPE_METRICS)")
	flag.StringVar(&cfg.AdminAddr, "admin", env("RTYPE_ADMIN", ""), "serve the metrics endpoints and, with the admin token, /debug/pprof/ and POST /broadcast over HTTP on this address, e.g. 127.0.0.1:9090; keep it on loopback; empty = off (env RTYPE_ADMIN)")
	tokenFile := flag.String("admin-token-file", env("RTYPE_ADMIN_TOKEN_FILE", ""), "file holding the admin token that /debug/pprof/ and POST /broadcast require (Authorization: Bearer TOKEN); else the env RTYPE_ADMIN_TOKEN; neither = those endpoints are off (env RTYPE_ADMIN_TOKEN_FILE)")
	httpHosts := flag.String("http-hosts", env("RTYPE_HTTP_HOSTS", ""), "comma-separated host names the metrics and admin addresses answer to, besides IP addresses and localhost (others are refused: DNS rebinding) (env RTYPE_HTTP_HOSTS)")
	flag.StringVar(&cfg.Arcade, "arcade", env("RTYPE_ARCADE", ""), "stages of the arcade run lobbies may choose, comma-separated offered stages (default stage1,stage2,stage3, those offered; none: no arcade run) (env RTYPE_ARCADE)")
	flag.StringVar(&cfg.Stage, "stage", env("RTYPE_STAGE", stagefile.Default), "default stage of new lobbies: an embedded stage (stage1, short, ...) or a path to a stage JSON file, which is then offered too; lobbies may choose any offered stage (env RTYPE_STAGE)")
	flag.IntVar(&cfg.UDPRate, "udp-rate", envInt("RTYPE_UDP_RATE", instance.DefaultRateLimit), "datagrams per second each source address (IP and port) may send to the game port, in bursts of twice as many; the excess is dropped; negative = no limit (env RTYPE_UDP_RATE)")
	flag.StringVar(&cfg.NetSim, "netsim", env("RTYPE_NETSIM", ""), `simulate a bad network on game sockets, e.g. "lat=75ms,jitter=10ms,loss=5%,dup=1%" (env RTYPE_NETSIM)`)
	dataDir, dataErr := scores.DefaultDataDir()
	flag.StringVar(&cfg.DataDir, "data", env("RTYPE_DATA", dataDir), "data directory: the hall of fame's SQLite database (rtype.db) and the replays (replays/); README \"Where the data lives\" (env RTYPE_DATA)")
	flag.StringVar(&cfg.DB, "db", env("RTYPE_DB", "sqlite"), "hall of fame database: sqlite (DIR/rtype.db of -data), sqlite:PATH, a postgres://user:password@host/db URL, or off (no game kept) (env RTYPE_DB)")
	flag.IntVar(&cfg.KeepDays, "keep-days", envInt("RTYPE_KEEP_DAYS", 0), "remove the replays of games older than this many days (the 10 best of each stage and player count stay; scores are never removed); 0 = keep (env RTYPE_KEEP_DAYS)")
	keepBytes := flag.String("keep-bytes", env("RTYPE_KEEP_BYTES", "0"), "remove the oldest replays while they take more than this, e.g. 500M or 20G (the 10 best of each stage and player count stay); 0 = no limit (env RTYPE_KEEP_BYTES)")
	flag.StringVar(&logFormat, "log-format", env("RTYPE_LOG_FORMAT", "text"), "log format: text or json (env RTYPE_LOG_FORMAT)")
	flag.StringVar(&logLevel, "log-level", env("RTYPE_LOG_LEVEL", "info"), "log level: debug, info, warn, error (env RTYPE_LOG_LEVEL)")
	version := flag.Bool("version", false, "print the version and exit (not configuration: no env)")
	cpuProfile := flag.String("cpuprofile", env("RTYPE_CPUPROFILE", ""), "write a CPU profile of the whole run to this file, for capacity measurements (env RTYPE_CPUPROFILE)")
	ff, af := addFleetFlags(), addAgonesFlags()
	flag.Parse()
	if *version {
		fmt.Println(buildinfo.String("rtype-server"))
		return
	}
	var err error
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
	for _, h := range strings.Split(*httpHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			cfg.HTTPHosts = append(cfg.HTTPHosts, h)
		}
	}
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "rtype-server: unexpected argument %q: flags only (see -h); the subcommands are \"broadcast\" and \"replay\", first\n", flag.Arg(0))
		os.Exit(2)
	}
	addrHost, addrPort, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rtype-server: -addr %q: %v (want host:port, e.g. :4242 or 127.0.0.1:4242)\n", cfg.Addr, err)
		os.Exit(2)
	}
	for _, lim := range []struct {
		name string
		ok   bool
	}{
		{"-max-conns", cfg.MaxConns > 0}, {"-max-conns-per-addr", cfg.MaxConnsPerAddr > 0},
		{"-max-lobbies-per-addr", cfg.MaxLobbiesPerAddr > 0}, {"-rate", cfg.CommandRate > 0},
	} {
		if !lim.ok {
			fmt.Fprintf(os.Stderr, "rtype-server: %s must be positive (see -h for its default)\n", lim.name)
			os.Exit(2)
		}
	}
	for _, off := range []struct {
		name string
		zero bool
	}{{"-auth-timeout", cfg.AuthTimeout == 0}, {"-idle-timeout", cfg.IdleTimeout == 0}, {"-udp-rate", cfg.UDPRate == 0}} {
		if off.zero {
			fmt.Fprintf(os.Stderr, "rtype-server: %s 0 is ambiguous: give a positive value, or a negative one (-1) for none\n", off.name)
			os.Exit(2)
		}
	}
	if cfg.UDPHost == "" {
		cfg.UDPHost = addrHost // a lobby on loopback keeps its games on loopback too
	}
	err = ff.apply(&cfg)
	if err == nil {
		err = af.apply(&cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rtype-server:", err)
		os.Exit(2)
	}

	var level slog.Level
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
	// SIGHUP (the terminal closed) is a graceful stop too: every game ends with GAME_END, as on
	// SIGINT and SIGTERM, rather than the default of dying with status 129 mid-game.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := server.Run(ctx, cfg); err != nil {
		cfg.Logger.Error("server failed", "err", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}
