package agones

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"
)

// EnvSDKPort names the environment variable Agones sets to the SDK sidecar's HTTP port.
const EnvSDKPort = "AGONES_SDK_HTTP_PORT"

// CounterGames is the counter a host's free game capacity is kept in (the Fleet's
// spec.template.spec.counters, deploy/k8s/fleet.json): count = games running, capacity =
// -capacity. Allocation selects on its free capacity and increments it.
const CounterGames = "games"

// Int64 is an int64 that JSON carries as a string, as proto3's JSON mapping does for int64
// fields (the swagger documents' "type": "string", "format": "int64"); a number is accepted too.
type Int64 int64

// MarshalJSON writes the decimal string.
func (n Int64) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatInt(int64(n), 10) + `"`), nil
}

// UnmarshalJSON reads a decimal string or a number.
func (n *Int64) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("agones: int64 %s: %w", b, err)
	}
	*n = Int64(v)
	return nil
}

// GameServer is the part of sdk.swagger.json's sdkGameServer the host reads.
type GameServer struct {
	ObjectMeta ObjectMeta       `json:"object_meta"`
	Status     GameServerStatus `json:"status"`
}

// ObjectMeta is GameServerObjectMeta (name, namespace, labels).
type ObjectMeta struct {
	Name      string            `json:"name"`
	Namespace string            `json:"namespace,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
}

// GameServerStatus is sdkGameServerStatus: state, address, ports, counters.
type GameServerStatus struct {
	State    string                   `json:"state"`
	Address  string                   `json:"address"`
	Ports    []Port                   `json:"ports,omitempty"`
	Counters map[string]CounterStatus `json:"counters,omitempty"`
}

// Port is StatusPort: a named port and its number as players reach it (the host port Agones
// mapped to the container port, under a Dynamic port policy).
type Port struct {
	Name string `json:"name"`
	Port int    `json:"port"`
}

// CounterStatus is StatusCounterStatus.
type CounterStatus struct {
	Count    Int64 `json:"count"`
	Capacity Int64 `json:"capacity"`
}

// Counter is beta.swagger.json's betaCounter.
type Counter struct {
	Name     string `json:"name"`
	Count    Int64  `json:"count"`
	Capacity Int64  `json:"capacity"`
}

// CounterUpdate is the body of PATCH /v1beta1/counters/{name} (betaCounterUpdateRequest
// without its name, which is in the path): fields left nil are not changed.
type CounterUpdate struct {
	Count     *Int64 `json:"count,omitempty"`
	Capacity  *Int64 `json:"capacity,omitempty"`
	CountDiff *Int64 `json:"countDiff,omitempty"`
}

// KeyValue is sdkKeyValue (PUT /metadata/label).
type KeyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// PortByName returns the port named name of the status, 0 when there is none.
func (s GameServerStatus) PortByName(name string) int {
	for _, p := range s.Ports {
		if p.Name == name {
			return p.Port
		}
	}
	return 0
}

// PortNames lists the names of the status's ports.
func (s GameServerStatus) PortNames() []string {
	names := make([]string, 0, len(s.Ports))
	for _, p := range s.Ports {
		names = append(names, p.Name)
	}
	return names
}

// HTTPError is an answer other than 200.
type HTTPError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("agones: %s %s: %d %s", e.Method, e.Path, e.Status, e.Body)
}

// retryable reports whether a call that failed with err is worth retrying: the sidecar is not
// up yet (connection refused), timed out, or answered 5xx or 429; a 4xx is final.
func retryable(err error) bool {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Status >= 500 || he.Status == http.StatusTooManyRequests
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// Backoff is how a client waits between tries: First, doubling up to Max.
type Backoff struct{ First, Max time.Duration }

// DefaultBackoff: 100 ms doubling to 2 s.
var DefaultBackoff = Backoff{First: 100 * time.Millisecond, Max: 2 * time.Second}

// client is the HTTP plumbing shared by SDK and Allocator.
type client struct {
	base    string
	hc      *http.Client
	log     *slog.Logger
	backoff Backoff
	try     time.Duration    // bound of one try
	retry   func(error) bool // nil: retryable
}

// call sends method path with body (nil: none) and decodes a 200's JSON into out (nil:
// ignored), retrying what is retryable until ctx ends.
func (c *client) call(ctx context.Context, method, path string, body, out any) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return err
		}
	}
	wait := c.backoff.First
	for attempt := 1; ; attempt++ {
		err := c.once(ctx, method, path, payload, out)
		again := retryable
		if c.retry != nil {
			again = c.retry
		}
		if err == nil || !again(err) || ctx.Err() != nil {
			if err != nil && ctx.Err() != nil {
				return fmt.Errorf("%w (after %d tries: %v)", ctx.Err(), attempt, err)
			}
			return err
		}
		if attempt == 1 || attempt%10 == 0 {
			c.log.Debug("agones call failed, retrying", "method", method, "path", path, "attempt", attempt, "err", err, "retry_in", wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w (after %d tries: %v)", ctx.Err(), attempt, err)
		case <-t.C:
		}
		wait = min(2*wait, c.backoff.Max)
	}
}

func (c *client) once(ctx context.Context, method, path string, payload []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, c.try)
	defer cancel()
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("agones: %s %s: no answer within %v", method, path, c.try) // retryable
		}
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return &HTTPError{Method: method, Path: path, Status: resp.StatusCode, Body: string(bytes.TrimSpace(b))}
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("agones: %s %s: %w", method, path, err)
		}
	}
	return nil
}

// SDK is the client of the Agones SDK sidecar's REST API (sdk.swagger.json, beta.swagger.json).
type SDK struct {
	c client
	// PortWait bounds Address's wait for a missing port name once the status has ports (0:
	// the package's PortWait).
	PortWait time.Duration
}

// NewSDK returns a client of the sidecar at base (e.g. "http://localhost:9358").
func NewSDK(base string, log *slog.Logger) *SDK {
	if log == nil {
		log = slog.Default()
	}
	return &SDK{c: client{base: base, hc: &http.Client{}, log: log, backoff: DefaultBackoff, try: 5 * time.Second}}
}

// SDKFromEnv returns the client of the sidecar on localhost:$AGONES_SDK_HTTP_PORT.
func SDKFromEnv(log *slog.Logger) (*SDK, error) {
	p := os.Getenv(EnvSDKPort)
	if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
		return nil, fmt.Errorf("agones: %s=%q is not a port: is this running in an Agones GameServer?", EnvSDKPort, p)
	}
	return NewSDK("http://localhost:"+p, log), nil
}

// Ready marks the GameServer Ready (POST /ready): allocations may pick it.
func (s *SDK) Ready(ctx context.Context) error {
	return s.c.call(ctx, http.MethodPost, "/ready", struct{}{}, nil)
}

// Health is one health ping (POST /health); Agones marks the GameServer Unhealthy when they
// stop for its health.failureThreshold periods.
func (s *SDK) Health(ctx context.Context) error {
	return s.c.call(ctx, http.MethodPost, "/health", struct{}{}, nil)
}

// Shutdown asks Agones to shut the GameServer down (POST /shutdown).
func (s *SDK) Shutdown(ctx context.Context) error {
	return s.c.call(ctx, http.MethodPost, "/shutdown", struct{}{}, nil)
}

// GameServer returns the GameServer (GET /gameserver).
func (s *SDK) GameServer(ctx context.Context) (GameServer, error) {
	var gs GameServer
	err := s.c.call(ctx, http.MethodGet, "/gameserver", nil, &gs)
	return gs, err
}

// SetLabel sets a label of the GameServer (PUT /metadata/label; Agones stores it as
// "agones.dev/sdk-<key>"). value must be a Kubernetes label value (LabelValue).
func (s *SDK) SetLabel(ctx context.Context, key, value string) error {
	return s.c.call(ctx, http.MethodPut, "/metadata/label", KeyValue{Key: key, Value: value}, nil)
}

// UpdateCounter changes a counter (PATCH /v1beta1/counters/{name}) and returns it.
func (s *SDK) UpdateCounter(ctx context.Context, name string, u CounterUpdate) (Counter, error) {
	var c Counter
	err := s.c.call(ctx, http.MethodPatch, "/v1beta1/counters/"+url.PathEscape(name), u, &c)
	return c, err
}

// LabelValue makes s a valid Kubernetes label value: at most 63 characters of letters, digits,
// '-', '_' and '.', beginning and ending with a letter or digit; others become '.'.
func LabelValue(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '.'
		}
	}
	if len(b) > 63 {
		b = b[:63]
	}
	return string(bytes.Trim(b, "-_."))
}
