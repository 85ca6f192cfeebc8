package serverlist

import (
	"hash/maphash"
	"net/netip"
	"time"
)

// limiterBuckets is the size of a limiter's table: fixed, so a flood from any number of
// addresses costs no memory (128 KiB). Networks that hash to one bucket share its budget.
const limiterBuckets = 1 << 14

// limiter is a per-network token bucket (the generic cell rate algorithm: one time per
// bucket) over a fixed table of hashed networks (IPv4 address, IPv6 /64). Not safe for
// concurrent use.
type limiter struct {
	seed      maphash.Seed
	interval  time.Duration
	tolerance time.Duration
	tat       []time.Duration
}

func newLimiter(perSecond float64, burst int) *limiter {
	if perSecond <= 0 {
		return nil // no limit
	}
	iv := time.Duration(float64(time.Second) / perSecond)
	if burst < 1 {
		burst = 1
	}
	return &limiter{seed: maphash.MakeSeed(), interval: iv, tolerance: time.Duration(burst-1) * iv, tat: make([]time.Duration, limiterBuckets)}
}

func (l *limiter) allow(now time.Duration, a netip.Addr) bool {
	if l == nil {
		return true
	}
	k := networkOf(a)
	i := maphash.Comparable(l.seed, k) & (limiterBuckets - 1)
	t := max(l.tat[i], now)
	if t-now > l.tolerance {
		return false
	}
	l.tat[i] = t + l.interval
	return true
}

// networkOf is the network a per-address limit counts a source in: its IPv4 address, or the /64
// of its IPv6 address (one host or household gets a /64).
func networkOf(a netip.Addr) netip.Prefix {
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return netip.PrefixFrom(a, 32)
	}
	p, _ := a.Prefix(64)
	return p
}
