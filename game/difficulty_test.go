package game

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rtype/rtype/game/rules"
)

func newLevelSim(t testing.TB, players int, d rules.Difficulty) *Sim {
	t.Helper()
	return NewSim(Config{Seed: 1, Players: players, Stage: mustParse(t, "empty.json", emptyStage), Difficulty: d})
}

// The levels scale what they say, calmest to hardest: more lives, fewer and slower enemy shots
// and weaker enemies on Easy; the reverse on Hard.
func TestDifficultyScaling(t *testing.T) {
	var hp, fire [rules.NumDifficulties]int
	var speed [rules.NumDifficulties]float32
	var lives [rules.NumDifficulties]uint8
	for _, d := range rules.Difficulties {
		s := newLevelSim(t, 1, d)
		hp[d], fire[d], speed[d] = s.scaleHP(100), s.scaleFire(100), s.bulletSpeed(enemyBulletSpeed)
		lives[d] = s.c.Player.Get(s.PlayerEntity(0)).Lives
		if lives[d] != d.Rules().Lives {
			t.Errorf("%v: %d lives at the start, want %d", d, lives[d], d.Rules().Lives)
		}
	}
	e, n, h := rules.DifficultyEasy, rules.DifficultyNormal, rules.DifficultyHard
	if !(hp[e] < hp[n] && hp[n] < hp[h]) {
		t.Errorf("enemy HP by level %v, want rising", hp)
	}
	if !(fire[e] > fire[n] && fire[n] > fire[h]) {
		t.Errorf("fire interval by level %v, want falling", fire)
	}
	if !(speed[e] < speed[n] && speed[n] < speed[h]) {
		t.Errorf("bullet speed by level %v, want rising", speed)
	}
	if !(lives[e] >= lives[n] && lives[n] >= lives[h]) {
		t.Errorf("lives by level %v, want falling", lives)
	}
	// The level changes the game: same seed and inputs, different hash.
	if newLevelSim(t, 1, e).Hash() == newLevelSim(t, 1, h).Hash() {
		t.Error("Easy and Hard hash alike")
	}
	// An enemy spawned by the stage has the level's HP.
	for _, d := range rules.Difficulties {
		s := newLevelSim(t, 2, d)
		if got, want := s.scaleHP(10), 10*3*d.Rules().HPPct/200; got != want {
			t.Errorf("%v, 2 players: HP 10 scales to %d, want %d", d, got, want)
		}
	}
}

func TestExtraLives(t *testing.T) {
	s := newLevelSim(t, 1, rules.DifficultyNormal)
	r := s.rules
	e := s.PlayerEntity(0)
	lives := s.c.Player.Get(e).Lives
	s.addScore(0, r.ExtraLifeFirst-1)
	if s.c.Player.Get(e).Lives != lives {
		t.Fatal("extra life before the threshold")
	}
	s.events = s.events[:0]
	s.addScore(0, 1)
	if got := s.c.Player.Get(e).Lives; got != lives+1 {
		t.Fatalf("lives %d at %d points, want %d", got, r.ExtraLifeFirst, lives+1)
	}
	if !hasEvent(s.events, Event{Kind: EventExtraLife, Entity: e, Slot: 0, Lives: lives + 1}) {
		t.Errorf("no EventExtraLife: %+v", s.events)
	}
	// One big score passing two thresholds gives two lives; never more than maxLives.
	s.addScore(0, 2*r.ExtraLifeEvery)
	if got := s.c.Player.Get(e).Lives; got != lives+3 {
		t.Errorf("lives %d after two more thresholds, want %d", got, lives+3)
	}
	s.addScore(0, 100*r.ExtraLifeEvery)
	if got := s.c.Player.Get(e).Lives; got != maxLives {
		t.Errorf("lives %d, want the cap %d", got, maxLives)
	}
	if st := s.Stats(0); st.ExtraLives != maxLives-lives {
		t.Errorf("stats count %d extra lives, want %d", st.ExtraLives, maxLives-lives)
	}
	if got := r.ExtraLivesAt(0); got != 0 {
		t.Errorf("ExtraLivesAt(0) = %d", got)
	}
}

// killLast destroys slot 0's last ship.
func killLast(s *Sim) {
	s.c.Player.Get(s.PlayerEntity(0)).Lives = 1
	makeVulnerable(s)
	s.killShip(0)
}

