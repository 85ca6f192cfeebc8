package fleet

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
)

// exporterLabel names the keying material a mutual-TLS control connection exports (RFC 5705 /
// RFC 8446 §7.5) as the handshake's secret.
const exporterLabel = "EXPORTER-rtype-control-v1"

// channelSecret is the secret the control handshake proves on nc: with mutual TLS the TLS
// session's exported keying material (bound to this connection and to both certificates),
// followed by the shared secret when one is configured too; without TLS the shared secret.
func channelSecret(nc net.Conn, secret []byte) ([]byte, error) {
	tc, ok := nc.(*tls.Conn)
	if !ok {
		return secret, nil
	}
	if err := tc.Handshake(); err != nil {
		return nil, fmt.Errorf("fleet: control TLS: %w", err)
	}
	st := tc.ConnectionState()
	if len(st.PeerCertificates) == 0 {
		return nil, errors.New("fleet: control TLS: the peer sent no certificate")
	}
	ekm, err := st.ExportKeyingMaterial(exporterLabel, nil, 32)
	if err != nil {
		return nil, fmt.Errorf("fleet: control TLS: %w", err)
	}
	return append(ekm, secret...), nil
}

// LoadTLS reads a control endpoint's mutual-TLS files (-control-cert, -control-key,
// -control-ca): its certificate and key and the CA that signs the other side's. server is true
// for a host (it requires and verifies the lobby's client certificate), false for a lobby (it
// verifies the host's server certificate against the CA).
func LoadTLS(certFile, keyFile, caFile string, server bool) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("control certificate: %w", err)
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("control CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("control CA %s: no PEM certificate", caFile)
	}
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13}
	if server {
		tc.ClientAuth, tc.ClientCAs = tls.RequireAndVerifyClientCert, pool
	} else {
		tc.RootCAs = pool
	}
	return tc, nil
}

// CheckAuth refuses a configuration with neither a shared secret nor mutual TLS.
func CheckAuth(secret []byte, tc *tls.Config) error {
	if tc != nil && len(secret) == 0 {
		return nil
	}
	return CheckSecret(secret)
}
