package game

import (
	"encoding/binary"

	"github.com/rtype/rtype/game/rules"
	"github.com/rtype/rtype/game/stagefile"
)

// Arcade runs. A game whose Config.Run names several stages plays them in order in one game:
// when a stage's boss is destroyed and another stage follows, the game does not end in victory;
// it holds a stage-clear tally for TallyTicks (the scroll stopped, no enemy, every ship
// invulnerable; each player's points, kills and deaths for the stage and a clear bonus), then
// the next stage starts from its scroll 0 with the ships, their lives, scores and weapons as they
// were. Clearing the last stage is the victory. All of it is decided by ticks, like the rest of
// the simulation: a replay of an arcade run plays it again.
//
// Clients learn the stage from the stage singleton's Kind.Variant (RunVariant): its stage's
// index in the run, with RunTally set during the tally (docs/PROTOCOL.md §4.1).

// TallyTicks is how long the stage-clear tally between two stages of an arcade run lasts (5 s).
const TallyTicks = 5 * TickRate

// Stage-clear bonus (TallyBonus): points for every life in stock when the stage is cleared, and
// for a stage cleared without losing a ship.
const (
	TallyLifeBonus   = 1000
	TallyNoMissBonus = 5000
)

// RunTally is the bit of the stage singleton's Kind.Variant set during a stage-clear tally; the
// other bits are the index of the stage in the run (RunVariant).
const RunTally uint8 = 0x80

// The index of the stage being played (RunVariant) fits below RunTally: a longer run
// (stagefile.MaxRun) does not compile.
const _ = uint(RunTally - stagefile.MaxRun)

// RunVariant splits the stage singleton's Kind.Variant into the index of the stage being played
// in the run (0 for a one-stage game) and whether the stage-clear tally after it is on.
func RunVariant(v uint8) (index int, tally bool) { return int(v &^ RunTally), v&RunTally != 0 }

// TallyBonus returns the clear bonus of a player who cleared a stage with lives lives in stock
// and deaths ships lost in it: TallyLifeBonus per life, TallyNoMissBonus when deaths is 0; 0 for a
// player out of lives.
func TallyBonus(lives, deaths int) uint32 {
	if lives <= 0 {
		return 0
	}
	b := uint32(lives) * TallyLifeBonus
	if deaths == 0 {
		b += TallyNoMissBonus
	}
	return b
}

// arcade is a Sim's run state (zero for a one-stage game).
type arcade struct {
	stages []*Stage // the run (len > 1); nil for a one-stage game
	index  int      // the stage being played
	tally  int      // ticks left of the stage-clear tally (0: none)
	// start is each slot's figures when the stage began (the tally shows the difference);
	// clear is each slot's figures for the stage just cleared (Sim.StageFigures).
	start [rules.MaxPlayers]PlayerStats
	clear [rules.MaxPlayers]PlayerStats
}

// Run returns the stages of the game's arcade run (nil for a one-stage game). Do not modify it.
func (s *Sim) Run() []*Stage { return s.run.stages }

// RunIndex returns the index of the stage being played in the run (0 for a one-stage game).
func (s *Sim) RunIndex() int { return s.run.index }

// Tally returns the ticks left of the stage-clear tally (0: no tally is on).
func (s *Sim) Tally() int { return s.run.tally }

// StageFigures returns slot's figures for the stage last cleared in an arcade run (the tally's):
// Score is the points scored in the stage, the clear bonus included; Kills, Deaths, BeamHits,
// Shots and Hits count the stage only; Lives, Continues, ExtraLives and Present are as at the
// tally's start. Zero before the first clear.
func (s *Sim) StageFigures(slot int) PlayerStats {
	if slot < 0 || slot >= rules.MaxPlayers {
		return PlayerStats{}
	}
	return s.run.clear[slot]
}

// initRun sets the run up (NewSim): stages are sanitized; fewer than two is a one-stage game.
func (s *Sim) initRun(stages []*Stage) *Stage {
	if len(stages) < 2 {
		if len(stages) == 1 {
			return stages[0]
		}
		return nil
	}
	if len(stages) > stagefile.MaxRun {
		stages = stages[:stagefile.MaxRun]
	}
	s.run.stages = make([]*Stage, len(stages))
	for i, st := range stages {
		if st == nil {
			st = DefaultStage()
		}
		s.run.stages[i] = sanitize(st)
	}
	return s.run.stages[0]
}

