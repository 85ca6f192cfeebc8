package serverlist

import (
	"fmt"
	"net/netip"
	"strings"
)

// ParsePrefixes reads a list of addresses or CIDRs separated by commas ("": none), as
// -trusted-proxies gives them to rtype-list and rtype-server: an address alone is a /32 or /128.
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, fmt.Errorf("%q is not an address or a CIDR", f)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not an address or a CIDR", f)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
