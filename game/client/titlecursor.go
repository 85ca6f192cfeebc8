package client

// titleCursor keeps the title's item chosen last: coming back to the title (after a game, the
// settings, the hall of fame) puts the cursor on it again, not on the first item.
type titleCursor struct {
	item string // the item chosen last ("" before any)
	seen int    // the last frame the title was updated or drawn
}

// restore puts a.menu on the item chosen last when the title was not on screen in the last
// frame (the scene machine's switch left the cursor on the first item).
func (c *titleCursor) restore(a *app, items []string) {
	if c.seen < a.frameN-1 && c.item != "" {
		a.menu = max(0, min(a.menu, len(items)-1))
		if i := titleIndex(items, c.item); i >= 0 {
			a.menu = i
		}
	}
	c.seen = a.frameN
}

// titleIndex is the index of item in items, -1 when it is not there (a Rejoin item gone).
func titleIndex(items []string, item string) int {
	for i, it := range items {
		if it == item {
			return i
		}
	}
	return -1
}
