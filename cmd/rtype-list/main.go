// Command rtype-list is a server list (docs/HOSTING.md "Running a list server"): game servers
// started with -list register with it, it lists those whose address it proved (a token sent to
// their UDP query port, echoed from it; docs/PROTOCOL.md §11), and clients read the list.
//
//	rtype-list -addr :8080                                  # behind a TLS reverse proxy
//	rtype-list -addr :443 -tls-cert cert.pem -tls-key key.pem
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/rtype/rtype/game/buildinfo"
	"github.com/rtype/rtype/net/serverlist"
	"github.com/rtype/rtype/net/serverlist/listserver"
)

func main() {
	var cfg listserver.RunConfig
	fs := flag.NewFlagSet("rtype-list", flag.ExitOnError)
	fs.StringVar(&cfg.Addr, "addr", listserver.DefaultAddr, "HTTP address of the list API, /metrics and /healthz (HTTPS with -tls-cert and -tls-key)")
	fs.StringVar(&cfg.UDPAddr, "udp-addr", "", "UDP address the reachability tokens leave from and their echoes come to; empty = the host of -addr, a port the system chooses")
	fs.StringVar(&cfg.TLSCert, "tls-cert", "", "TLS certificate file (PEM): serve HTTPS directly; empty = HTTP (put a TLS reverse proxy in front)")
	fs.StringVar(&cfg.TLSKey, "tls-key", "", "TLS private key file (PEM) of -tls-cert")
	fs.IntVar(&cfg.Table.MaxEntries, "max-entries", listserver.DefaultMaxEntries, "most registrations held at once, listed or waiting for their proof")
	fs.IntVar(&cfg.Table.MaxPending, "max-pending", listserver.DefaultMaxPending, "most registrations waiting for their reachability proof at once")
	fs.IntVar(&cfg.Table.MaxPerNetwork, "max-per-addr", listserver.DefaultMaxPerNetwork, "most registrations from one IPv4 address or IPv6 /64")
	fs.Float64Var(&cfg.Table.RegisterRate, "register-rate", listserver.DefaultRegisterRate, fmt.Sprintf("registrations, refreshes and leaves per second from one address (bursts of %d); negative = no limit", listserver.DefaultRegisterBurst))
	fs.Float64Var(&cfg.Table.ReadRate, "read-rate", listserver.DefaultReadRate, fmt.Sprintf("list reads per second from one address (bursts of %d); negative = no limit", listserver.DefaultReadBurst))
	fs.DurationVar(&cfg.Table.Expiry, "expiry", listserver.Expiry, "forget a listed server this long after its last refresh")
	proxies := fs.String("trusted-proxies", "", "comma-separated addresses or CIDRs of reverse proxies whose last X-Forwarded-For value is the request's source; empty = none")
	logFormat := fs.String("log-format", "text", "log format: text or json")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn, error")
	version := fs.Bool("version", false, "print the version and exit")
	fs.Parse(os.Args[1:])
	if *version {
		fmt.Println(buildinfo.String("rtype-list"))
		return
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "rtype-list: unexpected argument %q: flags only (see -h)\n", fs.Arg(0))
		os.Exit(2)
	}
	var err error
	if cfg.TrustedProxies, err = serverlist.ParsePrefixes(*proxies); err != nil {
		fmt.Fprintln(os.Stderr, "rtype-list: -trusted-proxies:", err)
		os.Exit(2)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintln(os.Stderr, "rtype-list: -log-level:", err)
		os.Exit(2)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch *logFormat {
	case "text":
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, opts))
	case "json":
		cfg.Logger = slog.New(slog.NewJSONHandler(os.Stderr, opts))
	default:
		fmt.Fprintln(os.Stderr, "rtype-list: -log-format must be text or json")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := listserver.Run(ctx, cfg); err != nil {
		cfg.Logger.Error("list server failed", "err", err)
		os.Exit(1)
	}
}