func TestContinue(t *testing.T) {
	s := newLevelSim(t, 1, rules.DifficultyNormal)
	e := s.PlayerEntity(0)
	s.addScore(0, 5000)
	killLast(s)
	pl := s.c.Player.Get(e)
	if pl.Flags != PlayerDead|PlayerContinue || pl.Lives != 0 {
		t.Fatalf("after the last ship: flags %03b lives %d, want dead with a continue offered", pl.Flags, pl.Lives)
	}
	step(s, continueTicks/2, 0)
	if over, _ := s.Over(); over {
		t.Fatal("game over during the continue countdown")
	}
	if left := s.ContinueLeft(0); left != continueTicks-continueTicks/2 {
		t.Errorf("ContinueLeft = %d, want %d", left, continueTicks-continueTicks/2)
	}
	// Fire takes it: the level's lives, the score kept and marked as continued, a ship soon.
	s.SetInput(0, Input{Buttons: BtnFire})
	s.Step()
	if !hasEvent(s.Events(), Event{Kind: EventContinue, Entity: e, Slot: 0, Lives: s.rules.Lives}) {
		t.Errorf("no EventContinue: %+v", s.Events())
	}
	s.World().ClearEvents()
	step(s, continueRespawn+1, 0)
	pl = s.c.Player.Get(e)
	if pl.Flags&PlayerDead != 0 || pl.Lives != s.rules.Lives || pl.Score != 5000 {
		t.Fatalf("after the continue: %+v, want a live ship with %d lives and the score", pl, s.rules.Lives)
	}
	if st := s.Stats(0); st.Continues != 1 {
		t.Errorf("Stats.Continues = %d, want 1", st.Continues)
	}
	// Not taken: out when the count ends, and the game is lost.
	killLast(s)
	step(s, continueTicks, BtnUp) // moving is not a continue
	if over, r := s.Over(); !over || r != rules.ResultDefeat {
		t.Fatalf("Over() = %v, %v after the countdown, want defeat", over, r)
	}
	if f := s.c.Player.Get(e).Flags; f != PlayerDead {
		t.Errorf("flags %03b after the countdown, want dead only", f)
	}
}

// The continues are counted: once the level's are used, the last ship ends the player.
func TestContinuesRunOut(t *testing.T) {
	s := newLevelSim(t, 1, rules.DifficultyHard)
	for i := 0; i < int(s.rules.Continues); i++ {
		killLast(s)
		step(s, 5, 0)
		step(s, 1, BtnFire)
		step(s, continueRespawn+1, 0)
	}
	if st := s.Stats(0); st.Continues != s.rules.Continues {
		t.Fatalf("%d continues taken, want %d", st.Continues, s.rules.Continues)
	}
	killLast(s)
	if f := s.c.Player.Get(s.PlayerEntity(0)).Flags; f != PlayerDead {
		t.Fatalf("flags %03b with no continue left, want dead only", f)
	}
	step(s, 1, 0)
	if over, r := s.Over(); !over || r != rules.ResultDefeat {
		t.Fatalf("Over() = %v, %v, want defeat at once", over, r)
	}
}

// A continue pending on a suspended player keeps the game going and comes back with it.
func TestContinueSurvivesSuspend(t *testing.T) {
	s := newLevelSim(t, 2, rules.DifficultyNormal)
	s.c.Player.Get(s.PlayerEntity(1)).Lives = 1
	makeVulnerable(s)
	s.killShip(1)
	s.SuspendPlayer(1)
	s.RemovePlayer(0)
	step(s, 1, 0)
	if over, _ := s.Over(); over {
		t.Fatal("game over with a suspended player who may continue")
	}
	e := s.ResumePlayer(1)
	if f := s.c.Player.Get(e).Flags; f != PlayerDead|PlayerContinue || s.ContinueLeft(1) != continueTicks {
		t.Errorf("resumed: flags %03b, %d ticks to continue", f, s.ContinueLeft(1))
	}
}

