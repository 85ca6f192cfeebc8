// Command rtype-balance measures the game's difficulty offline: whole stages played in the
// simulation by the autopilot and the novice model over many seeds, per difficulty level and
// player count, printed as the Markdown table of docs/BENCHMARKS.md ("Balance").
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rtype/rtype/game/balance"
	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
)

type config struct {
	stages, levels, players, bots string
	seeds                         int
}

func main() {
	var cfg config
	flag.StringVar(&cfg.stages, "stage", stagefile.Default, "stages, comma-separated")
	flag.StringVar(&cfg.levels, "difficulty", "easy,normal,hard", "difficulty levels, comma-separated")
	flag.StringVar(&cfg.players, "players", "1,4", "player counts, comma-separated")
	flag.StringVar(&cfg.bots, "bot", "novice,autopilot", "player models (novice, autopilot), comma-separated")
	flag.IntVar(&cfg.seeds, "seeds", 20, "seeds per case")
	flag.Parse()
	if err := run(cfg); err != nil {
		slog.Error("rtype-balance", "err", err)
		os.Exit(1)
	}
}

func run(cfg config) error {
	var cases []balance.Case
	for _, st := range split(cfg.stages) {
		for _, b := range split(cfg.bots) {
			if b != string(balance.Novice) && b != string(balance.Autopilot) {
				return fmt.Errorf("-bot %q: want novice or autopilot", b)
			}
			for _, l := range split(cfg.levels) {
				d, err := rules.ParseDifficulty(l)
				if err != nil {
					return err
				}
				for _, p := range split(cfg.players) {
					n, err := strconv.Atoi(p)
					if err != nil || n < 1 || n > rules.MaxPlayers {
						return fmt.Errorf("-players %q: want 1..%d", p, rules.MaxPlayers)
					}
					cases = append(cases, balance.Case{Stage: st, Difficulty: d, Players: n, Bot: balance.Bot(b)})
				}
			}
		}
	}
	if cfg.seeds < 1 {
		return fmt.Errorf("-seeds %d: want at least 1", cfg.seeds)
	}
	start := time.Now()
	rs, err := balance.Measure(cases, cfg.seeds)
	if err != nil {
		return err
	}
	balance.WriteTable(os.Stdout, rs)
	fmt.Printf("\n%d games in %v\n", len(cases)*cfg.seeds, time.Since(start).Round(time.Second))
	return nil
}

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
