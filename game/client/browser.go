//go:build js

package client

import "syscall/js"

// page is the page's window.rtype (net/webpage's rtype.js): the client tells it the frames
// drawn, which hides the loading screen at the first and lets a test or the player count
// frames per second. Undefined when the wasm runs outside that page.
var page = js.Global().Get("rtype")

// pageFrame tells the page that Draw call n is done.
func pageFrame(n int) {
	if page.Type() == js.TypeObject {
		page.Set("frames", n)
	}
}
