// Command rtype-bot plays rtype headless: N bots join one lobby (creating it when no code is
// given), one starts, each plays with the autopilot, and each prints one JSON line at the end.
// -crash-after makes the first bot crash mid-game (its line has "rejoin"), -rejoin CODE,SLOT,KEY
// takes such a slot back, -spectate watches a running lobby. Exit status 0 when every bot's game
// ended with GAME_END.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rtype/rtype/game/buildinfo"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
	"github.com/rtype/rtype/net/bot"
	"github.com/rtype/rtype/net/session"
)

func main() {
	var cfg bot.Config
	verbose := flag.Bool("v", false, "log progress to stderr")
	flag.StringVar(&cfg.Server, "server", "127.0.0.1:4242", "lobby server host:port")
	flag.StringVar(&cfg.Lobby, "lobby", "", "lobby code to join (empty: create one)")
	flag.StringVar(&cfg.Stage, "stage", "", "stage of the lobby the bots create, e.g. short (empty: the server's default; see the server's GET_STAGES)")
	mode := flag.String("mode", "stage", "what the bots' new lobby plays: stage (one stage: -stage) or arcade (the server's arcade run, stage after stage in one game)")
	flag.IntVar(&cfg.Section, "section", 0, "practice: the solo lobby's game starts at this section of its stage (1..: a music section, the number of sections: the boss; 0: the start)")
	flag.IntVar(&cfg.Players, "players", 1, "number of bots (1..4)")
	flag.BoolVar(&cfg.Start, "start", false, "start the game once the bots joined (always when -lobby is empty)")
	flag.DurationVar(&cfg.Timeout, "timeout", 10*time.Minute, "give up after this long")
	flag.StringVar(&cfg.Name, "name", "bot", "bot name prefix")
	flag.StringVar(&cfg.Chat, "chat", "", `each bot says this in the lobby before the game and again, with " (in game)", one second into the game; the lines received are in the "chat" field of the JSON`)
	flag.StringVar(&cfg.NetSim, "netsim", "", `simulate a bad network, e.g. "lat=75ms,jitter=10ms,loss=5%,dup=1%"`)
	levelName := flag.String("difficulty", "", "difficulty the bots' new lobby plays: easy, normal or hard (empty: the lobby's default, normal)")
	rejoin := flag.String("rejoin", "", `rejoin a slot lost less than 60 s ago instead of joining: "CODE,SLOT,KEY" (the "rejoin" field of a crashed bot's JSON line)`)
	flag.BoolVar(&cfg.Spectate, "spectate", false, "join -lobby, which is running a game, as spectators and watch it to its end")
	crashAfter := flag.Duration("crash-after", 0, `the first bot crashes this long into the game (its lobby connection and socket close without LEAVE or BYE) and prints its "rejoin" field; 0: never`)
	version := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *version {
		fmt.Println(buildinfo.String("rtype-bot"))
		return
	}
	if *levelName != "" {
		d, err := rules.ParseDifficulty(*levelName)
		if err != nil {
			slog.Error("bad -difficulty", "err", err)
			os.Exit(2)
		}
		cfg.Difficulty = &d
	}
	switch *mode {
	case "stage":
	case "arcade":
		if cfg.Stage != "" {
			slog.Error("-mode arcade plays the server's run: drop -stage")
			os.Exit(2)
		}
		cfg.Stage = stagefile.Arcade
	default:
		slog.Error("bad -mode: want stage or arcade", "mode", *mode)
		os.Exit(2)
	}
	if *rejoin != "" {
		rj, err := bot.ParseRejoin(*rejoin)
		if err != nil {
			slog.Error("bad -rejoin", "err", err)
			os.Exit(2)
		}
		cfg.Rejoin = []bot.RejoinInfo{rj}
	}
	if *crashAfter > 0 {
		ticks := uint32(crashAfter.Seconds() * 60)
		var first uint32
		cfg.Crash = func(i int, v *session.View) bool {
			if i != 0 {
				return false // only bot 1 (its own goroutine) touches first
			}
			if first == 0 {
				first = uint32(v.Tick)
			}
			return i == 0 && uint32(v.Tick)-first >= ticks
		}
	}
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
