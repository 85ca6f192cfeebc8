//go:build display

package client

import (
	"strings"
	"testing"

	input "github.com/quasilyte/ebitengine-input"

	"github.com/rtype/rtype/ecs"
	"github.com/rtype/rtype/game"
	"github.com/rtype/rtype/game/client/controls"
	"github.com/rtype/rtype/game/client/netflow"
	"github.com/rtype/rtype/game/client/settings"
	"github.com/rtype/rtype/game/rules"
)

func TestKeymapFromSettings(t *testing.T) {
	s := settings.Default()
	km, msgs := buildKeymap(s)
	if len(msgs) != 0 {
		t.Fatalf("default bindings reported problems: %v", msgs)
	}
	for a := controls.Action(0); a < controls.NumActions; a++ {
		if len(km[input.Action(a)]) == 0 {
			t.Errorf("action %s unbound", a)
		}
	}
	names := func(a controls.Action) string {
		var out []string
		for _, k := range km[input.Action(a)] {
			out = append(out, k.String())
		}
		return strings.Join(out, ",")
	}
	if got := names(controls.Fire); !strings.Contains(got, "space") || !strings.Contains(got, "j") || !strings.Contains(got, "gamepad_a") {
		t.Errorf("fire keys %s", got)
	}
}

func TestKeymapBadNameFallsBack(t *testing.T) {
	s := settings.Default()
	s.Keyboard["fire"] = []string{"no_such_key"}
	s.Keyboard["up"] = []string{"no_such_key", "i"}
	km, msgs := buildKeymap(s)
	if len(msgs) != 2 || !strings.Contains(msgs[0], "no_such_key") {
		t.Fatalf("messages %v", msgs)
	}
	if k := km[input.Action(controls.Fire)]; len(k) == 0 || k[0].String() != "space" {
		t.Errorf("fire did not fall back to the defaults: %v", k)
	}
	if k := km[input.Action(controls.Up)]; k[0].String() != "i" {
		t.Errorf("valid key lost: %v", k)
	}
}

func TestButtonBitsMatchGame(t *testing.T) {
	pairs := []struct {
		c uint8
		g game.Buttons
	}{{controls.BtnUp, game.BtnUp}, {controls.BtnDown, game.BtnDown}, {controls.BtnLeft, game.BtnLeft},
		{controls.BtnRight, game.BtnRight}, {controls.BtnFire, game.BtnFire}, {controls.BtnForce, game.BtnForce}}
	for _, p := range pairs {
		if gameButtons(p.c) != p.g {
			t.Errorf("controls bit %d != game bit %d", p.c, p.g)
		}
	}
}

func TestCollectDrawList(t *testing.T) {
	lw := demoWorld(100)
	var d drawList
	var hud [rules.MaxPlayers]playerHUD
	lw.Frame(func(f *netflow.Frame) { d.collect(f, &hud) })
	if len(d.items) != 99 { // every entity but the stage singleton
		t.Fatalf("%d items, want 99", len(d.items))
	}
	if !d.hasStg || d.scroll != 1000 || d.bossHP != (game.Health{HP: 140, MaxHP: 200}) {
		t.Fatalf("stage %+v scroll %v boss %+v", d.stage, d.scroll, d.bossHP)
	}
	for slot, p := range hud {
		if !p.present || p.score != uint32(1200*(slot+1)) {
			t.Errorf("slot %d HUD %+v", slot, p)
		}
	}
	selfs := 0
	for _, it := range d.items {
		if it.isSelf {
			selfs++
		}
		if it.w <= 0 || it.h <= 0 {
			t.Errorf("entity %v drawn with size %vx%v", it.kind, it.w, it.h)
		}
	}
	if selfs != 1 || d.self != 0 {
		t.Fatalf("self marked %d times, slot %d", selfs, d.self)
	}
	// a ship not drawn (no position in the frame: a tally, a ship between snapshots) is still
	// in the HUD with its score, not "---" beside the others (issue 30, item 5)
	lw.W.Each(func(e ecs.Entity) {
		if p := lw.C.Player.Get(e); p != nil && p.Slot == 2 {
			lw.C.Position.Remove(e)
		}
	})
	lw.Frame(func(f *netflow.Frame) { d.collect(f, &hud) })
	if p := hud[2]; !p.present || p.score != 3600 {
		t.Errorf("a ship with no position: HUD %+v, want present with 3600", p)
	}
}
