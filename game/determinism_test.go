package game

import (
	"testing"

	"github.com/rtype/rtype/game/rules"
)

// scripted returns pseudo-random but reproducible buttons for slot at tick
// (an LCG of the test, independent of the simulation's PRNG).
func scripted(slot, tick int) Buttons {
	x := uint64(tick/7)<<8 | uint64(slot)
	x *= 0x9E3779B97F4A7C15
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 32
	b := Buttons(x) & (BtnUp | BtnDown | BtnLeft | BtnRight | BtnForce)
	if (tick+slot)%8 < 4 || (tick/300)%3 == 1 {
		b |= BtnFire
	}
	return b
}

// runScript plays ticks with scripted inputs (when changeAt >= 0, slot 0
// holds down-left for 30 ticks from changeAt instead) and returns the hash
// every 100 ticks.
func runScript(t testing.TB, seed uint64, ticks, changeAt int) []uint64 {
	t.Helper()
	st, err := LoadStage("stage1")
	if err != nil {
		t.Fatal(err)
	}
	s := NewSim(Config{Seed: seed, Players: 4, Stage: st})
	var hashes []uint64
	for i := 0; i < ticks; i++ {
		for slot := 0; slot < rules.MaxPlayers; slot++ {
			b := scripted(slot, i)
			if slot == 0 && changeAt >= 0 && i >= changeAt && i < changeAt+30 {
				b = BtnDown | BtnLeft
			}
			if slot == 3 && i > 1000 {
				b = Autopilot(s.World(), s.Components(), &s.Stage().Terrain, s.PlayerEntity(slot), s.Tick()).Buttons
			}
			s.SetInput(slot, Input{Buttons: b})
		}
		s.Step()
		s.World().ClearEvents()
		if i%100 == 99 {
			hashes = append(hashes, s.Hash())
		}
	}
	return hashes
}

func TestDeterminism(t *testing.T) {
	ticks := 6000
	if testing.Short() {
		ticks = 2000
	}
	a := runScript(t, 99, ticks, -1)
	b := runScript(t, 99, ticks, -1)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed and inputs diverged at tick %d", (i+1)*100)
		}
	}
	// Different inputs from tick 100 (the ships are still alive) change the world.
	c := runScript(t, 99, 1000, 100)
	if c[0] != a[0] {
		t.Fatal("hash differs at tick 100, before the changed input")
	}
	if c[1] == a[1] {
		t.Error("different inputs from tick 100 did not change the hash at tick 200")
	}
	// Another seed gives another world (enemy fire timing uses the PRNG).
	d := runScript(t, 100, 1000, -1)
	if d[9] == a[9] {
		t.Error("a different seed gives the same hash at tick 1000")
	}
}

func TestHashCoversState(t *testing.T) {
	s := newTestSim(t, 2)
	step(s, 10, BtnRight)
	h := s.Hash()
	if s.Hash() != h {
		t.Fatal("Hash is not stable")
	}
	// Each kind of state change shows in the hash.
	changes := []func(){
		func() { s.c.Position.Get(s.PlayerEntity(1)).X += 1 },
		func() { s.c.Player.Get(s.PlayerEntity(0)).Score++ },
		func() { s.c.Ship.Get(s.PlayerEntity(0)).Cooldown++ }, // server-only component
		func() { s.rng.next() },
		func() { s.SetInput(1, Input{Buttons: BtnFire}) },
		func() { addEnemy(s, 900, 500, 1) },
	}
	for i, change := range changes {
		change()
		h2 := s.Hash()
		if h2 == h {
			t.Errorf("change %d not reflected in the hash", i)
		}
		h = h2
	}
}
