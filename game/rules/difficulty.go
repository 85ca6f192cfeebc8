package rules

import "fmt"

// Difficulty is a game's difficulty level, chosen by the lobby's owner beside the stage. The
// zero value is Normal, so a game configured without one plays as it always has.
type Difficulty uint8

// Difficulty levels (wire: the names in DifficultyRules.Name, docs/PROTOCOL.md §2.4).
const (
	DifficultyNormal Difficulty = iota
	DifficultyEasy
	DifficultyHard
	NumDifficulties
)

// DifficultyRules are what a difficulty level changes. Percentages scale the stage's figures
// (after the player-count scaling): enemy hit points, the interval between enemy shots (more
// is calmer), and enemy bullet speed.
type DifficultyRules struct {
	Name      string // wire and flag name: "easy", "normal", "hard"
	Title     string // shown to players
	Lives     uint8  // ships at the start and after a continue
	HPPct     int    // enemy, boss and weak point hit points
	FirePct   int    // interval between enemy shots
	BulletPct int    // enemy bullet speed
	// Extra lives: one at ExtraLifeFirst points, then one every ExtraLifeEvery (0: never).
	ExtraLifeFirst, ExtraLifeEvery uint32
	Continues                      uint8  // continues each player may take (arcade credits)
	InvulnMax                      uint16 // ticks of invulnerability after a respawn or a continue (fixed: firing does not end it)
}

// difficulties is the one table of difficulty levels, indexed by Difficulty. The figures are
// tuned by measurement (docs/BENCHMARKS.md, "Balance").
var difficulties = [NumDifficulties]DifficultyRules{
	DifficultyEasy: {Name: "easy", Title: "Easy", Lives: 5, HPPct: 75, FirePct: 170, BulletPct: 75,
		ExtraLifeFirst: 10000, ExtraLifeEvery: 30000, Continues: 9, InvulnMax: 240},
	DifficultyNormal: {Name: "normal", Title: "Normal", Lives: 3, HPPct: 100, FirePct: 120, BulletPct: 90,
		ExtraLifeFirst: 20000, ExtraLifeEvery: 50000, Continues: 5, InvulnMax: 180},
	DifficultyHard: {Name: "hard", Title: "Hard", Lives: 2, HPPct: 125, FirePct: 70, BulletPct: 115,
		ExtraLifeFirst: 30000, ExtraLifeEvery: 80000, Continues: 2, InvulnMax: 150},
}

// Rules returns the rules of d (Normal's for an unknown level).
func (d Difficulty) Rules() DifficultyRules {
	if d >= NumDifficulties {
		d = DifficultyNormal
	}
	return difficulties[d]
}

// String is the level's name ("easy", "normal", "hard").
func (d Difficulty) String() string {
	if d >= NumDifficulties {
		return fmt.Sprintf("difficulty(%d)", uint8(d))
	}
	return difficulties[d].Name
}

// Difficulties lists the levels from the calmest to the hardest (menus cycle through it).
var Difficulties = [NumDifficulties]Difficulty{DifficultyEasy, DifficultyNormal, DifficultyHard}

// ParseDifficulty returns the level named name ("easy", "normal", "hard").
func ParseDifficulty(name string) (Difficulty, error) {
	for d := range difficulties {
		if difficulties[d].Name == name {
			return Difficulty(d), nil
		}
	}
	return 0, fmt.Errorf("rules: unknown difficulty %q (want easy, normal or hard)", name)
}

// ExtraLivesAt returns how many extra lives a score has earned under r.
func (r DifficultyRules) ExtraLivesAt(score uint32) int {
	if r.ExtraLifeFirst == 0 || score < r.ExtraLifeFirst {
		return 0
	}
	if r.ExtraLifeEvery == 0 {
		return 1
	}
	return 1 + int((score-r.ExtraLifeFirst)/r.ExtraLifeEvery)
}
