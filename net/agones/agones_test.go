package agones

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

var fast = Backoff{First: time.Millisecond, Max: 5 * time.Millisecond}

func newFake() *FakeSDK {
	return NewFakeSDK("rtype-hosts-abc12", "rtype-hosts", "203.0.113.7",
		[]Port{{Name: "game", Port: 7412}, {Name: "control", Port: 7413}},
		map[string]CounterStatus{CounterGames: {Count: 0, Capacity: 10}})
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestSDK: the client against the fake sidecar: the lifecycle a host goes through (status,
// counter capacity, labels, Ready, health, Shutdown), and 4xx answers that are final (one
// call each, no retry).
func TestSDK(t *testing.T) {
	f := newFake()
	srv := httptest.NewServer(f)
	defer srv.Close()
	sdk := NewSDK(srv.URL, quiet())
	sdk.setBackoff(fast)
	ctx := ctxT(t)

	host, port, err := Address(ctx, sdk, "game")
	if err != nil || host != "203.0.113.7" || port != 7412 {
		t.Fatalf("Address: %s %d %v, want 203.0.113.7 7412 (the status's port named game)", host, port, err)
	}
	c := Int64(4)
	got, err := sdk.UpdateCounter(ctx, CounterGames, CounterUpdate{Capacity: &c})
	if err != nil || got.Capacity != 4 || got.Count != 0 || got.Name != CounterGames {
		t.Fatalf("capacity: %+v %v", got, err)
	}
	if err := sdk.SetLabel(ctx, "rtype-version", "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	if err := sdk.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sdk.Health(ctx); err != nil {
		t.Fatal(err)
	}
	gs := f.GameServer()
	if gs.Status.State != "Ready" || gs.ObjectMeta.Labels["agones.dev/sdk-rtype-version"] != "v1.2.3" || gs.Status.Counters[CounterGames].Capacity != 4 {
		t.Fatalf("after setup: %+v", gs)
	}
	if len(f.Healths()) != 1 {
		t.Fatal("health not recorded")
	}
	// Final refusals: out of range, unknown counter, bad label value.
	n := len(f.Calls())
	five := Int64(5)
	var he *HTTPError
	if _, err := sdk.UpdateCounter(ctx, CounterGames, CounterUpdate{Count: &five}); !errors.As(err, &he) || he.Status != 400 {
		t.Fatalf("count above capacity: %v, want 400", err)
	}
	if _, err := sdk.counter(ctx, "players"); !errors.As(err, &he) || he.Status != 404 {
		t.Fatalf("unknown counter: %v, want 404", err)
	}
	if err := sdk.SetLabel(ctx, "stages", "a,b"); !errors.As(err, &he) || he.Status != 400 {
		t.Fatalf("bad label value: %v, want 400", err)
	}
	if got := len(f.Calls()) - n; got != 3 {
		t.Fatalf("%d calls for 3 refused requests: a 4xx must not be retried", got)
	}
	if err := sdk.Shutdown(ctx); err != nil || f.GameServer().Status.State != "Shutdown" {
		t.Fatalf("shutdown: %v, state %s", err, f.GameServer().Status.State)
	}
	// The wire form: int64 as strings, as the swagger documents say.
	last := f.Calls()[len(f.Calls())-4]
	if last.Method != http.MethodPatch || last.Path != "/v1beta1/counters/games" || last.Body != `{"count":"5"}` {
		t.Fatalf("counter update sent %+v", last)
	}
}

// TestSDKRetries: a sidecar that is not up yet (connection refused, then 503) is retried
// until it answers.
func TestSDKRetries(t *testing.T) {
	f := newFake()
	var n atomic.Int32
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody listens: connection refused
	sdk := NewSDK("http://"+addr, quiet())
	sdk.setBackoff(fast)
	var tries atomic.Int32
	sdk.c.hc.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		tries.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})
	done := make(chan error, 1)
	go func() { done <- sdk.Ready(ctxT(t)) }()
	// The sidecar comes up once the client has been refused twice, answering 503 three times.
	waitFor(t, "two refused tries", func() bool { return tries.Load() >= 2 })
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("port %s taken meanwhile: %v", addr, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 3 {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		f.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n.Load() != 4 || f.GameServer().Status.State != "Ready" {
		t.Fatalf("%d requests, state %s; want 3 refused then Ready", n.Load(), f.GameServer().Status.State)
	}
}

// TestTickGate: healthy while the schedule moves or has nothing to do; a schedule stuck with
// games for one period is not.
func TestTickGate(t *testing.T) {
	var g TickGate
	for i, tc := range []struct {
		ticks uint64
		games int
		want  bool
	}{
		{0, 0, true}, // first period
		{0, 0, true}, // idle: no tick, no game
		{120, 2, true},
		{240, 2, true},
		{240, 2, false}, // wedged
		{240, 2, false},
		{241, 2, true}, // moves again
		{241, 0, true}, // the games ended
	} {
		if got := g.Alive(tc.ticks, tc.games); got != tc.want {
			t.Fatalf("period %d: Alive(%d, %d) = %v, want %v", i, tc.ticks, tc.games, got, tc.want)
		}
	}
}

// TestCounterSync: the counter follows the games; the last value is sent when stopped; an
// allocation's increment that no game followed is corrected at the next refresh.
func TestCounterSync(t *testing.T) {
	f := newFake()
	srv := httptest.NewServer(f)
	defer srv.Close()
	sdk := NewSDK(srv.URL, quiet())
	sdk.setBackoff(fast)
	cs := NewCounterSync(sdk, CounterGames, quiet())
	cs.Refresh = 20 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); cs.Run(ctx) }()
	count := func() Int64 { return f.GameServer().Status.Counters[CounterGames].Count }
	cs.Set(3)
	waitFor(t, "count 3", func() bool { return count() == 3 })
	// An allocation increments; no game comes: the refresh sets 3 again.
	one := Int64(1)
	f.allocate(AllocationRequest{Counters: map[string]CounterAction{CounterGames: {Action: "Increment", Amount: &one}}}, GameServerSelector{GameServerState: StateAllocated})
	f.mu.Lock()
	f.gs.Status.State = "Ready"
	f.mu.Unlock()
	f.allocate(AllocationRequest{Counters: map[string]CounterAction{CounterGames: {Action: "Increment", Amount: &one}}}, GameServerSelector{})
	if count() != 4 {
		t.Fatalf("allocation: count %d, want 4", count())
	}
	waitFor(t, "count corrected to 3", func() bool { return count() == 3 })
	cs.Set(0)
	cancel()
	<-done
	if count() != 0 {
		t.Fatalf("after stop: count %d, want 0", count())
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestAllocator: over mTLS, one game at a time goes to an Allocated host with a free game
// first, then a Ready one; each allocation increments the games counter; none left is
// ErrNoGameServer; a client without a certificate is refused by TLS; a malformed request is
// a 400.
func TestAllocator(t *testing.T) {
	a := NewFakeSDK("gs-a", "rtype-hosts", "198.51.100.1", []Port{{Name: "control", Port: 7001}}, map[string]CounterStatus{CounterGames: {Capacity: 2}})
	b := NewFakeSDK("gs-b", "rtype-hosts", "198.51.100.2", []Port{{Name: "control", Port: 7002}}, map[string]CounterStatus{CounterGames: {Capacity: 1}})
	other := NewFakeSDK("gs-x", "other-fleet", "198.51.100.3", nil, map[string]CounterStatus{CounterGames: {Capacity: 9}})
	for _, s := range []*FakeSDK{a, b, other} {
		s.gs.Status.State = "Ready"
		s.gs.ObjectMeta.Labels[SDKLabelPrefix+LabelAccepting] = "true"
	}
	draining := NewFakeSDK("gs-d", "rtype-hosts", "198.51.100.4", []Port{{Name: "control", Port: 7004}}, map[string]CounterStatus{CounterGames: {Capacity: 9}})
	draining.gs.Status.State = "Ready"
	draining.gs.ObjectMeta.Labels[SDKLabelPrefix+LabelAccepting] = "false"
	fa := NewFakeAllocator(other, draining, a, b)
	dir := t.TempDir()
	srv := httptest.NewUnstartedServer(fa)
	serverTLS, files := testPKI(t, dir)
	srv.TLS = serverTLS
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes below
	srv.StartTLS()
	defer srv.Close()
	tc, err := LoadTLS(files.cert, files.key, files.ca)
	if err != nil {
		t.Fatal(err)
	}
	al := NewAllocator(srv.URL, "default", "rtype-hosts", tc, quiet())
	ctx := ctxT(t)
	var names []string
	for range 3 {
		r, err := al.Allocate(ctx)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, r.GameServerName)
	}
	if names[0] != "gs-a" || names[1] != "gs-a" || names[2] != "gs-b" {
		t.Fatalf("allocated %v, want gs-a (Ready), gs-a (Allocated, 1 free), gs-b", names)
	}
	if c := a.GameServer().Status.Counters[CounterGames].Count; c != 2 {
		t.Fatalf("gs-a games %d, want 2", c)
	}
	if _, err := al.Allocate(ctx); !errors.Is(err, ErrNoGameServer) {
		t.Fatalf("full fleet: %v, want ErrNoGameServer", err)
	}
	if other.GameServer().Status.State != "Ready" || draining.GameServer().Status.State != "Ready" {
		t.Fatal("a GameServer of another fleet, or one that drains, was allocated")
	}
	var req AllocationRequest
	if err := json.Unmarshal([]byte(fa.Calls()[0].Body), &req); err != nil || len(req.GameServerSelectors) != 2 {
		t.Fatalf("request %s", fa.Calls()[0].Body)
	}
	// No client certificate: the TLS handshake fails, nothing is allocated.
	n := len(fa.Calls())
	anon := NewAllocator(srv.URL, "default", "rtype-hosts", &tls.Config{RootCAs: tc.RootCAs}, quiet())
	actx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := anon.Allocate(actx); err == nil {
		t.Fatal("allocated without a client certificate")
	}
	if len(fa.Calls()) != n {
		t.Fatal("the allocator served a client without a certificate")
	}
	// A request with a field the document does not have: 400.
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: tc}}
	resp, err := hc.Post(srv.URL+"/gameserverallocation", "application/json", bytesReader(`{"fleet":"rtype-hosts"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	hc.CloseIdleConnections()
	if resp.StatusCode != 400 {
		t.Fatalf("unknown field: %d, want 400", resp.StatusCode)
	}
}

type pkiFiles struct{ cert, key, ca string }

// testPKI makes a CA, the allocator's server certificate (127.0.0.1) and a client certificate,
// writes the client's files and returns the server's TLS configuration (client certificates
// required, signed by the CA).
func testPKI(t *testing.T, dir string) (*tls.Config, pkiFiles) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTpl, caTpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	leaf := func(serial int64, server bool) (tls.Certificate, []byte, []byte) {
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "leaf"}, NotBefore: time.Now().Add(-time.Hour),
			NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
		if server {
			tpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
			tpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
		}
		der, err := x509.CreateCertificate(rand.Reader, tpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kd, _ := x509.MarshalECPrivateKey(k)
		certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
		keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd})
		c, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			t.Fatal(err)
		}
		return c, certPEM, keyPEM
	}
	srvCert, _, _ := leaf(2, true)
	_, cliCert, cliKey := leaf(3, false)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	files := pkiFiles{cert: filepath.Join(dir, "tls.crt"), key: filepath.Join(dir, "tls.key"), ca: filepath.Join(dir, "ca.crt")}
	for p, b := range map[string][]byte{files.cert: cliCert, files.key: cliKey, files.ca: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})} {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return &tls.Config{Certificates: []tls.Certificate{srvCert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}, files
}

func bytesReader(s string) io.Reader { return strings.NewReader(s) }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestDeployDocRequest: the allocation request shown in docs/DEPLOY.md is the one the lobby
// sends.
func TestDeployDocRequest(t *testing.T) {
	doc, err := os.ReadFile("../../docs/DEPLOY.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "```json\n")
	block, _, ok2 := strings.Cut(after, "```")
	if !ok || !ok2 {
		t.Fatal("no json block in docs/DEPLOY.md")
	}
	var want bytes.Buffer
	if err := json.Compact(&want, []byte(block)); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(GamesRequest("default", "rtype-hosts"))
	if string(got) != want.String() {
		t.Fatalf("docs/DEPLOY.md shows\n%s\nthe lobby sends\n%s", want.String(), got)
	}
}

// setBackoff changes the wait between tries.
func (s *SDK) setBackoff(b Backoff) { s.c.backoff = b }

// counter returns a counter (GET /v1beta1/counters/{name}).
func (s *SDK) counter(ctx context.Context, name string) (Counter, error) {
	var c Counter
	err := s.c.call(ctx, http.MethodGet, "/v1beta1/counters/"+url.PathEscape(name), nil, &c)
	return c, err
}

// TestLifecycle: an emptied host goes back to Ready once per busy spell, never while a game
// runs, and recycles (Shutdown) when empty after RecycleAfter games, whichever of the game's
// end and the new count is reported first.
func TestLifecycle(t *testing.T) {
	var l Lifecycle
	if s := l.Games(0); s != Stay {
		t.Fatalf("idle from the start: %v, want stay (it is Ready already)", s)
	}
	for i, s := range []struct {
		ended   bool
		running int
		want    Step
	}{
		{false, 1, Stay}, {false, 2, Stay}, {true, 2, Stay}, {false, 1, Stay}, {true, 1, Stay}, {false, 0, BackToReady},
		{false, 0, Stay}, {false, 1, Stay}, {false, 0, BackToReady}, {true, 0, Stay},
	} {
		got := l.Games(s.running)
		if s.ended {
			got = l.Ended()
		}
		if got != s.want {
			t.Fatalf("step %d (%d running, ended %v): %v, want %v", i, s.running, s.ended, got, s.want)
		}
	}
	// The end reported before the count, then the count before the end.
	r := Lifecycle{RecycleAfter: 2}
	if r.Games(1) != Stay || r.Ended() != Stay || r.Games(0) != BackToReady {
		t.Fatal("first game of 2: want stay, stay, ready")
	}
	if r.Games(1) != Stay || r.Games(0) != BackToReady || r.Ended() != Recycle {
		t.Fatal("second game of 2: want stay, ready, recycle")
	}
	if r.Games(1) != Stay || r.Games(0) != BackToReady {
		t.Fatal("after recycling: recycle is said once")
	}
	// A game that ends while its lobby is away: its end held counts as running (net/server)
	// until the lobby takes it; only then is the host emptied.
	h := Lifecycle{RecycleAfter: 1}
	if h.Games(1) != Stay || h.Ended() != Stay || h.Games(1) != Stay {
		t.Fatal("an end held for the away lobby: want stay (still busy, not recycled)")
	}
	if h.Games(0) != Recycle {
		t.Fatal("the held end taken: want recycle")
	}
	var k Lifecycle
	got := []Step{k.Games(1)}                // the game runs
	got = append(got, k.Games(1))            // it ended; its end held counts as running
	got = append(got, k.Ended(), k.Games(0)) // the end taken: empty
	if want := []Step{Stay, Stay, Stay, BackToReady}; !slices.Equal(got, want) {
		t.Fatalf("an end held, then taken: %v, want %v", got, want)
	}
}

// TestAddressPortName: a status whose ports have none of the name asked for fails with
// ErrNoSuchPort naming the ports it has (not two minutes of silent polling).
func TestAddressPortName(t *testing.T) {
	fake := NewFakeSDK("gs-1", "rtype-hosts", "10.0.0.9", []Port{{Name: "default", Port: 7001}, {Name: "control", Port: 7002}}, nil)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	sdk := NewSDK(srv.URL, slog.New(slog.DiscardHandler))
	sdk.PortWait = time.Nanosecond
	if h, p, err := Address(context.Background(), sdk, "default"); err != nil || h != "10.0.0.9" || p != 7001 {
		t.Fatalf("port default: %s %d %v", h, p, err)
	}
	_, _, err := Address(context.Background(), sdk, "game")
	if !errors.Is(err, ErrNoSuchPort) || !strings.Contains(err.Error(), "default, control") {
		t.Fatalf("port game: %v, want ErrNoSuchPort naming default and control", err)
	}
}
