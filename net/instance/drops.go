package instance

import (
	"context"
	"log/slog"
	"net/netip"
	"time"

	"github.com/rtype/rtype/net/metrics/logsample"
	"github.com/rtype/rtype/net/wire"
)

// Drop reasons of the game runtime, as indexes into DropReasons: first the wire's (wire.Reasons:
// datagrams that fail validation, docs/PROTOCOL.md §6 rule 1), then these.
const (
	// DropUnknownToken: a valid datagram whose token belongs to no running game.
	DropUnknownToken = wire.NumReasons + iota
	// DropEnded: a datagram for a game that has ended (its players' last acknowledgements).
	DropEnded
	// DropRate: over its source address's rate limit (§6 rule 7).
	DropRate
	// DropAddress: a player's token from an address its session is not bound to, without a
	// valid RESPONSE; answered with a CHALLENGE at most (§5.9, §6 rules 3 and 4).
	DropAddress
	// DropResponse: a RESPONSE from an unbound address whose nonce is not the server's for that
	// address, has expired or was used already, or whose proof is wrong (§5.9).
	DropResponse
	// DropGone: from a player already dropped from its game.
	DropGone
	// DropPanic: its handling panicked (the game was aborted).
	DropPanic
	// NumDropReasons is len(DropReasons): size a counter array with it.
	NumDropReasons
)

// DropReasons names every drop reason (metric label values): wire.Reasons, then "unknown_token",
// "ended", "rate", "address", "response", "gone" and "panic".
var DropReasons = func() (r [NumDropReasons]string) {
	copy(r[:], wire.Reasons[:])
	copy(r[wire.NumReasons:], []string{"unknown_token", "ended", "rate", "address", "response", "gone", "panic"})
	return r
}()

// Drops counts dropped datagrams per reason (index: DropReasons).
type Drops [NumDropReasons]uint64

// Total is the number of datagrams dropped for any reason.
func (d *Drops) Total() uint64 {
	var n uint64
	for _, v := range d {
		n += v
	}
	return n
}

// Add adds o's counts to d.
func (d *Drops) Add(o *Drops) {
	for i, v := range o {
		d[i] += v
	}
}

// FloodLine is the number of drops of one reason within a second above which their summary is
// logged at Warn instead of Debug: a flood shows in the default log.
const FloodLine = 1000

// dropLog writes the drop log lines, sampled per reason (logsample: a flood cannot fill a
// disk): the first drop of a reason in a second is logged at Debug with its source; the drops
// after it are only counted (with the last one's source), and their number is logged when the
// second is over — by the next drop of that reason or by flush, which the schedule calls every
// second — at Warn from FloodLine on. At most two lines per reason per second. Zero allocation
// for the drops not logged. The zero value is ready to use.
type dropLog struct {
	s *logsample.Sampler[int, netip.AddrPort] // key: the reason; value: the drop's source
}

func (d *dropLog) note(log *slog.Logger, now time.Duration, reason int, from netip.AddrPort) {
	if d.s == nil {
		d.s = logsample.New[int, netip.AddrPort](time.Second)
	}
	ok, before := d.s.Hit(now, reason, from)
	if !ok {
		return
	}
	d.summary(log, now, reason, before)
	if log.Enabled(context.Background(), slog.LevelDebug) {
		log.Debug("datagram dropped", "reason", DropReasons[reason], "from", from.String())
	}
}

// summary logs the drops of reason that a second counted without logging them, if any.
func (d *dropLog) summary(log *slog.Logger, now time.Duration, reason int, r logsample.Report[netip.AddrPort]) {
	if r.Skipped == 0 {
		return
	}
	lvl := slog.LevelDebug
	if r.Skipped >= FloodLine {
		lvl = slog.LevelWarn
	}
	log.Log(context.Background(), lvl, "datagrams dropped", "reason", DropReasons[reason], "count", r.Skipped,
		"seconds", (now - r.Since).Seconds(), "last_from", r.Last.String())
}

// flush logs the counts of the seconds that are over, so that the end of a flood is reported
// when it ends, not at the next drop of its reason.
func (d *dropLog) flush(log *slog.Logger, now time.Duration) {
	if d.s != nil {
		d.s.Flush(now, func(reason int, r logsample.Report[netip.AddrPort]) { d.summary(log, now, reason, r) })
	}
}

// pending reports whether a count may be waiting for flush.
func (d *dropLog) pending() bool { return d.s != nil && d.s.Pending() }
