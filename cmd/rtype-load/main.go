// Command rtype-load measures a server's capacity: it plays -games 4-player games at once against
// a running rtype-server with lightweight clients (net/load) and prints one JSON line (games,
// abnormal endings, datagrams and bytes per second each way, RTT percentiles, snapshots/s per
// client, and with -server-pid the server's CPU per game-second). With -floor-server it is instead
// the raw-UDP floor server, and with -floor its load: the same datagram counts, nothing else.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"os/signal"
	"runtime/pprof"
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
	if source != "" {
		a, err := netip.ParseAddr(source)
		if err != nil {
			fmt.Fprintln(os.Stderr, "rtype-load: -source:", err)
			os.Exit(2)
		}
		cfg.Source = a
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
