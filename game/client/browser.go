//go:build js

package client

import (
	"encoding/json"
	"syscall/js"

	"github.com/rtype/rtype/game/client/scene"
)

// page is the page's window.rtype (net/webpage's rtype.js): the client tells it the frames
// drawn (frames: the first hides the loading screen; a test or the player counts frames per
// second with it) and the screen shown (scene: scene.ID's name, "title", "playing",
// "results"..., what a browser test waits on). Undefined when the wasm runs outside that page.
var page = js.Global().Get("rtype")

// pageScene is the scene last told to the page (sceneUnset before the first).
var pageScene = sceneUnset

const sceneUnset = scene.ID(255)

// pageFrame tells the page that Draw call n is done, showing sc.
func pageFrame(n int, sc scene.ID) {
	if page.Type() != js.TypeObject {
		return
	}
	page.Set("frames", n)
	if sc != pageScene {
		pageScene = sc
		page.Set("scene", sc.String())
	}
}

// pageResultsShown: the results of the game on the results screen were told to the page.
var pageResultsShown bool

// pageReport tells the page, in the browser build, what a test compares with the server's:
// rtype.results (JSON, once per results screen: the game's result, the local slot and RESULTS'
// entries) and rtype.net (JSON of session.Stats, every 30 frames in a game).
func (a *app) pageReport() {
	if page.Type() != js.TypeObject {
		return
	}
	if a.m.Scene != scene.Results {
		pageResultsShown = false
	} else if !pageResultsShown && a.ux.haveResults {
		pageResultsShown = true
		type entry struct {
			Slot, Deaths       uint8
			Score, Shots, Hits uint32
			Kills, BeamHits    uint16
		}
		r := struct {
			Result  uint8
			Self    int
			Entries []entry
		}{Result: a.m.Result, Self: a.draw.self}
		for _, e := range a.ux.results.Entries[:min(int(a.ux.results.Count), len(a.ux.results.Entries))] {
			r.Entries = append(r.Entries, entry{Slot: e.Slot, Deaths: e.Deaths, Score: e.Score, Shots: e.Shots, Hits: e.Hits, Kills: e.Kills, BeamHits: e.BeamHits})
		}
		if b, err := json.Marshal(r); err == nil {
			page.Set("results", string(b))
		}
	}
	if a.link != nil && a.draws%30 == 0 {
		if b, err := json.Marshal(a.link.Stats()); err == nil {
			page.Set("net", string(b))
		}
	}
}

// inviteLink is the room's invite in the browser: this page's address with ?lobby=CODE, the
// link a friend opens to join (the desktop client's rtype:// link names a TCP lobby address a
// page does not use).
func inviteLink(_, code string) string {
	loc := js.Global().Get("location")
	if loc.Type() != js.TypeObject {
		return "?lobby=" + code
	}
	return loc.Get("origin").String() + loc.Get("pathname").String() + "?lobby=" + code
}
