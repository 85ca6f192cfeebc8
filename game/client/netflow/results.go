package netflow

import (
	"fmt"

	"github.com/rtype/rtype/net/wire"
)

// ResultRow is one line of the results screen, formatted for display.
type ResultRow struct {
	Slot                                           int
	Name, Score, Kills, Deaths, BeamHits, Accuracy string
	Self                                           bool // the local player's row
	Out, Left                                      bool // out of lives / left before the end
	Continued                                      bool // the score is a continued one
	Practice                                       bool // a practice game's score (not an arcade one)
}

// SlotName is the name shown for slot: names[slot] from the lobby's MEMBERS (slot order) when
// byOrder (the members joined in slot order: not after a rejoin, when the order may differ),
// self's own name for its slot, else "Player N".
func SlotName(names []string, byOrder bool, slot, self int, selfName string) string {
	if slot == self && selfName != "" {
		return selfName
	}
	if byOrder && slot >= 0 && slot < len(names) && names[slot] != "" {
		return names[slot]
	}
	return fmt.Sprintf("Player %d", slot+1)
}

// ResultRows formats RESULTS for the results screen in slot order; name gives each slot's name
// and self is the local slot (-1 for a spectator).
func ResultRows(r wire.Results, name func(slot int) string, self int) []ResultRow {
	rows := make([]ResultRow, 0, r.Count)
	for _, e := range r.Entries[:min(int(r.Count), len(r.Entries))] {
		s := int(e.Slot)
		acc := "-"
		if e.Shots > 0 {
			acc = fmt.Sprintf("%.0f%%", Accuracy(e))
		}
		rows = append(rows, ResultRow{Slot: s, Name: name(s), Score: fmt.Sprintf("%08d", e.Score),
			Kills: fmt.Sprint(e.Kills), Deaths: fmt.Sprint(e.Deaths), BeamHits: fmt.Sprint(e.BeamHits),
			Accuracy: acc, Self: s == self, Out: e.Flags&wire.ResultOut != 0, Left: e.Flags&wire.ResultLeft != 0,
			Continued: e.Flags&wire.ResultContinued != 0, Practice: e.Flags&wire.ResultPractice != 0})
	}
	return rows
}
