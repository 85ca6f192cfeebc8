package controls

import "strings"

// KeyName is how a binding (an ebitengine-input key name: "space", "shift_left", "gamepad_a")
// reads in a key hint: "Space", "Shift", "A".
func KeyName(k string) string {
	k = strings.TrimPrefix(k, "gamepad_")
	switch k {
	case "escape":
		return "Esc"
	case "shift_left", "shift_right":
		return "Shift"
	case "control_left", "control_right":
		return "Ctrl"
	case "alt_left", "alt_right":
		return "Alt"
	case "backspace":
		return "Backspace"
	}
	if len(k) == 1 {
		return strings.ToUpper(k)
	}
	parts := strings.Split(k, "_")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, " ")
}

// KeyHint lists up to max of a's bindings in b that loaded (ok reports whether a key name
// parses), by KeyName and without repeats, joined by "/": "Space/J". It is "?" when none loaded.
func KeyHint(b Bindings, a Action, ok func(string) bool, max int) string {
	var out []string
	for _, k := range b[a.String()] {
		if !ok(k) {
			continue
		}
		n := KeyName(k)
		dup := false
		for _, o := range out {
			dup = dup || o == n
		}
		if !dup && len(out) < max {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "?"
	}
	return strings.Join(out, "/")
}

// MoveHint is the hint for the four directions: "arrows/WASD" for the default layout (arrow
// keys first, then W A S D), else each direction's first loaded key: "I/J/K/L" (up, left, down,
// right).
func MoveHint(b Bindings, ok func(string) bool) string {
	dirs := [4]Action{Up, Left, Down, Right}
	var first, second [4]string
	for i, a := range dirs {
		var loaded []string
		for _, k := range b[a.String()] {
			if ok(k) {
				loaded = append(loaded, k)
			}
		}
		if len(loaded) > 0 {
			first[i] = loaded[0]
		}
		if len(loaded) > 1 {
			second[i] = loaded[1]
		}
	}
	if first == [4]string{"up", "left", "down", "right"} {
		if second == [4]string{"w", "a", "s", "d"} {
			return "arrows/WASD"
		}
		return "arrows"
	}
	names := make([]string, 4)
	for i, k := range first {
		names[i] = "?"
		if k != "" {
			names[i] = KeyName(k)
		}
	}
	return strings.Join(names, "/")
}
