package fleet

import "testing"

func TestChoose(t *testing.T) {
	up := func(games, capacity int) HostView {
		return HostView{Up: true, Load: Load{Games: games, Capacity: capacity}}
	}
	for _, tc := range []struct {
		name  string
		hosts []HostView
		want  int
	}{
		{"none", nil, -1},
		{"all down", []HostView{{Load: Load{Capacity: 4}}}, -1},
		{"all full", []HostView{up(4, 4), up(2, 2)}, -1},
		{"draining is skipped", []HostView{{Up: true, Load: Load{Capacity: 4, Draining: true}}, up(3, 4)}, 1},
		{"least loaded by ratio", []HostView{up(2, 4), up(3, 8)}, 1},
		{"equal ratio: more free", []HostView{up(1, 2), up(4, 8)}, 1},
		{"equals: first listed", []HostView{up(1, 4), up(1, 4)}, 0},
		{"down host with room is skipped", []HostView{{Load: Load{Capacity: 100}}, up(7, 8)}, 1},
		{"over capacity counts as full", []HostView{up(9, 8), up(0, 1)}, 1},
		{"starts in flight count as games", []HostView{{Up: true, Load: Load{Capacity: 4}, Starting: 2}, up(1, 4)}, 1},
		{"starts in flight fill a host", []HostView{{Up: true, Load: Load{Games: 3, Capacity: 4}, Starting: 1}}, -1},
	} {
		if got := Choose(tc.hosts); got != tc.want {
			t.Errorf("%s: Choose = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestChooseSpreads: equal hosts fill in turn as the lobby's view follows each start.
func TestChooseSpreads(t *testing.T) {
	hosts := []HostView{
		{Up: true, Load: Load{Capacity: 4}},
		{Up: true, Load: Load{Capacity: 4}},
		{Up: true, Load: Load{Capacity: 8}},
	}
	var order []int
	for {
		i := Choose(hosts)
		if i < 0 {
			break
		}
		order = append(order, i)
		hosts[i].Load.Games++
	}
	want := []int{2, 0, 1, 2, 2, 0, 1, 2, 2, 0, 1, 2, 2, 0, 1, 2}
	if len(order) != len(want) {
		t.Fatalf("placed %d games, want %d (the total capacity)", len(order), len(want))
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}
}
