package lobby

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/coder/websocket"
)

// WebSocketPath is where a server's web address serves the lobby over a WebSocket
// (docs/PROTOCOL.md §2.8: the lines of §2.1 in text messages).
const WebSocketPath = "/lobby"

// WebSocketURL is the URL of the WebSocket lobby for addr: a ws:// or wss:// URL as it is
// (its path WebSocketPath when it gives none), an http:// or https:// URL (a page's origin)
// as ws:// or wss://, "host:port" as ws://host:port/lobby.
func WebSocketURL(addr string) (string, error) {
	if !strings.Contains(addr, "://") {
		addr = "ws://" + addr
	}
	u, err := url.Parse(addr)
	if err != nil {
		return "", fmt.Errorf("lobby: WebSocket address %q: %w", addr, err)
	}
	switch u.Scheme {
	case "ws", "wss":
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	default:
		return "", fmt.Errorf("lobby: WebSocket address %q: the scheme must be ws, wss, http or https", addr)
	}
	if u.Host == "" {
		return "", fmt.Errorf("lobby: WebSocket address %q names no host", addr)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = WebSocketPath
	}
	return u.String(), nil
}

// DialWebSocket connects to the WebSocket lobby at addr (WebSocketURL; in a browser through
// its WebSocket API) and runs the lobby protocol over it as over TCP; ctx bounds the dial only.
func DialWebSocket(ctx context.Context, addr string) (*Client, error) {
	u, err := WebSocketURL(addr)
	if err != nil {
		return nil, err
	}
	c, _, err := websocket.Dial(ctx, u, nil)
	if err != nil {
		return nil, fmt.Errorf("lobby: WebSocket %s: %w", u, err)
	}
	return NewClient(websocket.NetConn(context.Background(), c, websocket.MessageText)), nil
}
