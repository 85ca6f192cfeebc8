package controls

import "testing"

func TestKeyHints(t *testing.T) {
	all := func(string) bool { return true }
	d := DefaultKeyboard()
	if got := KeyHint(d, Fire, all, 2); got != "Space/J" {
		t.Errorf("fire hint %q", got)
	}
	if got := KeyHint(d, Force, all, 3); got != "K/Shift" {
		t.Errorf("force hint %q (Shift once)", got)
	}
	if got := KeyHint(d, Menu, all, 2); got != "Esc" {
		t.Errorf("menu hint %q", got)
	}
	if got := MoveHint(d, all); got != "arrows/WASD" {
		t.Errorf("move hint %q", got)
	}
	// rebound keys show in the hints; a binding that did not load is not shown as working
	b := DefaultKeyboard()
	b["fire"] = []string{"bogus", "z"}
	b["up"] = []string{"i"}
	b["left"] = []string{"j"}
	b["down"] = []string{"k"}
	b["right"] = []string{"l"}
	ok := func(k string) bool { return k != "bogus" }
	if got := KeyHint(b, Fire, ok, 2); got != "Z" {
		t.Errorf("rebound fire hint %q", got)
	}
	b["force"] = []string{"bogus"}
	if got := KeyHint(b, Force, ok, 2); got != "?" {
		t.Errorf("unloaded force hint %q", got)
	}
	if got := MoveHint(b, ok); got != "I/J/K/L" {
		t.Errorf("rebound move hint %q", got)
	}
	if got := KeyName("gamepad_start"); got != "Start" {
		t.Errorf("pad name %q", got)
	}
}
