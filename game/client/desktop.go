//go:build !js

package client

import (
	"github.com/rtype/rtype/game/client/invite"
	"github.com/rtype/rtype/game/client/scene"
)

// pageFrame is the browser build's report to its page (browser.go); nothing on the desktop.
func pageFrame(int, scene.ID) {}

// pageReport is the browser build's report of results and network figures (browser.go).
func (a *app) pageReport() {}

// inviteLink is the room's invite on the desktop: rtype://host:port/CODE (game/client/invite).
func inviteLink(addr, code string) string { return invite.Link(addr, code) }
