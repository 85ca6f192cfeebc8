package game

import (
	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game/rules"
)

// PlayerStats are one slot's figures for the results screen (wire RESULTS, docs/PROTOCOL.md
// §3.4.8), counted by the simulation from the start of the game, deterministic like the rest.
type PlayerStats struct {
	Score    uint32 // points (Player.Score, kept when the ship is removed or suspended)
	Kills    uint16 // enemies (and the boss's weak point) destroyed by the slot's shots, Force or Bits
	Deaths   uint8  // ships lost
	BeamHits uint16 // charged beams (KindBeam) that damaged something, each counted once
	Shots    uint32 // player bullets, lasers, missiles and beams fired (the Force's and Bits' too)
	Hits     uint32 // of Shots, those that damaged an enemy or the weak point, each counted once
	Lives    uint8  // lives left (0: out)
	// Continues taken (the score is marked as continued when > 0) and extra lives earned.
	Continues, ExtraLives uint8
	Present               bool // the slot has a ship or is suspended (false: never joined or removed)
}

// awaySlot is a suspended ship's player record (SuspendPlayer).
type awaySlot struct {
	valid  bool
	player Player
}

// Stats returns slot's figures (zero for an invalid slot).
func (s *Sim) Stats(slot int) PlayerStats {
	if slot < 0 || slot >= rules.MaxPlayers {
		return PlayerStats{}
	}
	st := s.stats[slot]
	switch {
	case s.ships[slot] != ecs.Nil:
		pl := s.c.Player.Get(s.ships[slot])
		st.Score, st.Lives, st.Present = pl.Score, pl.Lives, true
	case s.away[slot].valid:
		st.Score, st.Lives, st.Present = s.away[slot].player.Score, s.away[slot].player.Lives, true
	default:
		st.Score, st.Lives = s.removed[slot].Score, 0
	}
	return st
}

func (s *Sim) addKill(slot int) {
	if slot >= 0 && slot < rules.MaxPlayers {
		s.stats[slot].Kills++
	}
}

// shotHit counts shot e's first damage (Hits, and BeamHits for a beam).
func (s *Sim) shotHit(e ecs.Entity, shot *Shot) {
	if shot.Hit != 0 || int(shot.Slot) >= rules.MaxPlayers {
		return
	}
	shot.Hit = 1
	st := &s.stats[shot.Slot]
	st.Hits++
	if k := s.c.Kind.Get(e); k != nil && k.Kind == KindBeam {
		st.BeamHits++
	}
}

// SuspendPlayer takes the ship of slot out of the world while its player is away (its
// connection was lost and it may rejoin): the ship, its Force and its Bits are destroyed, its
// Player record (lives, score, power-ups) is kept for ResumePlayer. A suspended slot with lives
// left keeps the game from ending in defeat. It reports whether slot had a ship.
func (s *Sim) SuspendPlayer(slot int) bool {
	if slot < 0 || slot >= rules.MaxPlayers || s.ships[slot] == ecs.Nil {
		return false
	}
	s.record(OpSuspend, slot, 0)
	e := s.ships[slot]
	pl := *s.c.Player.Get(e)
	pl.ChargeFrom = 0
	s.away[slot] = awaySlot{valid: true, player: pl}
	if sh := s.c.Ship.Get(e); sh != nil {
		s.loseArsenal(sh)
	}
	s.w.Destroy(e)
	s.ships[slot] = ecs.Nil
	s.inputs[slot] = 0
	return true
}

// Suspended reports whether slot is suspended (SuspendPlayer, not resumed or removed since).
func (s *Sim) Suspended(slot int) bool {
	return slot >= 0 && slot < rules.MaxPlayers && s.away[slot].valid
}

// ResumePlayer brings a suspended slot back: a new ship entity (returned) at the respawn point,
// invulnerable as after a death, with the kept Player record (out of lives: dead, as it was). It
// returns ecs.Nil if slot is not suspended.
func (s *Sim) ResumePlayer(slot int) ecs.Entity {
	if !s.Suspended(slot) {
		return ecs.Nil
	}
	s.record(OpResume, slot, 0)
	pl := s.away[slot].player
	s.away[slot] = awaySlot{}
	e := s.w.Create()
	s.ships[slot] = e
	sh := Ship{}
	switch {
	case pl.Lives > 0:
		pl.Flags = PlayerInvulnerable
		sh.Invuln = s.rules.InvulnMax
	case pl.Flags&PlayerContinue != 0: // the offer starts again
		pl.Flags = PlayerDead | PlayerContinue
		sh.Respawn = continueTicks
	default:
		pl.Flags = PlayerDead
	}
	s.c.Position.Set(e, Position{shipSpawnX, s.safeRespawnY(slot)})
	s.c.Velocity.Set(e, Velocity{})
	s.c.Kind.Set(e, Kind{Kind: KindPlayer, Variant: uint8(slot)})
	s.c.Player.Set(e, pl)
	s.c.Size.Set(e, SizeOf(Kind{Kind: KindPlayer}))
	s.c.Ship.Set(e, sh)
	return e
}
