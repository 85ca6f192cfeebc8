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
	"syscall"

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

func main() {
	var cfg server.Config
	var logFormat, logLevel string
	flag.StringVar(&cfg.Addr, "addr", env("RTYPE_ADDR", ":4242"), "TCP lobby address host:port (env RTYPE_ADDR)")
	flag.StringVar(&cfg.UDPHost, "udp-addr", env("RTYPE_UDP_ADDR", ""), "host game instances bind UDP on; empty = all interfaces (env RTYPE_UDP_ADDR)")
	udpPort := flag.String("udp-port", env("RTYPE_UDP_PORT", ""), "UDP port every game shares; empty = the port number of -addr, 0 = chosen by the OS (env RTYPE_UDP_PORT)")
	flag.IntVar(&cfg.MaxLobbies, "max-lobbies", envInt("RTYPE_MAX_LOBBIES", 64), "maximum number of lobbies at once; 0 or less means the default 64 (env RTYPE_MAX_LOBBIES)")
	flag.StringVar(&cfg.Stage, "stage", env("RTYPE_STAGE", "stage1"), "default stage of new lobbies: an embedded stage (stage1, short, ...) or a path to a stage JSON file, which is then offered too; lobbies may choose any offered stage (env RTYPE_STAGE)")
	flag.StringVar(&cfg.NetSim, "netsim", env("RTYPE_NETSIM", ""), `simulate a bad network on game sockets, e.g. "lat=75ms,jitter=10ms,loss=5%,dup=1%" (env RTYPE_NETSIM)`)
	flag.StringVar(&logFormat, "log-format", env("RTYPE_LOG_FORMAT", "text"), "log format: text or json (env RTYPE_LOG_FORMAT)")
	flag.StringVar(&logLevel, "log-level", env("RTYPE_LOG_LEVEL", "info"), "log level: debug, info, warn, error (env RTYPE_LOG_LEVEL)")
	cpuProfile := flag.String("cpuprofile", env("RTYPE_CPUPROFILE", ""), "write a CPU profile of the whole run to this file, for capacity measurements (env RTYPE_CPUPROFILE)")
	flag.Parse()

	var level slog.Level
	if err := level.UnmarshalText([]byte(logLevel)); err != nil {
		fmt.Fprintln(os.Stderr, "rtype-server: -log-level:", err)
		os.Exit(2)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch logFormat {
	case "text":
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, opts))
	case "json":
		cfg.Logger = slog.New(slog.NewJSONHandler(os.Stderr, opts))
	default:
		fmt.Fprintln(os.Stderr, "rtype-server: -log-format must be text or json")
		os.Exit(2)
	}
	p := *udpPort
	if p == "" {
		_, p, _ = net.SplitHostPort(cfg.Addr)
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 0 || n > 65535 {
		fmt.Fprintf(os.Stderr, "rtype-server: -udp-port %q is not a port number\n", p)
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := server.Run(ctx, cfg); err != nil {
		cfg.Logger.Error("server failed", "err", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}
