package game

import "github.com/rtype/rtype/ecs"

// Novice is a weaker built-in player for balance measurements: a model of a new human player,
// built on the Autopilot's judgement with a human's limits.
//
//   - Reaction time: it acts on what the Autopilot decided NoviceReaction ticks (250 ms) ago, so
//     it dodges a bullet a quarter second late and overshoots a move that is no longer needed.
//   - Coarse control: it changes its stick direction at most every noviceHold ticks (a person
//     taps and holds keys, not 60 decisions a second).
//   - Lapses: now and then (on average every noviceLapseEvery ticks) it stops steering for
//     noviceLapse ticks, as a player looking at the score, the chat or the boss does.
//   - Imperfect aim: its stick carries a vertical error: for noviceAimHold ticks at a time it
//     holds up or down for one tick in noviceAimEvery (random), a ship that is never quite
//     lined up.
//   - It fires by tapping like the Autopilot, charges only when the Autopilot does, and uses the
//     Force the same way; delayed like the rest.
//
// A Novice is deterministic for its seed. Use one per ship; the zero value is not ready (use
// NewNovice).
type Novice struct {
	rng      rng
	past     [NoviceReaction]Input // the Autopilot's inputs of the last NoviceReaction ticks
	n        int                   // ticks seen
	move     Buttons               // the held direction
	holdLeft int                   // ticks before the direction may change
	lapse    int                   // ticks of lapse left
	aimDir   Buttons               // BtnUp, BtnDown or 0: the aim error
	aimLeft  int
}

// Novice model parameters (ticks, 60 Hz).
const (
	NoviceReaction   = 15 // 250 ms
	noviceHold       = 6
	noviceLapseEvery = 8 * TickRate
	noviceLapse      = 20
	noviceAimHold    = 40
	noviceAimEvery   = 4
)

// NewNovice returns a novice player whose randomness comes from seed.
func NewNovice(seed uint64) *Novice { return &Novice{rng: rng{state: seed ^ 0x6e6f76696365}} }

// Input returns the novice's buttons for ship self at tick (call once per tick, in order).
func (nv *Novice) Input(w *ecs.World, c *Components, t *Terrain, self ecs.Entity, tick ecs.Tick) Input {
	now := Autopilot(w, c, t, self, tick)
	i := nv.n % NoviceReaction
	then := nv.past[i] // what it decided NoviceReaction ticks ago (nothing at first)
	nv.past[i] = now
	nv.n++
	const dirs = BtnUp | BtnDown | BtnLeft | BtnRight
	if nv.lapse > 0 {
		nv.lapse--
		nv.move = 0
	} else if nv.rng.intn(noviceLapseEvery) == 0 {
		nv.lapse = noviceLapse
	}
	if nv.holdLeft > 0 {
		nv.holdLeft--
	} else if nv.lapse == 0 {
		if d := then.Buttons & dirs; d != nv.move {
			nv.move, nv.holdLeft = d, noviceHold
		}
	}
	if nv.aimLeft > 0 {
		nv.aimLeft--
	} else {
		nv.aimLeft = noviceAimHold
		nv.aimDir = [3]Buttons{0, BtnUp, BtnDown}[nv.rng.intn(3)]
	}
	b := nv.move | then.Buttons&^dirs
	if nv.aimDir != 0 && b&(BtnUp|BtnDown) == 0 && nv.rng.intn(noviceAimEvery) == 0 {
		b |= nv.aimDir
	}
	return Input{Buttons: b}
}
