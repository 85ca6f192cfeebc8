package fleet

import (
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/rtype/rtype/net/metrics/logsample"
)

// Why a control connection was refused (the log line's reason).
const (
	reasonPerAddr = "too many handshakes from the address"
	reasonFull    = "every handshake slot taken by addresses holding as many"
	reasonEvicted = "handshake slot given to an address holding fewer"
	reasonTimeout = "no handshake within the deadline"
	reasonFailed  = "handshake failed"
)

// refusal is the key of a refused connection's log line: one per reason and address per
// RefusedLogEvery.
type refusal struct{ reason, addr string }

// handshake is one connection in its handshake.
type handshake struct {
	nc      net.Conn
	addr    string
	seq     uint64
	evicted bool // its slot was given to another address (and nc closed)
}

// handshakes are the Host's connections in their handshake, by address (MaxHandshakes,
// MaxHandshakesPerAddr), and the sampled log of those it refused.
type handshakes struct {
	log   *slog.Logger
	epoch time.Time

	mu      sync.Mutex
	n       int
	seq     uint64
	byAddr  map[string][]*handshake // oldest first
	refused *logsample.Sampler[refusal, string]
}

// addrKey is the address a connection's limits count it under: the host of its remote address.
func addrKey(a net.Addr) string {
	if a == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// admit gives nc a handshake slot, or refuses it (nil: the caller closes it).
func (h *handshakes) admit(nc net.Conn) *handshake {
	addr := addrKey(nc.RemoteAddr())
	h.mu.Lock()
	own := len(h.byAddr[addr])
	if own >= MaxHandshakesPerAddr {
		h.mu.Unlock()
		h.refuse(reasonPerAddr, addr, "")
		return nil
	}
	var victim *handshake
	if h.n >= MaxHandshakes {
		most := own // only an address holding more than the newcomer's gives a slot up
		for _, l := range h.byAddr {
			if len(l) > most || len(l) == most && victim != nil && l[0].seq < victim.seq {
				most, victim = len(l), l[0]
			}
		}
		if victim == nil {
			h.mu.Unlock()
			h.refuse(reasonFull, addr, "")
			return nil
		}
		victim.evicted = true
		h.removeLocked(victim)
	}
	h.seq++
	hs := &handshake{nc: nc, addr: addr, seq: h.seq}
	h.byAddr[addr] = append(h.byAddr[addr], hs)
	h.n++
	h.mu.Unlock()
	if victim != nil {
		victim.nc.Close()
	}
	return hs
}

func (h *handshakes) removeLocked(hs *handshake) {
	l := h.byAddr[hs.addr]
	for i, o := range l {
		if o == hs {
			l = append(l[:i], l[i+1:]...)
			h.n--
			break
		}
	}
	if len(l) == 0 {
		delete(h.byAddr, hs.addr)
	} else {
		h.byAddr[hs.addr] = l
	}
}

// done frees hs's slot once its handshake is over; it reports whether it had been evicted.
func (h *handshakes) done(hs *handshake) (evicted bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !hs.evicted {
		h.removeLocked(hs)
	}
	return hs.evicted
}

// held is the number of connections in their handshake (tests).
func (h *handshakes) held() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// refuse logs a refused connection, sampled: the first of its reason and address in a window,
// then, with the next window's first, how many more there were.
func (h *handshakes) refuse(reason, addr, detail string) {
	h.mu.Lock()
	log, before := h.refused.Hit(time.Since(h.epoch), refusal{reason, addr}, detail)
	h.mu.Unlock()
	if before.Skipped > 0 {
		h.summary(refusal{reason, addr}, before)
	}
	if log {
		h.log.Warn("control connection refused", "reason", reason, "remote", addr, "err", detail)
	}
}

func (h *handshakes) summary(k refusal, r logsample.Report[string]) {
	h.log.Warn("control connections refused (not logged one by one)", "reason", k.reason, "remote", k.addr,
		"count", r.Skipped, "since", h.epoch.Add(r.Since).UTC().Format(time.RFC3339), "last_err", r.Last)
}

// flush reports the windows that are over (the Host calls it every RefusedLogEvery, so that
// the end of a flood is reported when it ends).
func (h *handshakes) flush() {
	var ks []refusal
	var rs []logsample.Report[string]
	h.mu.Lock()
	h.refused.Flush(time.Since(h.epoch), func(k refusal, r logsample.Report[string]) {
		ks, rs = append(ks, k), append(rs, r)
	})
	h.mu.Unlock()
	for i := range ks {
		h.summary(ks[i], rs[i])
	}
}
