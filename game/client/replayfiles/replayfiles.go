// Package replayfiles is where the client keeps the replays of the games it played (the Replays
// screen, the hall of fame's downloads): a folder on the desktop (files.go), the page's
// localStorage in the browser (browser.go), behind the same four calls.
package replayfiles

import "time"

// File is one kept replay: the path that Read takes, and when it was kept.
type File struct {
	Path string
	Mod  time.Time
}
