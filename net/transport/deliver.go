package transport

import "github.com/rtype/rtype/net/wire"

// Delivery walks the commands of a received datagram in the order a client session delivers
// them (docs/PROTOCOL.md §5.1): unreliable commands as they come; a command after REL(id) only
// when it is the next reliable one — then followed by the buffered reliable commands it
// unblocks — and not at all when it is a duplicate or waits for a gap to be filled. REL itself is
// consumed. A value type: no allocation.
//
//	for d := ep.Deliver(r); d.Next(); {
//		apply(d.ID(), d.Cmd())
//	}
type Delivery struct {
	ep         *Endpoint
	r          wire.Reader
	relPending bool
	relID      uint16
	popping    bool // draining PopReliable after an in-order reliable command
	id         wire.CmdID
	cmd        []byte
}

// Deliver returns the delivery walk of r's commands (r positioned before its first command, as
// wire.Open returns it), after Receive accepted the datagram.
func (e *Endpoint) Deliver(r wire.Reader) Delivery { return Delivery{ep: e, r: r} }

// Next advances to the next command to deliver; false at the end.
func (d *Delivery) Next() bool {
	if d.popping {
		if b, ok := d.ep.PopReliable(); ok {
			d.id, d.cmd = wire.CmdID(b[2]), b
			return true
		}
		d.popping = false
	}
	for d.r.Next() {
		cmd, id := d.r.Cmd(), d.r.ID()
		if id == wire.CmdRel {
			var rc wire.Rel
			if _, err := rc.Parse(cmd); err == nil {
				d.relPending, d.relID = true, rc.ID
			}
			continue
		}
		if d.relPending {
			d.relPending = false
			if !d.ep.ReceiveReliable(d.relID, cmd) {
				continue // a duplicate, or kept until the gap before it is filled
			}
			d.popping = true
		}
		d.id, d.cmd = id, cmd
		return true
	}
	return false
}

// ID is the current command's id.
func (d *Delivery) ID() wire.CmdID { return d.id }

// Cmd is the current command, size prefix included (valid until the next call of Next).
func (d *Delivery) Cmd() []byte { return d.cmd }
