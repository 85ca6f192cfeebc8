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
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/rtype/rtype/buildinfo"
	"github.com/rtype/rtype/game/client"
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
	fs := flag.NewFlagSet("rtype-client", flag.ContinueOnError)
	server := fs.String("server", "127.0.0.1:4242", "lobby server host:port (default: the address remembered in the settings, else 127.0.0.1:4242)")
	name := fs.String("name", "", "player name, 1..16 of [A-Za-z0-9_-] (default: from the settings, else \"player\")")
	fullscreen := fs.Bool("fullscreen", false, "start fullscreen (F11 or Alt+Enter toggles)")
	windowed := fs.String("windowed", "", "window size WxH in screen pixels (default 1280x720)")
	autoplay := fs.Bool("autoplay", false, "the built-in autopilot flies the ship; go from the title to the game without keys")
	lobbyCode := fs.String("lobby", "", "join this lobby code without keys (default with -autoplay/-start: create a lobby)")
	start := fs.Bool("start", false, "send START once in the lobby")
	stage := fs.String("stage", "", "stage of the lobby created by -autoplay/-start without -lobby, e.g. short (default: the server's)")
	shot := fs.String("screenshot", "", "write a PNG of the 1920x1080 frame to FILE after -screenshot-after ticks in game, then exit 0")
	shotAfter := fs.Int("screenshot-after", 300, "60 Hz ticks in game with entities visible before the screenshot")
	mute := fs.Bool("mute", false, "no audio at all")
	netsim := fs.String("netsim", "", "simulate a bad link on the game socket, e.g. lat=75ms,jitter=10ms,loss=5%")
	configDir := fs.String("config", "", "directory replacing the user config dir for rtype/settings.json")
	verbose := fs.Bool("v", false, "debug logging")
	version := fs.Bool("version", false, "print the version and exit (works without a display)")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *version {
		fmt.Println(buildinfo.String("rtype-client"))
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "rtype-client: unexpected arguments %q\n", fs.Args())
		return 2
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)

	cfg := client.Config{
		Name: *name, Fullscreen: *fullscreen, Autoplay: *autoplay, Lobby: *lobbyCode, Start: *start, Stage: *stage,
		Screenshot: *shot, ScreenshotAfter: *shotAfter, Mute: *mute, NetSim: *netsim, ConfigDir: *configDir, Logger: log,
	}
	// -server given explicitly wins over (and is remembered in) the settings file.
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "server" {
			cfg.Server = *server
		}
	})
	if *windowed != "" {
		w, h, err := parseSize(*windowed)
		if err != nil {
			fmt.Fprintln(os.Stderr, "rtype-client:", err)
			return 2
		}
		cfg.WindowW, cfg.WindowH = w, h
	}
	if *shotAfter <= 0 {
		fmt.Fprintln(os.Stderr, "rtype-client: -screenshot-after must be > 0")
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := client.Run(ctx, cfg); err != nil {
		log.Error("rtype-client", "err", err)
		return 1
	}
	return 0
}
