package fleet

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"
)

// testCA is a certificate authority of the test.
type testCA struct {
	key  *ecdsa.PrivateKey
	cert *x509.Certificate
	pem  []byte
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "rtype test CA"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{key: key, cert: cert, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// files writes a leaf certificate for 127.0.0.1 (server and client use) and the CA into dir
// and returns their paths.
func (ca *testCA) files(t *testing.T, dir, name string) (cert, key, caFile string) {
	t.Helper()
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tpl, ca.cert, &k.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kd, _ := x509.MarshalECPrivateKey(k)
	cert, key, caFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key"), filepath.Join(dir, name+"-ca.crt")
	for p, b := range map[string][]byte{cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		key: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}), caFile: ca.pem} {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return cert, key, caFile
}

// TestMutualTLS: with -control-cert/-key/-ca and no shared secret, a lobby with a certificate
// of the CA is served; a lobby without a certificate, or with one of another CA, is refused
// before any message, and the runtime never sees a game.
// In virtual time over the in-memory network (memNet), as the other fleet tests: the
// certificates are made inside the bubble, whose clock they are valid by.
func TestMutualTLS(t *testing.T) { synctest.Test(t, testMutualTLS) }

func testMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca, other := newTestCA(t), newTestCA(t)
	hc, hk, hca := ca.files(t, dir, "host")
	lc, lk, lca := ca.files(t, dir, "lobby")
	sc, sk, _ := other.files(t, dir, "stranger")
	hostTLS, err := LoadTLS(hc, hk, hca, true)
	if err != nil {
		t.Fatal(err)
	}
	ln := netOf(t).listen()
	st := &fakeStarter{port: 5001}
	h := NewHost(HostConfig{TLS: hostTLS, Starter: st, Capacity: 4, Logger: quiet(), Ping: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); h.Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()
	addr := ln.Addr().String()

	lobbyTLS, err := LoadTLS(lc, lk, lca, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckAuth(nil, lobbyTLS); err != nil {
		t.Fatalf("mutual TLS without a secret: %v", err)
	}
	r := NewRemote(RemoteConfig{Hosts: []string{addr}, TLS: lobbyTLS, Logger: quiet(), Ping: 20 * time.Millisecond, Redial: 10 * time.Millisecond, Dial: netOf(t).dial})
	rctx, rcancel := context.WithCancel(context.Background())
	rdone := make(chan struct{})
	go func() { defer close(rdone); r.Run(rctx) }()
	defer func() { rcancel(); <-rdone }()
	eventually(t, "host up over mutual TLS", func() bool { return r.Up() == 1 })
	if _, err := r.StartGame(spec("ABCDE", 1)); err != nil {
		t.Fatal(err)
	}

	// Strangers: no certificate, another CA's certificate (the host's CA trusted, so only the
	// client side is wrong).
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.pem)
	stranger, err := tls.LoadX509KeyPair(sc, sk)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]*tls.Config{
		"no certificate": {RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS13},
		"another CA's":   {RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS13, Certificates: []tls.Certificate{stranger}},
	} {
		raw, err := netOf(t).dial(context.Background(), addr)
		if err != nil {
			t.Fatal(err)
		}
		nc := tls.Client(raw, tc)
		if err = nc.Handshake(); err == nil {
			_, err = ClientHandshake(nc, nil, nil)
		}
		nc.Close()
		if err == nil {
			t.Errorf("%s: the control handshake succeeded", name)
		}
	}
	if n := len(st.games()); n != 1 {
		t.Fatalf("%d games, want only the lobby's one", n)
	}
	if err := CheckAuth(nil, nil); err == nil {
		t.Fatal("neither a secret nor TLS accepted")
	}
}
