package listserver

import (
	"context"
	"errors"
	"fmt"
	"github.com/rtype/rtype/net/serverlist"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// DefaultAddr is the list server's default HTTP address (cmd/rtype-list -addr).
const DefaultAddr = ":8080"

// RunConfig is cmd/rtype-list's configuration.
type RunConfig struct {
	// Addr is the HTTP (or, with TLSCert and TLSKey, HTTPS) address of the API.
	Addr string
	// UDPAddr is the UDP socket the tokens leave from ("": the host of Addr, a port the system
	// chooses; the echoes come back to it).
	UDPAddr string
	// TLSCert and TLSKey, when set, serve HTTPS directly (else put a TLS reverse proxy in front).
	TLSCert, TLSKey string
	ServerConfig
	// Ready, when set, receives the bound HTTP and UDP addresses (tests use port 0).
	Ready func(http, udp net.Addr)
}

// Run serves the list until ctx ends.
func Run(ctx context.Context, cfg RunConfig) error {
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return errors.New("-tls-cert and -tls-key go together")
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	udp := cfg.UDPAddr
	if udp == "" {
		h, _, _ := net.SplitHostPort(cfg.Addr)
		udp = net.JoinHostPort(h, "0")
	}
	pc, err := net.ListenPacket("udp", udp)
	if err != nil {
		return fmt.Errorf("udp address: %w", err)
	}
	defer pc.Close()
	cfg.Conn = pc
	s := NewServer(cfg.ServerConfig)
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
		IdleTimeout: 60 * time.Second, MaxHeaderBytes: 8 << 10, ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug)}
	served := make(chan error, 1)
	go func() {
		if cfg.TLSCert != "" {
			served <- hs.ServeTLS(ln, cfg.TLSCert, cfg.TLSKey)
		} else {
			served <- hs.Serve(ln)
		}
	}()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	ran := make(chan error, 1)
	go func() { ran <- s.Run(runCtx) }()
	scheme := "http"
	if cfg.TLSCert != "" {
		scheme = "https"
	}
	s.log.Info("rtype list server listening", "addr", ln.Addr().String(), "scheme", scheme, "udp", pc.LocalAddr().String(),
		"paths", "GET|POST "+serverlist.PathServers+", DELETE "+serverlist.PathServers+"/ADDR, /metrics, /healthz")
	if cfg.Ready != nil {
		cfg.Ready(ln.Addr(), pc.LocalAddr())
	}
	var runErr error
	select {
	case <-ctx.Done():
	case err = <-served:
		stop()
		<-ran
		return err
	case runErr = <-ran:
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
	stop()
	if runErr == nil {
		runErr = <-ran
	}
	s.log.Info("rtype list server stopped")
	return runErr
}
