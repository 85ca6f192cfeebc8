package instance

import (
	"hash/maphash"
	"net/netip"
	"time"
)

// Rate limit defaults (docs/PROTOCOL.md §6 rule 7): a client sends about 62 datagrams per second
// (60 Hz inputs and its pings), so 240 per second with bursts of 480 leave it a wide margin.
const (
	DefaultRateLimit = 240
	// RateBuckets is the size of the limiter's table: fixed, so a flood of spoofed sources costs
	// no memory (128 KiB).
	RateBuckets = 1 << 14
)

// RateLimiter limits the datagrams per second from each source address (IP and port) with the
// generic cell rate algorithm (a token bucket kept as one time per source). Sources are hashed
// (hash/maphash, a random seed per limiter, so an attacker cannot aim at one source's bucket) into
// a fixed table of RateBuckets: memory is bounded whatever the number of sources, and sources
// that share a bucket share its budget (with a few hundred players in 16384 buckets, a shared
// bucket still has several times what two clients send). Zero allocation per datagram; not safe
// for concurrent use (the Manager's read loop owns it).
type RateLimiter struct {
	seed      maphash.Seed
	interval  time.Duration // between two datagrams at the sustained rate
	tolerance time.Duration // how far ahead of now a bucket may run: (burst-1) intervals
	tat       []time.Duration
}

// NewRateLimiter allows perSecond datagrams per second from each source address, in bursts of up
// to burst datagrams (burst < 1 means 2 × perSecond).
func NewRateLimiter(perSecond, burst int) *RateLimiter {
	if burst < 1 {
		burst = 2 * perSecond
	}
	iv := time.Second / time.Duration(perSecond)
	return &RateLimiter{seed: maphash.MakeSeed(), interval: iv, tolerance: time.Duration(burst-1) * iv,
		tat: make([]time.Duration, RateBuckets)}
}

// Allow reports whether a datagram from src at now (monotonic, any fixed origin) is within its
// source's rate, and counts it if so.
func (l *RateLimiter) Allow(now time.Duration, src netip.AddrPort) bool {
	var k [18]byte
	a := src.Addr().As16()
	copy(k[:], a[:])
	p := src.Port()
	k[16], k[17] = byte(p), byte(p>>8)
	i := maphash.Bytes(l.seed, k[:]) & (RateBuckets - 1)
	t := max(l.tat[i], now)
	if t-now > l.tolerance {
		return false
	}
	l.tat[i] = t + l.interval
	return true
}
