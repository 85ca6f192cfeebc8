//go:build !js

package client

// pageFrame is the browser build's frame count for its page (browser.go); nothing on the desktop.
func pageFrame(int) {}
