package server

import (
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/pires/go-proxyproto"

	"github.com/rtype/rtype/net/serverlist"
)

// ProxyHeaderTimeout bounds how long a connection from a trusted proxy may take to send its
// PROXY header (a proxy sends it at once, before any byte of the player's).
const ProxyHeaderTimeout = 5 * time.Second

// ParseTrustedProxies reads -trusted-proxies: addresses or CIDRs separated by commas ("" =
// none). An address alone is a /32 or /128.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	ps, err := serverlist.ParsePrefixes(s)
	if err != nil {
		return nil, fmt.Errorf("-trusted-proxies %w", err)
	}
	return ps, nil
}

// lobbyListener is the lobby's TCP listener: with trusted proxies, a connection from one of
// them may open with a PROXY protocol header (v1 or v2, HAProxy's specification), whose source
// address becomes the connection's RemoteAddr — what the per-address limits and the logs see —
// and a connection from anywhere else that sends one is refused (a stranger cannot claim
// another address). Without trusted proxies the listener is ln as it is.
func lobbyListener(ln net.Listener, trusted []netip.Prefix) net.Listener {
	if len(trusted) == 0 {
		return ln
	}
	return &proxyproto.Listener{
		Listener:          ln,
		ReadHeaderTimeout: ProxyHeaderTimeout,
		ConnPolicy: func(o proxyproto.ConnPolicyOptions) (proxyproto.Policy, error) {
			if ap, err := netip.ParseAddrPort(o.Upstream.String()); err == nil {
				a := ap.Addr().Unmap()
				for _, p := range trusted {
					if p.Contains(a) {
						return proxyproto.USE, nil
					}
				}
			}
			return proxyproto.REJECT, nil
		},
	}
}
