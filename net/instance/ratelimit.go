package instance

import (
	"hash/maphash"
	"net/netip"
	"sync"
	"time"

	"github.com/rtype/rtype/lobby/handoff"
)

// Rate limit defaults (docs/PROTOCOL.md §6 rule 7): a client sends about 62 datagrams per second
// (60 Hz inputs and its pings), so 240 per second with bursts of 480 leave it a wide margin.
const (
	DefaultRateLimit = 240
	// RateBuckets is the size of the limiter's table: fixed, so a flood of spoofed sources costs
	// no memory (128 KiB).
	RateBuckets = 1 << 14
)

// CHALLENGE limits (docs/PROTOCOL.md §6 rule 8): a CHALLENGE tells its receiver that the token
// it sent is live, so each source network gets few: ChallengeRate per second in bursts of
// ChallengeBurst, per IPv4 address and per IPv6 /64, over every game of the runtime. A NAT
// rebinding needs one (the client answers the newest); a household of 4 players and 8
// spectators whose NAT rebinds them all at once gets 16 at once.
const (
	ChallengeRate  = 8
	ChallengeBurst = 16
)

// ChallengeLimiter limits the CHALLENGEs sent to each source network (an IPv4 address, an IPv6
// /64) with a RateLimiter's fixed table: probing tokens from one network gets ChallengeRate
// answers per second, whatever the ports or addresses within it. Safe for concurrent use (the
// games of a runtime share one).
type ChallengeLimiter struct {
	mu sync.Mutex
	l  *RateLimiter
}

// NewChallengeLimiter allows ChallengeRate CHALLENGEs per second per source network, in bursts
// of ChallengeBurst.
func NewChallengeLimiter() *ChallengeLimiter {
	return &ChallengeLimiter{l: NewRateLimiter(ChallengeRate, ChallengeBurst)}
}

// Allow reports whether a CHALLENGE to addr at now is within its network's budget, and counts it
// if so.
func (c *ChallengeLimiter) Allow(now time.Duration, addr netip.Addr) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.l.allowKey(now, networkKey(addr))
}

// networkKey is the key of addr's source network (handoff.SourceNetwork): the IPv4 address, or
// the /64 of an IPv6 address.
func networkKey(addr netip.Addr) (k [18]byte) {
	p := handoff.SourceNetwork(addr)
	a := p.Addr().As16()
	copy(k[:], a[:])
	if p.Addr().Is6() {
		k[17] = 6 // not an IPv4-mapped key
	}
	return k
}

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
	return l.allowKey(now, k)
}

func (l *RateLimiter) allowKey(now time.Duration, k [18]byte) bool {
	i := maphash.Bytes(l.seed, k[:]) & (RateBuckets - 1)
	t := max(l.tat[i], now)
	if t-now > l.tolerance {
		return false
	}
	l.tat[i] = t + l.interval
	return true
}