// A ship killed by a turret aimed at its respawn point does not come back in the same line of
// fire: it respawns where nothing is about to hit it, away from where it died.
func TestSafeRespawn(t *testing.T) {
	s := newLevelSim(t, 1, rules.DifficultyNormal)
	e := s.PlayerEntity(0)
	makeVulnerable(s)
	y0 := s.c.Position.Get(e).Y
	// A wall of bullets flying at the ship's line.
	for i := 0; i < 8; i++ {
		addEnemyBullet(s, shipSpawnX+200+float32(i)*60, y0, -360, 0)
	}
	s.killShip(0)
	step(s, respawnDelay-1, 0)
	for i := 0; i < 8; i++ { // the line is still under fire when the ship comes back
		addEnemyBullet(s, shipSpawnX+200+float32(i)*60, y0, -360, 0)
	}
	step(s, 1, 0)
	p := s.c.Position.Get(e)
	if s.c.Player.Get(e).Flags&PlayerDead != 0 {
		t.Fatal("not respawned")
	}
	if abs32(p.Y-y0) < respawnAvoidDY {
		t.Errorf("respawned at y=%v, %v px from where it died under fire (y=%v)", p.Y, abs32(p.Y-y0), y0)
	}
	if got := s.safeFor(p.Y); got <= respawnHorizon {
		t.Errorf("respawn point is hit in %d ticks", got)
	}
	// Standing still it stays invulnerable for the level's InvulnMax.
	step(s, int(s.rules.InvulnMax)-2, 0)
	if s.c.Player.Get(e).Flags&PlayerInvulnerable == 0 {
		t.Fatal("invulnerability ended before InvulnMax while standing still")
	}
}

// The respawn's grace is fixed, as in the arcade game: moving and firing (tapping, holding a
// charge) do not shorten it; it ends after the level's InvulnMax ticks exactly. The same holds
// for the ship that comes back after a continue, whose fire press took the continue.
func TestRespawnGraceHolds(t *testing.T) {
	for _, d := range rules.Difficulties {
		for name, held := range map[string]Buttons{"still": 0, "moving": BtnUp | BtnRight, "firing": BtnFire, "both": BtnDown | BtnFire} {
			s := newLevelSim(t, 1, d)
			e := s.PlayerEntity(0)
			makeVulnerable(s)
			s.killShip(0)
			step(s, respawnDelay, 0)
			if s.c.Player.Get(e).Flags != PlayerInvulnerable {
				t.Fatalf("%s %s: flags %02b after the respawn delay, want invulnerable", d, name, s.c.Player.Get(e).Flags)
			}
			for i := 1; i < int(s.rules.InvulnMax); i++ {
				in := held
				if name == "firing" && i%2 == 0 {
					in = 0 // tapping
				}
				step(s, 1, in)
				if s.c.Player.Get(e).Flags&PlayerInvulnerable == 0 {
					t.Fatalf("%s %s: the grace ended %d ticks after the respawn, want %d", d, name, i, s.rules.InvulnMax)
				}
			}
			step(s, 1, held)
			if s.c.Player.Get(e).Flags&PlayerInvulnerable != 0 {
				t.Errorf("%s %s: still invulnerable %d ticks after the respawn", d, name, s.rules.InvulnMax)
			}
		}
	}
	// A continue: out of lives, fire takes the offer; the ship that comes back has the grace whatever is held.
	s := newLevelSim(t, 1, rules.DifficultyNormal)
	e := s.PlayerEntity(0)
	for s.c.Player.Get(e).Flags&PlayerContinue == 0 {
		makeVulnerable(s)
		s.killShip(0)
		step(s, respawnDelay+1, 0)
	}
	step(s, 1, BtnFire)
	for i := 0; s.c.Player.Get(e).Flags&PlayerDead != 0; i++ {
		if i > 10*TickRate {
			t.Fatal("the continue taken, the ship never came back")
		}
		step(s, 1, BtnFire)
	}
	for i := 1; i < int(s.rules.InvulnMax); i++ {
		step(s, 1, BtnFire|BtnUp)
		if s.c.Player.Get(e).Flags&PlayerInvulnerable == 0 {
			t.Fatalf("after a continue: the grace ended %d ticks after the ship came back, want %d", i, s.rules.InvulnMax)
		}
	}
}

// Safe respawns never put the ship inside terrain (the corridor of the terrain test stage).
func TestSafeRespawnInCorridor(t *testing.T) {
	s := newTerrainSim(t, 1)
	for i := 0; i < 20; i++ {
		addEnemyBullet(s, shipSpawnX+100, 150+float32(i)*40, -600, 0)
	}
	y := s.safeRespawnY(0)
	top, bottom := s.terrain().Span(shipSpawnX-shipW+s.Scroll(), shipSpawnX+shipW+s.Scroll())
	if y-shipH/2 < top || y+shipH/2 > bottom {
		t.Errorf("respawn y=%v outside the corridor %v..%v", y, top, bottom)
	}
}

