// Package balance measures how hard the game is: whole stages played offline in the simulation
// (game.Sim, no network) by the Autopilot or the Novice (a model of a new player, game.Novice),
// over many seeds per difficulty level and player count. `rtype-balance` prints the table that
// docs/BENCHMARKS.md ("Balance") publishes.
package balance

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/rules"
)

// Bot names a player model.
type Bot string

// The player models.
const (
	Autopilot Bot = "autopilot"
	Novice    Bot = "novice"
)

// Case is one line of the table: a stage played by Players bots of one model at one level.
type Case struct {
	Stage      string
	Difficulty rules.Difficulty
	Players    int
	Bot        Bot
}

// Run is the outcome of one game.
type Run struct {
	Seed uint64
	// FirstCredit is the tick the game would have been lost without continues (every player out
	// of lives at once, or the game's end), i.e. how long one credit lasted; Cleared1 says the
	// stage was cleared on it.
	FirstCredit int
	Cleared1    bool
	// Cleared: the stage was cleared (continues taken as offered); Ticks: the game's length.
	Cleared   bool
	Ticks     int
	Deaths    int // ships lost, all players
	Continues int // continues taken, all players
	// FirstDeath is the tick of the first ship lost (Ticks when none).
	FirstDeath int
	// BossAt is the tick the boss came out (-1: never).
	BossAt int
	// PlayerCredit is, per player, the tick its own first credit ended (its last ship lost the
	// first time; Ticks when never): how long one player lasts, whatever the others do.
	PlayerCredit [rules.MaxPlayers]int
	// Comebacks counts the ships that came back (a respawn, or the ship after a continue);
	// GraceDeaths the ships lost within the respawn grace (the level's InvulnMax ticks after
	// coming back: the game promises none); Lived is, per ship that came back and was lost again,
	// the ticks it lived.
	Comebacks, GraceDeaths int
	Lived                  []int
}

// Result is a Case over its seeds.
type Result struct {
	Case
	Runs []Run
}

// MaxTicks bounds a game (a stage with its boss fight lasts about 4 minutes).
const MaxTicks = 15 * 60 * game.TickRate

// Play plays one game of c with seed.
func Play(c Case, seed uint64) (Run, error) {
	st, err := game.LoadStage(c.Stage)
	if err != nil {
		return Run{}, err
	}
	s := game.NewSim(game.Config{Seed: seed, Players: c.Players, Stage: st, Difficulty: c.Difficulty})
	var nov [rules.MaxPlayers]*game.Novice
	for i := range nov {
		nov[i] = game.NewNovice(seed*8 + uint64(i))
	}
	r := Run{Seed: seed, FirstCredit: -1, FirstDeath: -1, BossAt: -1}
	var back, wasDead [rules.MaxPlayers]bool
	var backAt [rules.MaxPlayers]int // the tick slot's ship came back (valid while back)
	grace := int(c.Difficulty.Rules().InvulnMax)
	for i := range r.PlayerCredit {
		r.PlayerCredit[i] = -1
	}
	for tick := 0; tick < MaxTicks; tick++ {
		allOut := true
		for slot := 0; slot < c.Players; slot++ {
			e := s.PlayerEntity(slot)
			var in game.Input
			switch {
			case s.ContinueLeft(slot) > 0:
				allOut = allOut && true
				if s.ContinueLeft(slot) < game.ContinueTicks-game.TickRate { // a second to decide
					in.Buttons = game.BtnFire
				}
			case c.Bot == Novice:
				in = nov[slot].Input(s.World(), s.Components(), &st.Terrain, e, s.Tick())
				allOut = allOut && outOfLives(s, e)
			default:
				in = game.Autopilot(s.World(), s.Components(), &st.Terrain, e, s.Tick())
				allOut = allOut && outOfLives(s, e)
			}
			s.SetInput(slot, in)
		}
		if allOut && r.FirstCredit < 0 {
			r.FirstCredit = tick
		}
		s.Step()
		if r.BossAt < 0 && s.BossFight() {
			r.BossAt = tick
		}
		for slot := 0; slot < c.Players; slot++ {
			dead := outOfPlay(s, s.PlayerEntity(slot))
			if wasDead[slot] && !dead {
				r.Comebacks++
				back[slot], backAt[slot] = true, tick
			}
			wasDead[slot] = dead
		}
		for _, ev := range s.Events() {
			switch ev.Kind {
			case game.EventDeath:
				if back[ev.Slot] {
					lived := tick - backAt[ev.Slot]
					r.Lived = append(r.Lived, lived)
					if lived < grace {
						r.GraceDeaths++
					}
					back[ev.Slot] = false
				}
				r.Deaths++
				if ev.Lives == 0 && r.PlayerCredit[ev.Slot] < 0 {
					r.PlayerCredit[ev.Slot] = tick
				}
				if r.FirstDeath < 0 {
					r.FirstDeath = tick
				}
			case game.EventContinue:
				r.Continues++
			}
		}
		s.World().ClearEvents()
		if over, res := s.Over(); over {
			r.Ticks = tick + 1
			r.Cleared = res == rules.ResultVictory
			break
		}
	}
	if r.Ticks == 0 {
		r.Ticks = MaxTicks
	}
	if r.FirstCredit < 0 { // never all out at once
		r.FirstCredit, r.Cleared1 = r.Ticks, r.Cleared
	}
	if r.FirstDeath < 0 {
		r.FirstDeath = r.Ticks
	}
	for i := range r.PlayerCredit {
		if r.PlayerCredit[i] < 0 {
			r.PlayerCredit[i] = r.Ticks
		}
	}
	return r, nil
}

