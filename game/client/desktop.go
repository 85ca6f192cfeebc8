//go:build !js

package client

import "github.com/rtype/rtype/game/client/scene"

// pageFrame is the browser build's report to its page (browser.go); nothing on the desktop.
func pageFrame(int, scene.ID) {}

// pageReport is the browser build's report of results and network figures (browser.go).
func (a *app) pageReport() {}
