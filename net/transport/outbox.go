package transport

import "net/netip"

// Outbox holds the datagrams a protocol core (net/instance.Game, net/session.Client) produced and
// its runtime has not sent yet: the cores own no socket. Datagrams are copied into one reused
// byte arena, so a steady state allocates nothing. Not safe for concurrent use.
type Outbox struct {
	buf  []byte
	list []outRec
}

type outRec struct {
	to       netip.AddrPort
	off, end int
}

// Put queues a copy of b for to.
func (o *Outbox) Put(b []byte, to netip.AddrPort) {
	off := len(o.buf)
	o.buf = append(o.buf, b...)
	o.list = append(o.list, outRec{to: to, off: off, end: len(o.buf)})
}

// Len is the number of queued datagrams.
func (o *Outbox) Len() int { return len(o.list) }

// At returns queued datagram i (valid until Reset) and its destination.
func (o *Outbox) At(i int) ([]byte, netip.AddrPort) {
	r := o.list[i]
	return o.buf[r.off:r.end:r.end], r.to
}

// Reset forgets every queued datagram (their bytes are reused).
func (o *Outbox) Reset() {
	o.buf = o.buf[:0]
	o.list = o.list[:0]
}

// Append moves every datagram of o to the end of this outbox (o is reset).
func (o *Outbox) Append(from *Outbox) {
	for i := range from.list {
		b, to := from.At(i)
		o.Put(b, to)
	}
	from.Reset()
}

// Flush calls send with each queued datagram in order, then Reset.
func (o *Outbox) Flush(send func(b []byte, to netip.AddrPort)) {
	for i := range o.list {
		b, to := o.At(i)
		send(b, to)
	}
	o.Reset()
}

// Keep keeps the queued datagrams for which keep returns true, in order, and forgets the others
// (their bytes stay in the arena until Reset).
func (o *Outbox) Keep(keep func(b []byte, to netip.AddrPort) bool) {
	n := 0
	for i, r := range o.list {
		if b, to := o.At(i); keep(b, to) {
			o.list[n] = r
			n++
		}
	}
	o.list = o.list[:n]
}
