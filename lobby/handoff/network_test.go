package handoff

import (
	"net/netip"
	"testing"
)

// TestSourceNetwork: an IPv4 address is its own network (mapped or not), the addresses of one
// IPv6 /64 share theirs whatever their zone, and a neighbouring /64 is another.
func TestSourceNetwork(t *testing.T) {
	for _, tc := range []struct{ ip, want string }{
		{"192.0.2.7", "192.0.2.7/32"},
		{"::ffff:192.0.2.7", "192.0.2.7/32"},
		{"2001:db8:1:2::1", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"},
		{"fe80::1%eth0", "fe80::/64"},
		{"2001:db8:1:3::1", "2001:db8:1:3::/64"},
	} {
		if got := SourceNetwork(netip.MustParseAddr(tc.ip)); got.String() != tc.want {
			t.Errorf("SourceNetwork(%s) = %v, want %s", tc.ip, got, tc.want)
		}
	}
	if got := SourceNetwork(netip.Addr{}); got.IsValid() {
		t.Errorf("SourceNetwork of no address = %v, want the zero Prefix", got)
	}
}
