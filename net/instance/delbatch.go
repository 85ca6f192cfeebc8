package instance

import (
	"github.com/rtype/rtype/net/transport"
	"github.com/rtype/rtype/net/wire"
)

// DelBatch gathers the deletions one client is told of in a tick into DEL_ENTS commands
// (docs/PROTOCOL.md §3.4.11) of at most transport.RelMaxCmd bytes, the largest reliable command.
// The zero value is empty.
//
//	if b.Full(e) { send(b.Cmd()); b.Reset() }
//	b.Add(e)
//	...
//	if c := b.Cmd(); c != nil { send(c); b.Reset() }
type DelBatch struct {
	buf [transport.RelMaxCmd]byte
	n   int // bytes of the pending command, 0 when empty
}

// Full reports whether entity ent's id does not fit the pending command (send it first).
func (b *DelBatch) Full(ent uint64) bool {
	return b.n > 0 && b.n+wire.EntityRefSize(ent) > len(b.buf)
}

// Add adds entity ent to the pending command (beginning one when there is none). Call Full
// first.
func (b *DelBatch) Add(ent uint64) {
	out := b.buf[:b.n]
	if b.n == 0 {
		out, _ = wire.BeginDelEnts(out)
	}
	out = wire.AppendEntityRef(out, ent)
	b.n = len(out)
}

// Cmd returns the pending DEL_ENTS command (a view of the batch's buffer, valid until the next
// Add or Reset), nil when there is none.
func (b *DelBatch) Cmd() []byte {
	if b.n == 0 {
		return nil
	}
	return wire.EndDelEnts(b.buf[:b.n], 0)
}

// Reset empties the batch.
func (b *DelBatch) Reset() { b.n = 0 }
