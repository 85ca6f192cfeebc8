//go:build !js

package lobby

// dialWeb makes Dial use the WebSocket lobby (in a browser only).
const dialWeb = false

// webAddr is the browser's WebSocket lobby for addr (dial_js.go); unused outside a browser.
func webAddr(addr string) string { return addr }
