package serverlist

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The list API's paths and limits (docs/PROTOCOL.md §11.2).
const (
	// PathServers is the list (GET) and where a game server registers (POST);
	// PathServers+"/ADDR" is where it leaves (DELETE).
	PathServers = "/servers"
	// MaxBody bounds a registration's body.
	MaxBody = 8 << 10
	// MaxListBody bounds a list a client reads (Fetch): DefaultMaxEntries entries of the
	// largest size fit.
	MaxListBody = 32 << 20
	// ListCache is how long the list server serves one rendering of the list.
	ListCache = 5 * time.Second
)

// Registration is the list server's answer to a registration (POST).
type Registration struct {
	Status    Status `json:"status,omitempty"`
	Addr      string `json:"addr,omitempty"`       // the address the entry is listed under
	ExpiresIn int    `json:"expires_in,omitempty"` // seconds without a refresh before it is forgotten
	Error     string `json:"error,omitempty"`      // why the request was refused (then nothing else)
}

// List is the body of GET /servers.
type List struct {
	Servers []Entry `json:"servers"`
}

// ServerConfig configures the list server's runtime.
type ServerConfig struct {
	Table TableConfig
	// Conn is the UDP socket the tokens leave from and the echoes come to (required).
	Conn net.PacketConn
	// CacheFor is how long one rendering of the list is served (0: ListCache).
	CacheFor time.Duration
	// TrustedProxies may name a request's source in the last X-Forwarded-For value (a reverse
	// proxy in front of the list server); none: the connection's address is the source.
	TrustedProxies []netip.Prefix
	Logger         *slog.Logger
}

// Server is the list server's runtime: the HTTP API (Handler) and the UDP socket (Run) around a
// Table.
type Server struct {
	cfg   ServerConfig
	log   *slog.Logger
	start time.Time

	mu    sync.Mutex
	t     *Table
	cache struct {
		body    []byte
		etag    string
		version uint64
		at      time.Duration
		ok      bool
	}

	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	tokens   prometheus.Counter
	echoes   *prometheus.CounterVec
}

// NewServer makes the list server's runtime.
func NewServer(cfg ServerConfig) *Server {
	if cfg.CacheFor <= 0 {
		cfg.CacheFor = ListCache
	}
	s := &Server{cfg: cfg, log: cfg.Logger, start: time.Now(), t: NewTable(cfg.Table), reg: prometheus.NewRegistry()}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rtype_list_requests_total", Help: "HTTP requests to the list API, by operation and status code."}, []string{"op", "code"})
	s.tokens = prometheus.NewCounter(prometheus.CounterOpts{Name: "rtype_list_tokens_sent_total", Help: "Reachability tokens sent to registered query ports."})
	s.echoes = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rtype_list_datagrams_total", Help: "Datagrams received on the UDP socket, by result: listed (a proof) or ignored."}, []string{"result"})
	gauge := func(name, help string, f func(l, p, r int) int) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 {
			s.mu.Lock()
			l, p, r, _ := s.t.Counts()
			s.mu.Unlock()
			return float64(f(l, p, r))
		})
	}
	s.reg.MustRegister(s.requests, s.tokens, s.echoes,
		gauge("rtype_list_servers", "Servers listed.", func(l, _, _ int) int { return l }),
		gauge("rtype_list_pending", "Registrations waiting for their reachability proof.", func(_, p, _ int) int { return p }),
		gauge("rtype_list_records", "Records in the table (listed or pending; bounded by -max-entries).", func(_, _, r int) int { return r }),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return s
}

func (s *Server) now() time.Duration { return time.Since(s.start) }

// Handler serves the list API, GET /metrics and GET /healthz.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+PathServers, s.list)
	mux.HandleFunc("POST "+PathServers, s.register)
	mux.HandleFunc("DELETE "+PathServers+"/{addr}", s.leave)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	return mux
}

// Run reads the echoes on the UDP socket and ticks the table once a second until ctx ends.
func (s *Server) Run(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- s.readLoop() }()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			s.cfg.Conn.SetReadDeadline(time.Now())
			<-done
			return nil
		case err := <-done:
			return err
		case <-t.C:
			s.mu.Lock()
			out := s.t.Tick(s.now())
			s.mu.Unlock()
			s.send(out)
		}
	}
}

func (s *Server) readLoop() error {
	buf := make([]byte, 512)
	for {
		n, from, err := s.cfg.Conn.ReadFrom(buf)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		ua, ok := from.(*net.UDPAddr)
		if !ok {
			continue
		}
		s.mu.Lock()
		listed := s.t.Echo(s.now(), ua.AddrPort(), buf[:n])
		s.mu.Unlock()
		if listed {
			s.echoes.WithLabelValues("listed").Inc()
			s.log.Info("server listed: reachability proven", "query", ua.String())
		} else {
			s.echoes.WithLabelValues("ignored").Inc()
		}
	}
}

