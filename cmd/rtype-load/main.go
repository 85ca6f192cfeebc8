// Command rtype-load measures a server's capacity: it plays -games 4-player games at once against
// a running rtype-server with lightweight clients (net/load) and prints one JSON line (games,
// abnormal endings, datagrams and bytes per second each way, RTT percentiles, snapshots/s per
// client, and with -server-pid the server's CPU per game-second). With -floor-server it is instead
// the raw-UDP floor server, and with -floor its load: the same datagram counts, nothing else.
//
// With -idle N it measures the lobby's own capacity instead (net/load.RunIdle): it holds N
// authenticated lobby connections that send the reference client's keep-alive, over -addrs
// source addresses, measures the lobby's CPU and RSS over an idle window and then, with
// -lobbies, the CPU per START while that many lobbies start game after game. With -fake-hosts N
// it serves N lightweight game hosts for a -role lobby to front (net/load.FakeHosts: real control
// channel, games that bind nothing and end after -fake-game), printing their -hosts list.
//
// Typical lobby capacity run (docs/BENCHMARKS.md):
//
//	RTYPE_CONTROL_SECRET=... rtype-load -fake-hosts 50 -hosts-file /tmp/hosts &
//	RTYPE_CONTROL_SECRET=... rtype-server -role lobby -hosts $(cat /tmp/hosts) -db off \
//	    -max-conns 12000 -max-conns-per-addr 200 -max-lobbies 1000 -max-lobbies-per-addr 100 &
//	rtype-load -idle 10000 -source 127.0.0.2 -addrs 100 -lobbies 100 -server-pid $!
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/rtype/rtype/game/buildinfo"
	"github.com/rtype/rtype/net/load"
)

