package server

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"strings"

	"github.com/rtype/rtype/lobby"
	"github.com/rtype/rtype/net/metrics"
)

// MaxBroadcastBody bounds the body of POST /broadcast (bytes).
const MaxBroadcastBody = 4096

// AdminHandler serves the operator's admin address (-admin, off by default; README "Operating a
// server"):
//
//	GET  /metrics         Prometheus metrics (net/metrics)
//	GET  /debug/pprof/... net/http/pprof profiles
//	POST /broadcast       the request body (UTF-8 text, 1..200 characters) is pushed to every
//	                      lobby connection as BROADCAST (docs/PROTOCOL.md §2.5.6); the answer is
//	                      200 "sent to N clients", 400 with the reason for a bad text
//
// The address has no authentication: bind it to loopback or a private network.
func AdminHandler(reg *metrics.Registry, lob *lobby.Server, log *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", reg.Handler())
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("POST /broadcast", func(w http.ResponseWriter, r *http.Request) {
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
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "rtype-server admin: GET /metrics, GET /debug/pprof/, POST /broadcast (body: the text)\n")
	})
	return mux
}
