//go:build js

package lobby

import (
	"strings"
	"syscall/js"
)

// dialWeb makes Dial use the WebSocket lobby: a browser has no TCP.
const dialWeb = true

// webAddr is the WebSocket lobby a browser's Dial reaches for addr: a ws:// or wss:// URL as
// it is, anything else (a host:port from -server or the settings) the page's own origin,
// whose server served the page (docs/PROTOCOL.md §2.8).
func webAddr(addr string) string {
	if strings.HasPrefix(addr, "ws://") || strings.HasPrefix(addr, "wss://") {
		return addr
	}
	if loc := js.Global().Get("location"); loc.Truthy() {
		if o := loc.Get("origin"); o.Type() == js.TypeString && o.String() != "null" {
			return o.String()
		}
	}
	return addr
}
