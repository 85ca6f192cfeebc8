package controls

import "testing"

func held(acts ...Action) func(Action) bool {
	return func(a Action) bool {
		for _, x := range acts {
			if x == a {
				return true
			}
		}
		return false
	}
}

func TestButtonsEightWay(t *testing.T) {
	cases := []struct {
		name string
		acts []Action
		want uint8
	}{
		{"none", nil, 0},
		{"up", []Action{Up}, BtnUp},
		{"down-right diagonal", []Action{Down, Right}, BtnDown | BtnRight},
		{"up-left diagonal", []Action{Up, Left}, BtnUp | BtnLeft},
		{"up+down cancel", []Action{Up, Down}, 0},
		{"left+right cancel keeps up", []Action{Left, Right, Up}, BtnUp},
		{"fire while moving", []Action{Fire, Right}, BtnFire | BtnRight},
		{"force", []Action{Force}, BtnForce},
		{"menu keys are not game buttons", []Action{Menu, Confirm, Back}, 0},
	}
	for _, c := range cases {
		if got := Buttons(held(c.acts...)); got != c.want {
			t.Errorf("%s: Buttons = %06b, want %06b", c.name, got, c.want)
		}
	}
}

func TestButtonBitsMatchDesign(t *testing.T) {
	// game.Buttons: bit0 up, bit1 down, bit2 left, bit3 right, bit4 fire, bit5 force.
	want := []uint8{1, 2, 4, 8, 16, 32}
	got := []uint8{BtnUp, BtnDown, BtnLeft, BtnRight, BtnFire, BtnForce}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("bit %d = %d, want %d", i, got[i], want[i])
		}
	}
}

func TestDefaultsBindEveryAction(t *testing.T) {
	for _, b := range []Bindings{DefaultKeyboard(), DefaultGamepad()} {
		for a := Action(0); a < NumActions; a++ {
			if len(b[a.String()]) == 0 {
				t.Errorf("action %s has no default binding", a)
			}
		}
	}
	kb := DefaultKeyboard()
	for _, want := range []struct{ act, key string }{
		{"up", "up"}, {"up", "w"}, {"left", "a"}, {"fire", "space"}, {"fire", "j"},
		{"force", "k"}, {"force", "shift_left"}, {"menu", "escape"},
	} {
		found := false
		for _, k := range kb[want.act] {
			found = found || k == want.key
		}
		if !found {
			t.Errorf("keyboard %s lacks %q: %v", want.act, want.key, kb[want.act])
		}
	}
}

func TestActionNamesRoundTrip(t *testing.T) {
	for a := Action(0); a < NumActions; a++ {
		got, ok := ByName(a.String())
		if !ok || got != a {
			t.Errorf("ByName(%q) = %v,%v", a.String(), got, ok)
		}
	}
	if _, ok := ByName("jump"); ok {
		t.Error("unknown action name accepted")
	}
}
