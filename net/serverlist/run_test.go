package serverlist

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// selfSigned writes a certificate for 127.0.0.1 and its key to dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "rtype-list test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	c, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(c)
	return certFile, keyFile, pool
}

// TestRunTLS: rtype-list's -tls-cert and -tls-key serve the API over HTTPS (Fetch reads it), and
// Run returns when ctx ends.
func TestRunTLS(t *testing.T) {
	cert, key, pool := selfSigned(t, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- Run(ctx, RunConfig{Addr: "127.0.0.1:0", TLSCert: cert, TLSKey: key, ServerConfig: ServerConfig{Logger: slog.New(slog.DiscardHandler)}, Ready: func(h, _ net.Addr) { ready <- h }})
	}()
	var addr net.Addr
	select {
	case addr = <-ready:
	case err := <-errc:
		t.Fatal(err)
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	l, errs := Fetch(context.Background(), c, []string{"https://" + addr.String()})
	if len(errs) != 0 || len(l) != 0 {
		t.Fatalf("fetch over HTTPS: %v %v", l, errs)
	}
	if _, errs := Fetch(context.Background(), nil, []string{"http://" + addr.String()}); len(errs) != 1 {
		t.Fatalf("plain HTTP to the HTTPS address: %v", errs)
	}
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after ctx ended")
	}
	if err := Run(context.Background(), RunConfig{Addr: "127.0.0.1:0", TLSCert: cert}); err == nil {
		t.Fatal("-tls-cert without -tls-key accepted")
	}
}