// stageCleared is called by sysEnd when the boss's death animation is over: it reports whether
// the game goes on (a tally then the next stage) rather than ending in victory.
func (s *Sim) stageCleared() bool {
	r := &s.run
	if r.stages == nil || r.index+1 >= len(r.stages) {
		return false
	}
	if r.tally > 0 {
		return true
	}
	s.bossDead = false
	r.tally = TallyTicks
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		now := s.Stats(slot)
		if now.Present {
			s.addScore(slot, TallyBonus(int(now.Lives), int(now.Deaths)-int(r.start[slot].Deaths)))
			now = s.Stats(slot)
		}
		r.clear[slot] = stageDiff(now, r.start[slot])
	}
	// Nothing is left to hit or be hit by: the tally is a pause.
	for it := s.qPK.Iter(); it.Next(); {
		if _, k := it.Get(); k.Kind.Info().Hostile {
			s.doomed = append(s.doomed, it.Entity())
		}
	}
	s.flushDoomed()
	s.shieldShips(TallyTicks + invulnTicks)
	s.setStageVariant(uint8(r.index) | RunTally)
	s.emit(Event{Kind: EventStageClear, Stage: uint8(r.index)})
	return true
}

// stageDiff is now less start for the counters (the stage's own figures).
func stageDiff(now, start PlayerStats) PlayerStats {
	d := now
	d.Score = now.Score - min(now.Score, start.Score)
	d.Kills = now.Kills - min(now.Kills, start.Kills)
	d.Deaths = now.Deaths - min(now.Deaths, start.Deaths)
	d.BeamHits = now.BeamHits - min(now.BeamHits, start.BeamHits)
	d.Shots = now.Shots - min(now.Shots, start.Shots)
	d.Hits = now.Hits - min(now.Hits, start.Hits)
	return d
}

// sysTally counts the tally down (sysEnd) and starts the next stage when it is over.
func (s *Sim) sysTally() {
	r := &s.run
	if r.tally == 0 {
		return
	}
	r.tally--
	if r.tally > 0 {
		s.shieldShips(r.tally + invulnTicks) // the shield lasts the tally, then a start's grace
		return
	}
	r.index++
	s.stage = r.stages[r.index]
	s.spawnIdx, s.bossSpawned, s.bossDead, s.musicSent = 0, false, false, false
	for it := s.qPK.Iter(); it.Next(); {
		if _, k := it.Get(); k.Kind == KindPowerUp {
			s.doomed = append(s.doomed, it.Entity())
		}
	}
	s.flushDoomed()
	s.c.Stage.Set(s.stageEnt, StageState{})
	p := s.c.Position.Get(s.stageEnt)
	s.setPos(s.stageEnt, p, 0, 0)
	s.setVel(s.stageEnt, s.c.Velocity.Get(s.stageEnt), s.stage.ScrollSpeed, 0)
	s.setStageVariant(uint8(r.index))
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		s.lastDeath[slot] = deathSpot{}
		if e, sp, live := s.liveShip(slot); live {
			s.setPos(e, sp, shipSpawnX, s.safeRespawnY(slot))
		}
	}
	s.shieldShips(invulnTicks)
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		r.start[slot] = s.Stats(slot)
	}
}

// shieldShips makes every live ship invulnerable for ticks.
func (s *Sim) shieldShips(ticks int) {
	for slot := 0; slot < rules.MaxPlayers; slot++ {
		e, _, live := s.liveShip(slot)
		if !live {
			continue
		}
		sh := s.c.Ship.Get(e)
		sh.Invuln = uint16(min(ticks, 65535))
		if pl := s.c.Player.Get(e); pl.Flags&PlayerInvulnerable == 0 {
			s.c.Player.Mut(e).Flags |= PlayerInvulnerable
		}
	}
}

func (s *Sim) setStageVariant(v uint8) {
	if k := s.c.Kind.Get(s.stageEnt); k.Variant != v {
		s.c.Kind.Mut(s.stageEnt).Variant = v
	}
}

// appendRunHash appends the run state to Hash's buffer (nothing for a one-stage game, whose
// hashes stay those of a game without runs).
func (s *Sim) appendRunHash(b []byte) []byte {
	r := &s.run
	if r.stages == nil {
		return b
	}
	b = append(b, uint8(r.index), uint8(len(r.stages)))
	b = binary.LittleEndian.AppendUint32(b, uint32(r.tally))
	for i := range r.start {
		b = binary.LittleEndian.AppendUint32(b, r.start[i].Score)
		b = binary.LittleEndian.AppendUint16(b, r.start[i].Kills)
		b = append(b, r.start[i].Deaths)
	}
	return b
}
