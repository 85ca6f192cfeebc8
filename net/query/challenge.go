package query

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"hash"
	"net/netip"
	"sync"
	"time"
)

// ChallengeWindow is how long one challenge value is issued; a challenge is accepted during the
// window it was issued in and the next, so it lives between one and two windows.
const ChallengeWindow = 5 * time.Second

// Challenger makes and checks A2S challenges without state: a challenge is the first 4 bytes of
// HMAC-SHA256(secret, window u32 || the address's 16 bytes (IPv4 mapped) || port u16), all
// little-endian, window being the time in ChallengeWindows. Only this server can make one, it
// names the address it was sent to, and it ends (the game's CHALLENGE nonces are made the same
// way, net/instance). Safe for concurrent use; zero allocations per call.
type Challenger struct {
	mu  sync.Mutex
	mac hash.Hash
	in  [4 + 16 + 2]byte
	sum [sha256.Size]byte
}

// NewChallenger is a Challenger under a fresh random secret.
func NewChallenger() *Challenger {
	var secret [32]byte
	if _, err := rand.Read(secret[:]); err != nil {
		panic("query: no randomness for the challenge secret: " + err.Error())
	}
	return newChallenger(secret[:])
}

func newChallenger(secret []byte) *Challenger {
	return &Challenger{mac: hmac.New(sha256.New, secret)}
}

func window(now time.Duration) uint32 { return uint32(now / ChallengeWindow) }

func (c *Challenger) value(w uint32, to netip.AddrPort) uint32 {
	binary.LittleEndian.PutUint32(c.in[:], w)
	a := to.Addr().As16()
	copy(c.in[4:], a[:])
	binary.LittleEndian.PutUint16(c.in[20:], to.Port())
	c.mac.Reset()
	c.mac.Write(c.in[:])
	v := binary.LittleEndian.Uint32(c.mac.Sum(c.sum[:0]))
	if v == NoChallenge || v == 0 { // the values a request uses for "none"
		v = 1
	}
	return v
}

// Challenge is the challenge for to at now (time on any monotonic clock the checks share).
func (c *Challenger) Challenge(now time.Duration, to netip.AddrPort) uint32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.value(window(now), unmapped(to))
}

// Check reports whether v is a challenge issued for from at now or in the window before.
func (c *Challenger) Check(now time.Duration, from netip.AddrPort, v uint32) bool {
	if v == NoChallenge || v == 0 {
		return false
	}
	from = unmapped(from)
	c.mu.Lock()
	defer c.mu.Unlock()
	w := window(now)
	ok := subtle.ConstantTimeEq(int32(c.value(w, from)), int32(v)) == 1
	return ok || (w > 0 && subtle.ConstantTimeEq(int32(c.value(w-1, from)), int32(v)) == 1)
}

func unmapped(a netip.AddrPort) netip.AddrPort { return netip.AddrPortFrom(a.Addr().Unmap(), a.Port()) }