// The README's level table states the difficulty table's figures.
func TestReadmeDifficultyTable(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	thousands := func(v uint32) string {
		if v < 1000 {
			return fmt.Sprint(v)
		}
		return fmt.Sprintf("%d %03d", v/1000, v%1000)
	}
	for _, d := range rules.Difficulties {
		r := d.Rules()
		secs := strconv.FormatFloat(float64(r.InvulnMax)/TickRate, 'f', -1, 64)
		want := fmt.Sprintf("| %s | %d | %d %% | %d %% | %d %% | %s, then every %s | %d | %s s |", r.Title, r.Lives, r.HPPct,
			r.FirePct, r.BulletPct, thousands(r.ExtraLifeFirst), thousands(r.ExtraLifeEvery), r.Continues, secs)
		if !strings.Contains(string(b), want) {
			t.Errorf("README.md lacks the row %q", want)
		}
	}
}

// Practice starts a stage at any section (its waves only) or at the boss.
func TestPracticeSection(t *testing.T) {
	st, err := LoadStage("stage1")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Sections) < 3 {
		t.Fatalf("stage1 has %d sections", len(st.Sections))
	}
	s := NewSim(Config{Seed: 1, Players: 2, Stage: st, Section: 2})
	if got := s.Scroll(); got != st.Sections[2].At {
		t.Fatalf("scroll %v at the start of section 2, want %v", got, st.Sections[2].At)
	}
	if got := s.c.Stage.Get(s.stageEnt).Section; got != 2 {
		t.Errorf("stage section %d, want 2", got)
	}
	s.Step()
	if ev := s.Events(); len(ev) == 0 || ev[0].Kind != EventMusic || ev[0].Song != st.Sections[2].Song {
		t.Errorf("first events %+v, want the section's music %d", ev, st.Sections[2].Song)
	}
	if n := count(s, KindEnemy, -1); n > 8 {
		t.Errorf("%d enemies on the first tick: the waves before the section spawned", n)
	}
	for slot := 0; slot < 2; slot++ {
		p := s.c.Position.Get(s.PlayerEntity(slot))
		if t2 := s.terrain(); t2 != nil {
			top, bottom := t2.Span(p.X-shipW/2+s.Scroll(), p.X+shipW/2+s.Scroll())
			if p.Y-shipH/2 < top || p.Y+shipH/2 > bottom {
				t.Errorf("ship %d starts at y=%v outside the corridor %v..%v", slot, p.Y, top, bottom)
			}
		}
	}
	// The boss: it is out within a few seconds.
	b := NewSim(Config{Seed: 1, Players: 1, Stage: st, Section: st.PracticeBoss()})
	for i := 0; i < 10*TickRate && !b.BossFight(); i++ {
		b.Step()
		b.World().ClearEvents()
	}
	if !b.BossFight() {
		t.Error("no boss 10 s into a boss practice")
	}
	// Section 0 and out of range: the normal start.
	if NewSim(Config{Seed: 1, Players: 1, Stage: st, Section: 99}).Hash() != NewSim(Config{Seed: 1, Players: 1, Stage: st}).Hash() {
		t.Error("an out-of-range section does not start at the beginning")
	}
}

// The practice trainer's infinite lives: a lost ship costs no life and comes back, with the
// grace, however many times it is lost; the deaths are still counted.
func TestInfiniteLives(t *testing.T) {
	s := NewSim(Config{Seed: 1, Players: 1, Difficulty: rules.DifficultyHard, InfiniteLives: true})
	e := s.PlayerEntity(0)
	lives := s.c.Player.Get(e).Lives
	for i := 0; i < 3*int(lives); i++ {
		makeVulnerable(s)
		s.killShip(0)
		step(s, respawnDelay+1, 0)
		if pl := s.c.Player.Get(e); pl.Lives != lives || pl.Flags != PlayerInvulnerable {
			t.Fatalf("after death %d: lives %d flags %02b, want %d lives and a respawned ship", i+1, pl.Lives, pl.Flags, lives)
		}
	}
	if st := s.Stats(0); st.Deaths != uint8(3*lives) || st.Continues != 0 || !s.InfiniteLives() {
		t.Fatalf("stats %+v: want %d deaths, no continue", st, 3*lives)
	}
}