func (s *Server) send(out []Datagram) {
	for _, d := range out {
		if _, err := s.cfg.Conn.WriteTo(d.B, net.UDPAddrFromAddrPort(d.To)); err != nil {
			s.log.Debug("token not sent", "to", d.To.String(), "err", err)
			continue
		}
		s.tokens.Inc()
	}
}

// source is the address a request comes from: the connection's, or, from a trusted proxy, the
// last X-Forwarded-For value.
func (s *Server) source(r *http.Request) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}, false
	}
	a := ap.Addr().Unmap().WithZone("")
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			if v := r.Header.Values("X-Forwarded-For"); len(v) > 0 {
				parts := strings.Split(v[len(v)-1], ",")
				fa, err := netip.ParseAddr(strings.TrimSpace(parts[len(parts)-1]))
				if err != nil {
					return netip.Addr{}, false
				}
				return fa.Unmap().WithZone(""), true
			}
			break
		}
	}
	return a, true
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	src, ok := s.source(r)
	if !ok {
		s.fail(w, "list", http.StatusBadRequest, errors.New("no source address"))
		return
	}
	now := s.now()
	s.mu.Lock()
	if !s.t.AllowRead(now, src) {
		s.mu.Unlock()
		w.Header().Set("Retry-After", "1")
		s.fail(w, "list", http.StatusTooManyRequests, ErrRate)
		return
	}
	c := &s.cache
	if !c.ok || (now-c.at >= s.cfg.CacheFor && c.version != s.t.Version()) {
		l, v := s.t.List()
		body, _ := json.Marshal(List{Servers: l})
		body = append(body, '\n')
		sum := sha256.Sum256(body)
		c.body, c.etag, c.version, c.at, c.ok = body, `"`+hex.EncodeToString(sum[:12])+`"`, v, now, true
	}
	body, etag := c.body, c.etag
	s.mu.Unlock()
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(s.cfg.CacheFor/time.Second)))
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatch(inm, etag) {
		s.requests.WithLabelValues("list", "304").Inc()
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	s.requests.WithLabelValues("list", "200").Inc()
	w.Write(body)
}

func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// bearer is the request's secret (Authorization: Bearer SECRET).
func bearer(r *http.Request) string {
	a := r.Header.Get("Authorization")
	if len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
		return strings.TrimSpace(a[7:])
	}
	return ""
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	src, ok := s.source(r)
	if !ok {
		s.fail(w, "register", http.StatusBadRequest, errors.New("no source address"))
		return
	}
	var e Entry
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBody))
	if err := dec.Decode(&e); err != nil {
		s.fail(w, "register", http.StatusBadRequest, fmt.Errorf("%w: the body is not an entry in JSON of at most %d bytes: %v", ErrInvalid, MaxBody, err))
		return
	}
	s.mu.Lock()
	st, out, err := s.t.Register(s.now(), src, bearer(r), e)
	s.mu.Unlock()
	if err != nil {
		s.fail(w, "register", statusOf(err), err)
		return
	}
	s.send(out)
	code := http.StatusOK
	if st == Pending {
		code = http.StatusAccepted
		s.log.Debug("registration pending: token sent", "from", src.String(), "name", e.Name)
	}
	addr, _, _ := Resolve(&e, src)
	s.reply(w, "register", code, Registration{Status: st, Addr: addr.String(), ExpiresIn: int(s.t.cfg.Expiry / time.Second)})
}

func (s *Server) leave(w http.ResponseWriter, r *http.Request) {
	src, ok := s.source(r)
	if !ok {
		s.fail(w, "leave", http.StatusBadRequest, errors.New("no source address"))
		return
	}
	s.mu.Lock()
	err := s.t.Delete(s.now(), src, bearer(r), r.PathValue("addr"))
	s.mu.Unlock()
	if err != nil {
		s.fail(w, "leave", statusOf(err), err)
		return
	}
	s.requests.WithLabelValues("leave", "204").Inc()
	w.WriteHeader(http.StatusNoContent)
}

func statusOf(err error) int {
	switch {
	case errors.Is(err, ErrInvalid), errors.Is(err, ErrSecret):
		return http.StatusBadRequest
	case errors.Is(err, ErrNotYours):
		return http.StatusForbidden
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrRate), errors.Is(err, ErrTooMany):
		return http.StatusTooManyRequests
	case errors.Is(err, ErrFull):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

func (s *Server) fail(w http.ResponseWriter, op string, code int, err error) {
	s.reply(w, op, code, Registration{Error: err.Error()})
}

func (s *Server) reply(w http.ResponseWriter, op string, code int, v any) {
	s.requests.WithLabelValues(op, strconv.Itoa(code)).Inc()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