// outOfPlay reports whether ship e is dead (waiting for its respawn, or its continue).
func outOfPlay(s *game.Sim, e ecs.Entity) bool {
	return e == ecs.Nil || s.Components().Player.Get(e).Flags&game.PlayerDead != 0
}

// outOfLives reports whether ship e is dead with no lives left (a continue pending counts as out:
// the first credit is over).
func outOfLives(s *game.Sim, e ecs.Entity) bool {
	if e == ecs.Nil {
		return true
	}
	p := s.Components().Player.Get(e)
	return p.Lives == 0
}

// Measure plays every case over seeds 1..seeds on all CPUs.
func Measure(cases []Case, seeds int) ([]Result, error) {
	out := make([]Result, len(cases))
	type job struct{ ci, seed int }
	jobs := make(chan job)
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r, err := Play(cases[j.ci], uint64(j.seed))
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				out[j.ci].Runs = append(out[j.ci].Runs, r)
				mu.Unlock()
			}
		}()
	}
	for ci := range cases {
		out[ci].Case = cases[ci]
		for seed := 1; seed <= seeds; seed++ {
			jobs <- job{ci, seed}
		}
	}
	close(jobs)
	wg.Wait()
	return out, firstErr
}

// Summary is a Result's figures.
type Summary struct {
	Seeds int
	// SurviveMin is the share of games whose first credit lasted a minute; FirstCreditS its
	// median length in seconds; FirstDeathS the median time to the first ship lost.
	SurviveMin, Clear1, Clear    float64 // shares 0..1
	FirstCreditS, FirstDeathS    float64
	DeathsPerMin, DeathsPerMinPP float64 // all ships, and per player
	ContinuesPerGame             float64
	// BossFightS is the median length in seconds of the boss fights of cleared games (0: none).
	BossFightS float64
	// PlayerCreditS is the median over every player of every game of how long its own first
	// credit lasted (Run.PlayerCredit), in seconds: compare it across player counts.
	PlayerCreditS float64
	// GraceDeaths is the ships lost within the respawn grace over every game (want 0),
	// Comebacks the ships that came back; LivedS is the median life in seconds of a ship that
	// came back and was lost again (0: none was).
	GraceDeaths, Comebacks int
	LivedS                 float64
}

// Summarize computes r's figures.
func (r Result) Summarize() Summary {
	var s Summary
	s.Seeds = len(r.Runs)
	if s.Seeds == 0 {
		return s
	}
	var credits, firsts, bosses, players, lived []int
	var deaths, minutes float64
	for _, run := range r.Runs {
		s.GraceDeaths += run.GraceDeaths
		s.Comebacks += run.Comebacks
		lived = append(lived, run.Lived...)
		if run.FirstCredit >= 60*game.TickRate {
			s.SurviveMin++
		}
		if run.Cleared1 {
			s.Clear1++
		}
		if run.Cleared {
			s.Clear++
		}
		credits = append(credits, run.FirstCredit)
		players = append(players, run.PlayerCredit[:r.Players]...)
		if run.Cleared && run.BossAt >= 0 {
			bosses = append(bosses, run.Ticks-run.BossAt)
		}
		firsts = append(firsts, run.FirstDeath)
		deaths += float64(run.Deaths)
		minutes += float64(run.Ticks) / (60 * game.TickRate)
		s.ContinuesPerGame += float64(run.Continues)
	}
	n := float64(s.Seeds)
	s.SurviveMin, s.Clear1, s.Clear, s.ContinuesPerGame = s.SurviveMin/n, s.Clear1/n, s.Clear/n, s.ContinuesPerGame/n
	s.FirstCreditS = float64(median(credits)) / game.TickRate
	s.FirstDeathS = float64(median(firsts)) / game.TickRate
	s.BossFightS = float64(median(bosses)) / game.TickRate
	s.PlayerCreditS = float64(median(players)) / game.TickRate
	s.LivedS = float64(median(lived)) / game.TickRate
	if minutes > 0 {
		s.DeathsPerMin = deaths / minutes
		s.DeathsPerMinPP = s.DeathsPerMin / float64(r.Players)
	}
	return s
}

func median(v []int) int {
	if len(v) == 0 {
		return 0
	}
	s := append([]int(nil), v...)
	slices.Sort(s)
	return s[len(s)/2]
}

// WriteTable writes the results as a Markdown table.
func WriteTable(w io.Writer, rs []Result) {
	fmt.Fprintln(w, "| stage | level | players | bot | seeds | 1st death (median s) | 1 credit lasts (median s) | a player's credit (median s) | survives 1 min | clears on 1 credit | clears with continues | continues/game | deaths/min per player | boss fight (median s) | comebacks | lost within the grace | a comeback lives (median s) |")
	fmt.Fprintln(w, "|---|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, r := range rs {
		s := r.Summarize()
		fmt.Fprintf(w, "| %s | %s | %d | %s | %d | %.0f | %.0f | %.0f | %.0f %% | %.0f %% | %.0f %% | %.1f | %.2f | %.0f | %d | %d | %.1f |\n",
			r.Stage, r.Difficulty.Rules().Title, r.Players, r.Bot, s.Seeds, s.FirstDeathS, s.FirstCreditS, s.PlayerCreditS,
			100*s.SurviveMin, 100*s.Clear1, 100*s.Clear, s.ContinuesPerGame, s.DeathsPerMinPP, s.BossFightS,
			s.Comebacks, s.GraceDeaths, s.LivedS)
	}
}
