//go:build !js

package lobby

// dialWeb makes Dial use the WebSocket lobby (in a browser only).
const dialWeb = false
