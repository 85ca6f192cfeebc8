package agones

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"
)

// Allocation request and answer (allocation.swagger.json: allocationAllocationRequest,
// allocationGameServerSelector, allocationCounterSelector, allocationCounterAction,
// allocationAllocationResponse).
type (
	AllocationRequest struct {
		Namespace           string                   `json:"namespace,omitempty"`
		GameServerSelectors []GameServerSelector     `json:"gameServerSelectors,omitempty"`
		Scheduling          string                   `json:"scheduling,omitempty"` // "Packed" or "Distributed"
		Counters            map[string]CounterAction `json:"counters,omitempty"`
	}
	GameServerSelector struct {
		MatchLabels     map[string]string          `json:"matchLabels,omitempty"`
		GameServerState string                     `json:"gameServerState,omitempty"` // "READY" or "ALLOCATED"
		Counters        map[string]CounterSelector `json:"counters,omitempty"`
	}
	CounterSelector struct {
		MinCount     *Int64 `json:"minCount,omitempty"`
		MaxCount     *Int64 `json:"maxCount,omitempty"`
		MinAvailable *Int64 `json:"minAvailable,omitempty"`
		MaxAvailable *Int64 `json:"maxAvailable,omitempty"`
	}
	CounterAction struct {
		Action   string `json:"action,omitempty"` // "Increment" or "Decrement"
		Amount   *Int64 `json:"amount,omitempty"`
		Capacity *Int64 `json:"capacity,omitempty"`
	}
	AllocationResponse struct {
		GameServerName string                   `json:"gameServerName"`
		Ports          []Port                   `json:"ports,omitempty"`
		Address        string                   `json:"address"`
		NodeName       string                   `json:"nodeName,omitempty"`
		Counters       map[string]CounterStatus `json:"counters,omitempty"`
	}
)

// LabelFleet is the label Agones puts on every GameServer of a Fleet, naming it.
const LabelFleet = "agones.dev/fleet"

// LabelAccepting is the label a host sets through the SDK to "true" once Ready and to "false"
// when it drains; Agones stores SDK labels under "agones.dev/sdk-" (SDKLabelPrefix), and the
// allocation selects on it, so a draining host is never allocated.
const (
	LabelAccepting = "rtype-accepting"
	SDKLabelPrefix = "agones.dev/sdk-"
)

// States of a selector (GameServerSelectorGameServerState).
const (
	StateReady     = "READY"
	StateAllocated = "ALLOCATED"
)

// GamesRequest is the allocation of one game on a fleet of high-density hosts that accept
// games (LabelAccepting): an Allocated host with a free game first (games packed on the hosts
// already in use), else a Ready one;
// the games counter is incremented by the allocation itself, so two lobbies allocating at once
// cannot both take a host's last place.
func GamesRequest(namespace, fleet string) AllocationRequest {
	one := Int64(1)
	sel := func(state string) GameServerSelector {
		return GameServerSelector{MatchLabels: map[string]string{LabelFleet: fleet, SDKLabelPrefix + LabelAccepting: "true"}, GameServerState: state,
			Counters: map[string]CounterSelector{CounterGames: {MinAvailable: &one}}}
	}
	return AllocationRequest{Namespace: namespace, Scheduling: "Packed",
		GameServerSelectors: []GameServerSelector{sel(StateAllocated), sel(StateReady)},
		Counters:            map[string]CounterAction{CounterGames: {Action: "Increment", Amount: &one}}}
}

// Allocator is the client of the Agones allocator service (POST /gameserverallocation, mTLS).
type Allocator struct {
	c   client
	req AllocationRequest
}

// ErrNoGameServer is the allocator's answer when no GameServer matches (429, gRPC
// ResourceExhausted): no host has a free game.
var ErrNoGameServer = errors.New("agones: no game host with a free game (allocation: no GameServer matched)")

// NewAllocator returns a client of the allocator at base (e.g. "https://agones-allocator.agones-system:443")
// allocating one game of fleet in namespace (GamesRequest). tc is the mTLS configuration
// (LoadTLS); nil only for plain-HTTP tests.
func NewAllocator(base, namespace, fleet string, tc *tls.Config, log *slog.Logger) *Allocator {
	if log == nil {
		log = slog.Default()
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tc
	noRoom := func(err error) bool {
		var he *HTTPError
		return !(errors.As(err, &he) && he.Status == http.StatusTooManyRequests) && retryable(err)
	}
	return &Allocator{c: client{base: base, hc: &http.Client{Transport: tr}, log: log, backoff: Backoff{First: 50 * time.Millisecond, Max: 500 * time.Millisecond},
		try: 2 * time.Second, retry: noRoom}, req: GamesRequest(namespace, fleet)}
}

// Allocate allocates one game: the GameServer chosen, with its address and ports. Network
// errors and 5xx are retried until ctx ends; a 429 is ErrNoGameServer at once.
func (a *Allocator) Allocate(ctx context.Context) (AllocationResponse, error) {
	var out AllocationResponse
	err := a.c.call(ctx, http.MethodPost, "/gameserverallocation", a.req, &out)
	var he *HTTPError
	if errors.As(err, &he) && he.Status == http.StatusTooManyRequests {
		return out, ErrNoGameServer
	}
	return out, err
}

// LoadTLS reads the allocator client's mTLS files: its certificate and key (the allocator's
// client CA signs them) and the CA that signs the allocator's own certificate.
func LoadTLS(certFile, keyFile, caFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("agones allocator client certificate: %w", err)
	}
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("agones allocator CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("agones allocator CA %s: no PEM certificate", caFile)
		}
		tc.RootCAs = pool
	}
	return tc, nil
}
