package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/coder/websocket"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/lobbyserver"
)

// webHandler serves the web address (-web): the WebSocket lobby at lobby.WebSocketPath and page
// (the browser client's files; nil: a 404 that says so) everywhere else. Like the admin
// address it refuses a Host header that is not an IP literal, localhost or one of
// cfg.Hosts (421: DNS rebinding), and the WebSocket handshake refuses an Origin other than
// the page's own host (403): a page on another origin cannot drive a player's lobby.
// A connection's address for the per-address limits is its peer's, or, when the peer is
// one of trusted, the last address of its X-Forwarded-For header (the one the trusted
// proxy appended).
func webHandler(lob *lobbyserver.Server, page http.Handler, cfg HTTPConfig, trusted []netip.Prefix, log *slog.Logger) http.Handler {
	if page == nil {
		page = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "this server serves no client page (build it with make web); the WebSocket lobby is at "+lobby.WebSocketPath, http.StatusNotFound)
		})
	}
	mux := http.NewServeMux()
	mux.Handle("/", page)
	mux.HandleFunc("GET "+lobby.WebSocketPath, func(w http.ResponseWriter, r *http.Request) {
		ip, ok := webClientIP(r, trusted)
		if !ok {
			http.Error(w, "bad X-Forwarded-For from a trusted proxy", http.StatusBadRequest)
			return
		}
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
		if err != nil {
			log.Debug("web lobby handshake refused", "remote", r.RemoteAddr, "origin", r.Header.Get("Origin"), "err", err)
			return // Accept answered (403 for a foreign Origin, 426 without an upgrade)
		}
		// The lobby's lines are bounded by its line reader, not by the message size.
		nc := websocket.NetConn(context.Background(), c, websocket.MessageText)
		if err := lob.ServeConn(nc, ip); errors.Is(err, lobbyserver.ErrNotServing) {
			c.Close(websocket.StatusGoingAway, "the server is shutting down")
		}
	})
	return hostGuard(mux, cfg)
}

// hostGuard refuses foreign Host headers (421), as guard does, without the cross-origin
// protection of state-changing requests (the web address changes nothing over plain HTTP;
// the WebSocket handshake checks its Origin itself).
func hostGuard(next http.Handler, cfg HTTPConfig) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowedHost(r.Host, cfg.Hosts) {
			http.Error(w, "foreign Host header refused (add the name to -http-hosts)", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// webClientIP is the address a web request counts for: its peer's, or, from a trusted proxy,
// the last X-Forwarded-For entry (ok false when a trusted proxy's header is there but not an
// address). A stranger's X-Forwarded-For is ignored: it cannot claim another address.
func webClientIP(r *http.Request, trusted []netip.Prefix) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}, true
	}
	peer := ap.Addr().Unmap()
	if !containsAddr(trusted, peer) {
		return peer, true
	}
	xff := r.Header.Values("X-Forwarded-For")
	if len(xff) == 0 {
		return peer, true // the proxy's own request
	}
	last := xff[len(xff)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	a, err := netip.ParseAddr(strings.TrimSpace(last))
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

func containsAddr(ps []netip.Prefix, a netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ErrWebSplit refuses -web with -role: browsers play on the all-in-one server only, not yet
// on a fleet (docs/HOSTING.md "Browser players").
var ErrWebSplit = errors.New("-web is not served with -role yet: browsers play on the all-in-one server only (run it without -role)")

// listenWeb opens the web address's listener (nil, nil when addr is "").
func listenWeb(addr string) (net.Listener, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, errors.New("web address: " + err.Error())
	}
	return ln, nil
}
