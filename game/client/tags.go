package client

// Slot tags of the other players are drawn left of their ships; ships flying together would put
// their tags on top of each other, so a tag that overlaps one already placed moves left of it.

// Tag box: a tag moves when it is closer than tagOverlapW horizontally and tagH vertically to
// one already placed, and it moves to tagStepW left of that one. The step is wider than the
// overlap test, so float rounding (p - (p - 48) can be 47.999996 in float32) can never make the
// same tag overlap the same placed one twice: each placed tag moves a new one at most once.
const (
	tagStepW    = 48
	tagOverlapW = tagStepW - 1
	tagH        = 22
)

// tagMargin is the least distance of a tag from the screen's left edge.
const tagMargin = 8

// tagSpot is where the slot tag (tw virtual px wide, drawn right-aligned at x, top at y) of a
// ship w×h at (cx, cy) goes: left of its exhaust, vertically centred; above the ship when that
// would cut it at the left edge (a ship at the edge of the screen).
func tagSpot(cx, cy, w, h, tw float32) (x, y float32) {
	x, y = cx-w/2-14, cy-10
	if x-tw < tagMargin {
		x, y = cx+tw/2, cy-h/2-26
	}
	return x, y
}

// placeTag returns where a tag wanted at (tx, ty) goes given the tags placed so far, and how
// many moves it took. Every move is leftward by at least tagStepW-tagOverlapW px and puts the
// tag clear of the placed one that caused it, so no placed tag causes two moves; the loop is
// also capped at len(placed) moves, so it ends whatever the float values (NaN, ±Inf, or
// magnitudes where float32 steps are wider than a pixel).
func placeTag(placed [][2]float32, tx, ty float32) (x float32, moves int) {
	for moves < len(placed) {
		moved := false
		for _, p := range placed {
			if abs32(p[0]-tx) < tagOverlapW && abs32(p[1]-ty) < tagH {
				tx, moved = p[0]-tagStepW, true
				moves++
				break
			}
		}
		if !moved {
			break
		}
	}
	return tx, moves
}