func main() {
	var cfg load.Config
	var source, floorServer string
	var fc load.FloorConfig
	flag.StringVar(&cfg.Server, "server", "127.0.0.1:4242", "lobby address host:port (with -floor: the floor server's UDP address)")
	flag.IntVar(&cfg.Games, "games", 10, "4-player games played at once")
	flag.DurationVar(&cfg.Duration, "duration", 30*time.Second, "measured window, after every game started and -warmup")
	flag.DurationVar(&cfg.Warmup, "warmup", 3*time.Second, "time between the last game's start and the measured window")
	flag.StringVar(&cfg.Stage, "stage", "", "stage of the lobbies (default: the server's)")
	flag.StringVar(&source, "source", "", "first source address of the clients, e.g. 127.0.0.2 (default: the system's choice)")
	flag.IntVar(&cfg.Addrs, "addrs", 1, "spread the games over this many source addresses counting up from -source")
	flag.IntVar(&cfg.Sockets, "sockets", 0, "UDP sockets the clients share (default: one per source address, at least 4)")
	flag.IntVar(&cfg.ServerPID, "server-pid", 0, "the server's pid: report its CPU time over the window (Linux /proc)")
	flag.StringVar(&cfg.ServerAdmin, "server-admin", "", "the server's -admin address: report its tick lateness over the window (from /metrics)")
	flag.BoolVar(&cfg.Floor, "floor", false, "load a -floor-server instead of a game server (no lobby)")
	flag.StringVar(&floorServer, "floor-server", "", `run the raw-UDP floor server instead: "plain" (a system call per datagram) or "batch" (recvmmsg/sendmmsg)`)
	flag.StringVar(&fc.Listen, "listen", "127.0.0.1:4300", "-floor-server: UDP address")
	flag.Float64Var(&fc.DownRate, "down-rate", 32, "-floor-server: datagrams per client per second")
	flag.IntVar(&fc.DownSize, "down-size", 130, "-floor-server: bytes per datagram")
	var ic load.IdleConfig
	var fh load.FakeHostsConfig
	var hostsFile string
	flag.IntVar(&ic.Conns, "idle", 0, "measure the lobby instead: hold this many idle lobby connections (keep-alive GET_LOBBIES), CPU and RSS over -window")
	flag.DurationVar(&ic.KeepAlive, "keepalive", 0, "-idle: each connection's keep-alive interval (default the reference client's, 1m)")
	flag.DurationVar(&ic.Window, "window", time.Minute, "-idle: each measured window (idle, then starts)")
	flag.DurationVar(&ic.Settle, "settle", 5*time.Second, "-idle: wait between the set-up and the idle window (negative: none)")
	flag.IntVar(&ic.Lobbies, "lobbies", 0, "-idle: lobbies (of -players of the connections) that START game after game in a second window")
	flag.IntVar(&ic.Players, "players", 1, "-idle: players per -lobbies lobby")
	flag.IntVar(&ic.DialConcurrency, "dial-concurrency", 64, "-idle: connections being set up at once")
	flag.IntVar(&fh.Hosts, "fake-hosts", 0, "serve this many fake game hosts (control channel only; secret RTYPE_CONTROL_SECRET) and print their -hosts list")
	flag.StringVar(&fh.Listen, "fake-listen", "127.0.0.1", "-fake-hosts: IP address of their control ports")
	flag.IntVar(&fh.Capacity, "fake-capacity", 0, "-fake-hosts: games each takes at once (default fleet's 64)")
	flag.DurationVar(&fh.GameLength, "fake-game", time.Second, "-fake-hosts: how long each fake game lasts")
	flag.StringVar(&hostsFile, "hosts-file", "", "-fake-hosts: also write the -hosts list to this file")
	var lf load.ListFloodConfig
	flag.StringVar(&lf.URL, "list-flood", "", "flood this list server (rtype-list's URL) instead: -fakes fake registrations from -source, then -reads list reads per second for -duration over -addrs addresses; with -server-pid its CPU and RSS")
	flag.IntVar(&lf.Fakes, "fakes", 1000, "-list-flood: fake registrations from one address")
	flag.IntVar(&lf.Reads, "reads", 10000, "-list-flood: list reads per second")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the load generator to this file")
	version := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *version {
		fmt.Println(buildinfo.String("rtype-load"))
		return
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "rtype-load: -cpuprofile:", err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg.Logger, fc.Logger = log, log
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if floorServer != "" {
		if floorServer != "plain" && floorServer != "batch" {
			fmt.Fprintln(os.Stderr, "rtype-load: -floor-server must be plain or batch")
			os.Exit(2)
		}
		fc.Batch = floorServer == "batch"
		if err := load.FloorServe(ctx, fc); err != nil {
			log.Error("floor server failed", "err", err)
			os.Exit(1)
		}
		return
	}
	if fh.Hosts > 0 {
		fh.Secret, fh.Logger = []byte(os.Getenv("RTYPE_CONTROL_SECRET")), log
		err := load.FakeHosts(ctx, fh, func(hosts []string) {
			list := strings.Join(hosts, ",")
			fmt.Println(list)
			if hostsFile != "" {
				if err := os.WriteFile(hostsFile, []byte(list+"\n"), 0o644); err != nil {
					log.Error("-hosts-file", "err", err)
				}
			}
		})
		if err != nil {
			log.Error("fake hosts failed", "err", err)
			os.Exit(1)
		}
		return
	}
	if source != "" {
		a, err := netip.ParseAddr(source)
		if err != nil {
			fmt.Fprintln(os.Stderr, "rtype-load: -source:", err)
			os.Exit(2)
		}
		cfg.Source = a
	}
	if lf.URL != "" {
		lf.Source, lf.Addrs, lf.Duration, lf.ServerPID = cfg.Source, cfg.Addrs, cfg.Duration, cfg.ServerPID
		rep, err := load.ListFlood(ctx, lf)
		json.NewEncoder(os.Stdout).Encode(rep)
		if err != nil {
			log.Error("list flood failed", "err", err)
			os.Exit(1)
		}
		return
	}
	if ic.Conns > 0 {
		ic.Server, ic.Source, ic.Addrs, ic.ServerPID, ic.Logger = cfg.Server, cfg.Source, cfg.Addrs, cfg.ServerPID, log
		rep, err := load.RunIdle(ctx, ic, os.Stdout)
		if err != nil {
			log.Error("idle load failed", "err", err)
		}
		if err != nil || rep.Dropped > 0 {
			pprof.StopCPUProfile()
			os.Exit(1)
		}
		return
	}
	rep, err := load.Run(ctx, cfg, os.Stdout)
	if err != nil {
		log.Error("load failed", "err", err)
	}
	if err != nil || rep.Abnormal > 0 {
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}
