//go:build js

package lobby

// dialWeb makes Dial use the WebSocket lobby: a browser has no TCP.
const dialWeb = true
