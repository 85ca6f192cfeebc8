package controls

import (
	"reflect"
	"testing"
)

func TestRebind(t *testing.T) {
	b := DefaultGamepad()
	b.Rebind(Fire, "gamepad_r2")
	if got, want := b["fire"], []string{"gamepad_r2", "gamepad_x"}; !reflect.DeepEqual(got, want) {
		t.Errorf("fire after rebinding to r2 = %v, want %v (the first binding replaced, the second kept)", got, want)
	}
	b.Rebind(Fire, "gamepad_x") // the second binding made the first: not listed twice
	if got, want := b["fire"], []string{"gamepad_x"}; !reflect.DeepEqual(got, want) {
		t.Errorf("fire after rebinding to x = %v, want %v", got, want)
	}
	if got := b["force"]; !reflect.DeepEqual(got, DefaultGamepad()["force"]) {
		t.Errorf("force changed by rebinding fire: %v", got)
	}
	k := DefaultKeyboard()
	k.Rebind(Up, "i")
	if got, want := k["up"], []string{"i", "w"}; !reflect.DeepEqual(got, want) {
		t.Errorf("keyboard up = %v, want %v", got, want)
	}
}

func TestDefaultGamepadNamesArePadKeys(t *testing.T) {
	for act, keys := range DefaultGamepad() {
		for _, k := range keys {
			if !IsPadKey(k) {
				t.Errorf("gamepad default %s=%q is not a gamepad key", act, k)
			}
		}
	}
	for act, keys := range DefaultKeyboard() {
		for _, k := range keys {
			if IsPadKey(k) {
				t.Errorf("keyboard default %s=%q is a gamepad key", act, k)
			}
		}
	}
}

func TestPickPad(t *testing.T) {
	pad := func(id int, std bool, buttons int) Pad { return Pad{ID: id, Standard: std, Buttons: buttons} }
	cases := []struct {
		name string
		pads []Pad
		want int
	}{
		{"none", nil, -1},
		{"one pad", []Pad{pad(0, true, 11)}, 0},
		{"Steam Deck motion sensors opened first (no layout)", []Pad{pad(0, false, 0), pad(1, true, 23)}, 1},
		{"DualShock 4 touchpad and sensors share its mapping", []Pad{pad(0, true, 5), pad(1, true, 0), pad(2, true, 13)}, 2},
		{"two pads: the first", []Pad{pad(2, true, 11), pad(3, true, 11)}, 2},
		{"no standard layout: the first", []Pad{pad(4, false, 8), pad(5, false, 12)}, 4},
	}
	for _, c := range cases {
		if got := PickPad(c.pads); got != c.want {
			t.Errorf("%s: PickPad(%v) = %d, want %d", c.name, c.pads, got, c.want)
		}
	}
}
