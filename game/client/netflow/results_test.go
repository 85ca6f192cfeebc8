package netflow

import (
	"reflect"
	"testing"

	"github.com/rtype/rtype/net/wire"
)

func TestResultRows(t *testing.T) {
	var r wire.Results
	r.Count = 2
	r.Entries[0] = wire.ResultEntry{Slot: 0, Score: 12300, Kills: 41, Deaths: 1, BeamHits: 6, Shots: 200, Hits: 150}
	r.Entries[1] = wire.ResultEntry{Slot: 2, Flags: wire.ResultOut | wire.ResultPractice, Score: 800, Kills: 3, Deaths: 3}
	names := []string{"ann", "bob", "cid"}
	rows := ResultRows(r, func(s int) string { return SlotName(names, true, s, 2, "cid") }, 2)
	want := []ResultRow{
		{Slot: 0, Name: "ann", Score: "00012300", Kills: "41", Deaths: "1", BeamHits: "6", Accuracy: "75%"},
		{Slot: 2, Name: "cid", Score: "00000800", Kills: "3", Deaths: "3", BeamHits: "0", Accuracy: "-", Self: true, Out: true, Practice: true},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("rows\n%+v\nwant\n%+v", rows, want)
	}
}

func TestSlotName(t *testing.T) {
	names := []string{"ann", "bob"}
	if got := SlotName(names, true, 1, 0, "ann"); got != "bob" {
		t.Fatalf("by order: %q", got)
	}
	// after a rejoin the member order may not be the slot order: only the own name is known
	if got := SlotName(names, false, 1, 3, "zed"); got != "Player 2" {
		t.Fatalf("rejoined: %q", got)
	}
	if got := SlotName(names, false, 3, 3, "zed"); got != "zed" {
		t.Fatalf("own slot: %q", got)
	}
	if got := SlotName(names, true, 3, 0, "ann"); got != "Player 4" {
		t.Fatalf("beyond the members: %q", got)
	}
}
