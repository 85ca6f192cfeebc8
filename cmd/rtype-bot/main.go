// Command rtype-bot plays rtype headless: N bots join one lobby (creating it when no code is
// given), one starts, each plays with the autopilot, and each prints one JSON line at the end.
// Exit status 0 when every bot's game ended with GAME_END.
package main

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rtype/rtype/net/bot"
)

func main() {
	var cfg bot.Config
	verbose := flag.Bool("v", false, "log progress to stderr")
	flag.StringVar(&cfg.Server, "server", "127.0.0.1:4242", "lobby server host:port")
	flag.StringVar(&cfg.Lobby, "lobby", "", "lobby code to join (empty: create one)")
	flag.StringVar(&cfg.Stage, "stage", "", "stage of the lobby the bots create, e.g. short (empty: the server's default; see the server's GET_STAGES)")
	flag.IntVar(&cfg.Players, "players", 1, "number of bots (1..4)")
	flag.BoolVar(&cfg.Start, "start", false, "start the game once the bots joined (always when -lobby is empty)")
	flag.DurationVar(&cfg.Timeout, "timeout", 10*time.Minute, "give up after this long")
	flag.StringVar(&cfg.Name, "name", "bot", "bot name prefix")
	flag.StringVar(&cfg.Chat, "chat", "", `each bot says this in the lobby before the game and again, with " (in game)", one second into the game; the lines received are in the "chat" field of the JSON`)
	flag.StringVar(&cfg.NetSim, "netsim", "", `simulate a bad network, e.g. "lat=75ms,jitter=10ms,loss=5%,dup=1%"`)
	flag.Parse()
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := bot.Run(ctx, cfg, os.Stdout); err != nil {
		cfg.Logger.Error("bot run failed", "err", err)
		os.Exit(1)
	}
}
