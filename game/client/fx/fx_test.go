package fx

import (
	"testing"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
)

func TestParticlesLiveAndDie(t *testing.T) {
	var ps Particles
	ps.Burst(100, 100, 50, 5, 20, 3, Color{255, 200, 0, 255})
	if len(ps.P) != 50 {
		t.Fatalf("burst made %d particles", len(ps.P))
	}
	ps.Update()
	moved := false
	for _, p := range ps.P {
		moved = moved || p.X != 100 || p.Y != 100
		if a := p.Alpha(); a <= 0 || a > 1 {
			t.Fatalf("alpha %v", a)
		}
	}
	if !moved {
		t.Fatal("particles did not move")
	}
	for i := 0; i < 100; i++ {
		ps.Update()
	}
	if len(ps.P) != 0 {
		t.Fatalf("%d particles outlived their life", len(ps.P))
	}
}

func TestParticleCap(t *testing.T) {
	ps := Particles{Max: 10}
	ps.Burst(0, 0, 100, 1, 10, 1, Color{})
	if len(ps.P) != 10 {
		t.Fatalf("cap: %d", len(ps.P))
	}
}

func TestTrackerRemovalNewAndFlash(t *testing.T) {
	tr := NewTracker()
	e1, e2 := ecs.Entity(1|1<<32), ecs.Entity(2|1<<32)
	enemy := game.Kind{Kind: game.KindEnemy}
	tr.Begin()
	if isNew, _ := tr.See(e1, Tracked{Kind: enemy, X: 500, Y: 300, HP: 10}); isNew {
		t.Fatal("first frame reports nothing as new")
	}
	tr.End(nil)

	tr.Begin()
	_, dmg := tr.See(e1, Tracked{Kind: enemy, X: 490, Y: 300, HP: 7})
	isNew, _ := tr.See(e2, Tracked{Kind: game.Kind{Kind: game.KindPlayerBullet}})
	if !dmg || !isNew {
		t.Fatalf("damaged=%v new=%v", dmg, isNew)
	}
	tr.End(nil)
	if f := tr.Flash(e1); f <= 0 || f > 1 {
		t.Fatalf("flash %v", f)
	}

	tr.Begin()
	tr.See(e2, Tracked{})
	var removed []ecs.Entity
	var last Tracked
	tr.End(func(e ecs.Entity, l Tracked) { removed = append(removed, e); last = l })
	if len(removed) != 1 || removed[0] != e1 || last.X != 490 || last.Kind != enemy {
		t.Fatalf("removed %v last %+v", removed, last)
	}
	if tr.Flash(e1) != 0 {
		t.Fatal("flash of a removed entity")
	}
}

func TestFlashFades(t *testing.T) {
	tr := NewTracker()
	e := ecs.Entity(3 | 1<<32)
	tr.Begin()
	tr.See(e, Tracked{HP: 5})
	tr.End(nil)
	tr.Begin()
	tr.See(e, Tracked{HP: 4})
	tr.End(nil)
	for i := 0; i < FlashTicks+1; i++ {
		tr.Begin()
		tr.See(e, Tracked{HP: 4})
		tr.End(nil)
	}
	if tr.Flash(e) != 0 {
		t.Fatalf("flash still %v", tr.Flash(e))
	}
}

func TestOnScreen(t *testing.T) {
	if !OnScreen(10, 10, 0) || OnScreen(-100, 10, 50) || OnScreen(2000, 10, 50) || !OnScreen(1950, 10, 50) {
		t.Fatal("OnScreen")
	}
}
