// Command rtype-client is the Ebitengine desktop client: flags → game/client.Run.
//
//	rtype-client [-server host:port] [-name NAME] [-fullscreen] [-windowed WxH] [-autoplay]
//	             [-lobby CODE] [-start] [-stage NAME] [-screenshot FILE [-screenshot-after FRAMES]] [-mute]
//	             [-netsim SPEC] [-config DIR] [-v]
//
// Exit status 0 on a normal quit and after writing a screenshot, 1 on an error, 2 on bad flags.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/rtype/rtype/game/client"
	"github.com/rtype/rtype/game/client/clientflags"
	// Before ebiten's init on Linux: a missing display is one clear line, not a glfw panic.
	_ "github.com/rtype/rtype/game/client/displaycheck"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func parseSize(s string) (int, int, error) {
	w, h, ok := strings.Cut(strings.ToLower(s), "x")
	if !ok {
		return 0, 0, fmt.Errorf("-windowed %q: want WxH, e.g. 1280x720", s)
	}
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	if err1 != nil || err2 != nil || wi < 320 || hi < 180 || wi > 16384 || hi > 16384 {
		return 0, 0, fmt.Errorf("-windowed %q: want WxH with W in 320..16384 and H in 180..16384", s)
	}
	return wi, hi, nil
}

func run(args []string) int {
	f, code, exit := clientflags.Parse(args, os.Stdout, os.Stderr)
	if exit {
		return code
	}
	level := slog.LevelInfo
	if f.Verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)

	cfg := client.Config{
		Name: f.Name, Fullscreen: f.Fullscreen, Autoplay: f.Autoplay, Lobby: f.Lobby, Start: f.Start, Stage: f.Stage,
		Screenshot: f.Screenshot, ScreenshotAfter: f.ShotAfter, Mute: f.Mute, NetSim: f.NetSim, ConfigDir: f.ConfigDir, Replay: f.Replay, Lists: f.Lists, Logger: log,
	}
	// -server given explicitly wins over (and is remembered in) the settings file.
	if f.ServerSet {
		cfg.Server = f.Server
	}
	if f.Windowed != "" {
		w, h, err := parseSize(f.Windowed)
		if err != nil {
			fmt.Fprintln(os.Stderr, "rtype-client:", err)
			return 2
		}
		cfg.WindowW, cfg.WindowH = w, h
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := client.Run(ctx, cfg); err != nil {
		log.Error("rtype-client", "err", err)
		return 1
	}
	return 0
}
