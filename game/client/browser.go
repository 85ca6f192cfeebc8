//go:build js

package client

import (
	"syscall/js"

	"github.com/rtype/rtype/game/client/scene"
)

// browserBuild is true in the browser build: the screens that differ say so (Replays).
const browserBuild = true

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
