package server

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/lobby/lobbyserver"
	"github.com/rtype/rtype/net/metrics"
)

// MaxBroadcastBody bounds the body of POST /broadcast (bytes).
const MaxBroadcastBody = 4096

// HTTPConfig is what the metrics and admin addresses check on every request.
type HTTPConfig struct {
	// Token guards the admin address's write and profiling endpoints (POST /broadcast,
	// /debug/pprof/): a request must carry "Authorization: Bearer <Token>". "" refuses them all.
	Token string
	// Hosts are the host names (besides IP literals and localhost) that requests may name in
	// their Host header: any other is refused (DNS rebinding: a web page whose name resolves to
	// 127.0.0.1 cannot read the metrics or the profiles).
	Hosts []string
	// NotReady says why the server takes no new players ("" while it does): GET /readyz
	// answers 200, else 503 with that reason ("shutting down", "no game host up").
	NotReady func() string
	// mod is the admin address's moderation (its bans kept in the database); nil: a moderation
	// whose bans are kept in memory only.
	mod *moderation
}

// What GET /readyz answers with its 503.
const (
	NotReadyShuttingDown = "shutting down"
	NotReadyNoHosts      = "no game host up"
)

// MetricsHandler serves the metrics address (-metrics; docs/HOSTING.md "Operating a server"), read-only
// and unauthenticated, and nothing else:
//
//	GET /metrics  Prometheus metrics (net/metrics)
//	GET /healthz  200 while the process serves
//	GET /readyz   200 while it takes new players, else 503 and why (shutting down, no game host up)
func MetricsHandler(reg *metrics.Registry, cfg HTTPConfig) http.Handler {
	mux := http.NewServeMux()
	addHealth(mux, reg, cfg)
	return guard(mux, cfg)
}

// AdminHandler serves the operator's admin address (-admin, off by default): the metrics
// address's endpoints, and behind the token (HTTPConfig.Token):
//
//	GET  /debug/pprof/... net/http/pprof profiles
//	POST /broadcast       the request body (UTF-8 text, 1..200 characters) is pushed to every
//	                      lobby connection as BROADCAST (docs/PROTOCOL.md §2.5.6); the answer is
//	                      200 "sent to N clients", 400 with the reason for a bad text
//	GET  /players, /lobbies, /games, /bans  JSON lists (moderation.go)
//	POST /kick, /ban, /unban, /mute, /unmute  form fields (moderation.go; docs/HOSTING.md "Moderation")
//
// Both addresses refuse a Host header that is not an IP literal, localhost or one of
// HTTPConfig.Hosts (421), and cross-origin browser requests that change state (403,
// net/http.CrossOriginProtection: a page in the operator's browser cannot POST /broadcast).
func AdminHandler(reg *metrics.Registry, lob *lobbyserver.Server, log *slog.Logger, cfg HTTPConfig) http.Handler {
	mux := http.NewServeMux()
	addHealth(mux, reg, cfg)
	auth := func(h http.HandlerFunc) http.Handler { return requireToken(cfg.Token, log, h) }
	mux.Handle("/debug/pprof/", auth(pprof.Index))
	mux.Handle("/debug/pprof/cmdline", auth(pprof.Cmdline))
	mux.Handle("/debug/pprof/profile", auth(pprof.Profile))
	mux.Handle("/debug/pprof/symbol", auth(pprof.Symbol))
	mux.Handle("/debug/pprof/trace", auth(pprof.Trace))
	mux.Handle("POST /broadcast", auth(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBroadcastBody))
		if err != nil {
			http.Error(w, "body too large or unreadable: "+err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		text := strings.TrimRight(string(b), "\r\n")
		n, err := lob.Broadcast(text)
		if err != nil {
			if errors.Is(err, lobby.ErrBadText) {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		log.Info("admin broadcast", "remote", r.RemoteAddr, "clients", n)
		fmt.Fprintf(w, "sent to %d clients\n", n)
	}))
	mod := cfg.mod
	if mod == nil {
		mod = newModeration(lob, nil, log)
	}
	mod.routes(mux, auth)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "rtype-server admin: GET /metrics, /healthz, /readyz; with the admin token: GET /debug/pprof/, POST /broadcast (body: the text),\n"+
			"GET /players, /lobbies, /games, /bans; POST /kick (player, reason), /ban (name or addr, for, reason), /unban (ban), /mute and /unmute (player)\n")
	})
	return guard(mux, cfg)
}

func addHealth(mux *http.ServeMux, reg *metrics.Registry, cfg HTTPConfig) {
	mux.Handle("GET /metrics", reg.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if cfg.NotReady != nil {
			if why := cfg.NotReady(); why != "" {
				http.Error(w, why, http.StatusServiceUnavailable)
				return
			}
		}
		fmt.Fprintln(w, "ready")
	})
}

// guard refuses foreign Host headers (421) and cross-origin state-changing browser requests
// (403) before next.
func guard(next http.Handler, cfg HTTPConfig) http.Handler {
	cop := http.NewCrossOriginProtection()
	h := cop.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowedHost(r.Host, cfg.Hosts) {
			http.Error(w, "foreign Host header refused (add the name to -http-hosts)", http.StatusMisdirectedRequest)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// allowedHost reports whether a request's Host header (host or host:port) names an IP literal,
// localhost or one of hosts.
func allowedHost(hostport string, hosts []string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return false
	}
	if net.ParseIP(strings.Trim(host, "[]")) != nil || host == "localhost" {
		return true
	}
	for _, a := range hosts {
		if strings.EqualFold(strings.TrimSuffix(a, "."), host) {
			return true
		}
	}
	return false
}

// requireToken serves h only to requests with "Authorization: Bearer <token>" (constant-time
// comparison); without a configured token every request is refused.
func requireToken(token string, log *slog.Logger, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token == "" {
			http.Error(w, "no admin token configured (RTYPE_ADMIN_TOKEN or -admin-token-file): this endpoint is off", http.StatusForbidden)
			return
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			log.Debug("admin request refused: bad or missing token", "remote", r.RemoteAddr, "path", r.URL.Path)
			w.Header().Set("WWW-Authenticate", `Bearer realm="rtype-server admin"`)
			http.Error(w, "missing or wrong admin token (Authorization: Bearer ...)", http.StatusUnauthorized)
			return
		}
		h(w, r)
	})
}
